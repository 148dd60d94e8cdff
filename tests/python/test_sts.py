"""rdmad.sts against what sts.rdma's code computes from the same files
(sts_expect.py derives it from the fixture records), on every fixture."""

import os
import time
from pathlib import Path

import pytest

import sts_expect
from conftest import MAIN_FIXTURES, skip_unless_bus_possible
from rdmad_host import FIXTURES, Host

from rdmad import sts as rdma
from rdmad.client import Client

EXPECT = sts_expect.Host([FIXTURES / f"{f}.umockdev" for f in MAIN_FIXTURES])
DEVICES = sorted(EXPECT.ib_devices())


@pytest.fixture(scope="module")
def sts_client(host):
    c = Client(host.address)
    rdma.use_client(c)
    yield c
    rdma.use_client(None)
    c.close()


def test_devices_cover_the_odd_cases():
    # The fixtures this suite is about: no rate, no netdev, a VF, OPA, iWARP, soft RoCE.
    assert {"mlx4_0", "mlx5_0", "mlx5_1", "hfi1_0", "rxe0", "siw0", "broken_0", "ib-dev.1"} <= set(DEVICES)


def test_module_names(sts_client):
    assert rdma.RDMA_SYSFS_BASE == "/sys/class/infiniband/"
    assert rdma.RdmaDevice.RDMA_PATH == Path("/sys/class/infiniband/")
    assert rdma.exists_rdma() is True
    assert rdma.exists_device("mlx5_0") is True
    assert rdma.exists_device("ib-dev.1") is True
    assert rdma.exists_device("mlx5_9") is False


@pytest.mark.parametrize("name", DEVICES)
def test_device(sts_client, name):
    exp = EXPECT.expected(name)
    dev = rdma.RdmaDevice(name)
    for field in ("path", "name", "ibdev", "ports_path", "device_path", "net_path", "ports", "port_numbers",
                  "is_sriov_capable", "sysfs_attrs"):
        assert getattr(dev, field) == exp[field], field
    assert dev._path == exp["path"]  # 1.16.0's name
    # Every file is an attribute named after its stem (1.16.0).
    for fname, value in exp["sysfs_attrs"].items():
        assert getattr(dev, Path(fname).stem) == value, fname
    assert list(dev.model_dump()) == ["path", "name", "ibdev", "ports_path", "device_path", "net_path", "ports",
                                      "port_numbers", "is_sriov_capable", "sysfs_attrs"]
    assert dev.model_dump() == {k: v for k, v in exp.items() if not k.startswith("_")}
    import json
    dumped = dev.model_dump(mode="json")
    assert json.loads(json.dumps(dumped))["path"] == f"/sys/class/infiniband/{name}"
    assert dumped["ports"] == [str(p) for p in exp["ports"]]
    assert list(dev.model_dump(include={"name", "ports"})) == ["name", "ports"]
    assert "sysfs_attrs" not in dev.model_dump(exclude={"sysfs_attrs"})
    # The newer form: keyword construction, discover() returns the object.
    again = rdma.RdmaDevice(ibdev=name)
    assert again.discover() is again
    assert again.model_dump() == dev.model_dump()


@pytest.mark.parametrize("name", DEVICES)
def test_ports(sts_client, name):
    exp = EXPECT.expected(name)
    dev = rdma.RdmaDevice(name)
    ports = dev.get_ports()
    if not exp["port_numbers"]:
        assert ports is None
        return
    assert [p.name for p in ports] == exp["port_numbers"]
    for p in ports:
        e = exp["_ports"][p.name]
        assert p.model_dump() == e
        for fname, value in e["sysfs_attrs"].items():
            assert getattr(p, Path(fname).stem) == value
        one = dev.get_port(p.name)
        assert one.model_dump() == e
        # Made from its path, as sts users may.
        assert rdma.Port(path=p.path).model_dump() == e
        assert rdma.Port(p.path).discover().model_dump() == e
    assert dev.get_port("9") is None
    assert dev.get_port("0") is None


def test_port_values_spelled_out(sts_client):
    # The strings sts users compare against, written out once.
    p = rdma.RdmaDevice("hfi1_0").get_port("1")
    assert (p.state, p.state_num, p.state_str) == ("4: ACTIVE", "4", "ACTIVE")
    assert (p.phys_state, p.phys_state_num, p.phys_state_str) == ("5: LinkUp", "5", "LinkUp")
    assert (p.rate, p.rate_speed, p.rate_unit, p.rate_info) == ("100 Gb/sec (4X EDR)", "100", "Gb/sec", "4X EDR")
    assert rdma.RdmaDevice("siw0").get_port("1").rate_speed == "2.5"
    old = rdma.RdmaDevice("ib-dev.1").get_port("1")  # old kernel: no speed name (sts raises IndexError)
    assert (old.rate_speed, old.rate_unit, old.rate_info) == ("10", "Gb/sec", "4X")
    norate = rdma.RdmaDevice("broken_0").get_port("1")  # rate/ is a directory: no rate
    assert norate.rate is None and norate.rate_speed is None and norate.rate_info is None
    assert (norate.state_num, norate.state_str) == ("9", "FUTURE")
    assert norate.phys_state_str == "Phy Test"
    only_state = rdma.RdmaDevice("broken_0").get_port("2")
    assert only_state.phys_state is None and only_state.phys_state_num is None
    assert only_state.sysfs_attrs == {"state": "5: ACTIVE_DEFER"}


@pytest.mark.parametrize("name", DEVICES)
def test_netdevs(sts_client, name):
    exp = EXPECT.expected(name)
    dev = rdma.RdmaDevice(name)
    got = [n.model_dump() for n in dev.get_netdevs()]
    assert got == exp["_netdevs"]
    for n in exp["_netdevs"]:
        port = str(int(n["dev_port"]) + 1)
        assert dev.get_netdev(port).model_dump() == n
    for port in exp["port_numbers"]:
        want = [n for n in exp["_netdevs"] if n["dev_port"] == str(int(port) - 1)]
        nd = dev.get_netdev(port)
        assert (nd.model_dump() if nd else None) == (want[0] if want else None)
    assert dev.get_netdev("7") is None


def test_netdev_values_spelled_out(sts_client):
    mlx4 = rdma.RdmaDevice("mlx4_0")
    assert [n.path.name for n in mlx4.get_netdevs()] == ["ens1d1", "ib0"]
    ib0 = mlx4.get_netdev("1")
    assert ib0.path == Path("/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/net/ib0")
    assert (ib0.dev_port, ib0.mtu, ib0.operstate) == ("0", "2044", "up")
    assert mlx4.get_netdev("2").address == "00:02:c9:a1:b2:c2"
    # No net/ directory (soft RoCE, OPA): sts raises, the drop-in says none.
    assert rdma.RdmaDevice("rxe0").get_netdevs() == []
    assert rdma.RdmaDevice("hfi1_0").get_netdevs() == []
    assert rdma.RdmaDevice("rxe0").get_netdev("1") is None
    # Made from its path alone.
    assert rdma.NetDev(path=ib0.path).model_dump() == ib0.model_dump()


@pytest.mark.parametrize("name", DEVICES)
def test_power_and_sriov(sts_client, name):
    exp = EXPECT.expected(name)
    dev = rdma.RdmaDevice(name)
    power = dev.get_power()
    assert power.model_dump() == exp["_power"]
    for fname, value in exp["_power"]["sysfs_attrs"].items():
        assert getattr(power, fname) == value
    assert rdma.Power(dev.path).model_dump() == exp["_power"]
    s = dev.get_sriov()
    if not exp["is_sriov_capable"]:
        assert s is None
        return
    e = exp["_sriov"]
    # rdmad publishes the SR-IOV control, not every file of the PCI function.
    assert s.model_dump() == {"path": e["path"], "sysfs_attrs": {"sriov_numvfs": e["sriov_numvfs"],
                                                                  "sriov_totalvfs": e["sriov_totalvfs"]},
                              "sriov_numvfs": e["sriov_numvfs"], "sriov_totalvfs": e["sriov_totalvfs"],
                              "sriov_numvfs_path": e["sriov_numvfs_path"]}
    assert s.read_numvfs() == e["sriov_numvfs"]
    assert rdma.Sriov(path=e["path"]).model_dump() == s.model_dump()


def test_odd_attribute_values(sts_client):
    b = rdma.RdmaDevice("broken_0")
    assert b.node_type == ""                  # an empty file
    assert b.sys_image_guid == ""             # just "\n"
    assert b.fw_ver == "1.0"                  # no trailing newline
    assert not hasattr(b, "node_guid")        # missing file: no attribute (1.16.0: none set)
    assert "hw_rev" not in b.sysfs_attrs      # a directory
    assert "dangling" not in b.sysfs_attrs    # a link
    assert b.hca_type == "\ufffd(\ufffdA"     # invalid UTF-8 (sts raises UnicodeDecodeError)
    assert b.node_desc == "node\ufffddesc"    # a NUL byte cannot cross D-Bus
    assert b.board_id == "A" * 4096           # a sysfs file is one page
    assert rdma.RdmaDevice("rxe0").device_path == Path("/sys/devices/virtual/infiniband/rxe0/device")


def test_missing_device(sts_client):
    with pytest.raises(FileNotFoundError):
        rdma.RdmaDevice("mlx5_9")
    with pytest.raises(rdma.DeviceNotFound):
        rdma.RdmaDevice(ibdev="nope")
    with pytest.raises(TypeError):
        rdma.RdmaDevice()


def test_set_numvfs(sts_client, host):
    s = rdma.RdmaDevice("mlx5_0").get_sriov()
    assert s.sriov_numvfs == "1"
    pf = "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
    s.set_numvfs("1")  # unchanged: nothing asked
    if os.getuid() != 0:
        # Not root, no polkitd: refused, as sts' write would be, nothing written.
        with pytest.raises(PermissionError):
            s.set_numvfs("4")
        assert s.sriov_numvfs == "1"
        assert host.sysfs(pf + "/sriov_numvfs").read_text().strip() == "1"
        return
    try:
        s.set_numvfs("4")
        assert s.sriov_numvfs == "4" and s.read_numvfs() == "4"
        assert host.sysfs(pf + "/sriov_numvfs").read_text().strip() == "4"
        s.set_sriov_numvfs("2")
        assert s.sriov_numvfs == "2"
        assert host.sysfs(pf + "/sriov_numvfs").read_text().strip() == "2"
        assert rdma.RdmaDevice("mlx5_0").get_sriov().sriov_numvfs == "2"
        with pytest.raises(rdma.InvalidArgument):
            s.set_numvfs("9")  # above sriov_totalvfs: nothing written
        assert host.sysfs(pf + "/sriov_numvfs").read_text().strip() == "2"
        with pytest.raises(ValueError):
            s.set_numvfs("many")
    finally:
        s.set_numvfs("1")
    assert host.sysfs(pf + "/sriov_numvfs").read_text().strip() == "1"


def test_values_follow_sysfs(sts_client, host):
    """A read after a change gives the new value, as sts' re-read would."""
    mlx4 = "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
    dev = rdma.RdmaDevice("mlx4_0")
    # Port 1, InfiniBand: with no verbs the poll reads it every tick. Port 2
    # is RoCE, which rtnetlink covers: a change of its files alone shows only
    # in the poll's slow round, 10 s apart (docs/dbus-api.md).
    assert dev.get_port("1").state_str == "ACTIVE"
    try:
        host.write(mlx4, "ports/1/phys_state", "2: Polling\n")
        host.write(mlx4, "ports/1/state", "1: DOWN\n")
        Client(host.address).wait_for_state("mlx4_0/1", "DOWN", timeout=10)
        assert rdma.RdmaDevice("mlx4_0").get_port("1").state_str == "DOWN"
        # An object made before the change: its getters re-read, as sts'
        # do (here: the signals the model has applied since discover()).
        rdma.exists_device("mlx4_0")  # a question: every signal sent before it is in
        assert dev.get_port("1").state_str == "DOWN"
        assert [p.state_str for p in dev.get_ports()] == ["DOWN", "DOWN"]
    finally:
        host.write(mlx4, "ports/1/phys_state", "5: LinkUp\n")
        host.write(mlx4, "ports/1/state", "4: ACTIVE\n")
        Client(host.address).wait_for_state("mlx4_0/1", "ACTIVE", timeout=10)


def test_siw_over_nic():
    """siw over a NIC with SR-IOV: the one deliberate difference (rdmad has no
    SR-IOV control for a soft device), everything else as sts."""
    skip_unless_bus_possible()
    h = Host(["siw-over-nic"])
    try:
        exp = sts_expect.Host([FIXTURES / "siw-over-nic.umockdev"]).expected("siw0")
        c = Client(h.address)
        rdma.use_client(c)
        dev = rdma.RdmaDevice("siw0")
        assert exp["is_sriov_capable"] is True  # what sts says
        assert dev.is_sriov_capable is False and dev.get_sriov() is None
        exp["is_sriov_capable"] = False
        assert dev.model_dump() == {k: v for k, v in exp.items() if not k.startswith("_")}
        assert [p.model_dump() for p in dev.get_ports()] == list(exp["_ports"].values())
        assert [n.model_dump() for n in dev.get_netdevs()] == exp["_netdevs"]
        c.close()
    finally:
        rdma.use_client(None)
        h.stop()


def test_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", f"unix:path={tmp_path}/none")
    rdma.use_client(None)
    with pytest.raises(rdma.RdmadError) as e:
        rdma.RdmaDevice("mlx5_0")
    assert "systemctl start rdmad" in str(e.value)
    assert isinstance(e.value, ConnectionError)


def test_exists_rdma_follows_the_host():
    """No device, a hot-plug, its removal: exists_rdma() and exists_device() follow."""
    from test_client import RXE1, RXE1_RECORD
    skip_unless_bus_possible()
    h = Host([])
    try:
        c = Client(h.address)
        rdma.use_client(c)
        assert rdma.exists_rdma() is False and rdma.exists_device("rxe1") is False
        h.add(RXE1_RECORD)
        # The uevent is read on rdmad's reader thread: the device appears a moment later.
        for _ in range(200):
            if "rxe1" in Client(h.address).device_names():
                break
            time.sleep(0.05)
        Client(h.address).wait_for_state("rxe1/1", "ACTIVE", timeout=10)
        assert rdma.exists_rdma() is True and rdma.exists_device("rxe1") is True
        assert rdma.RdmaDevice("rxe1").get_port("1").state == "4: ACTIVE"
        h.remove(RXE1)
        for _ in range(100):
            if not Client(h.address).device_names():
                break
            time.sleep(0.05)
        assert rdma.exists_rdma() is False and rdma.exists_device("rxe1") is False
        with pytest.raises(FileNotFoundError):
            rdma.RdmaDevice("rxe1")
        c.close()
    finally:
        rdma.use_client(None)
        h.stop()


def _fresh_sts(monkeypatch, address):
    """rdma as a suite meets it: no client yet, the system bus at address
    (the module's client and flag put back after the test)."""
    monkeypatch.setattr(rdma, "_client", None)
    monkeypatch.setattr(rdma, "_told_absent", False)
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", address)


def test_exists_rdma_is_a_bool_without_rdmad(host, tmp_path, monkeypatch, caplog):
    # A skip guard: `if not rdma.exists_rdma(): pytest.skip(...)` must never raise.
    sysfs_answer = Path(rdma.RDMA_SYSFS_BASE).is_dir()
    try:
        # No bus at all.
        _fresh_sts(monkeypatch, f"unix:path={tmp_path}/no-bus")
        with caplog.at_level("WARNING", logger="rdmad.sts"):
            assert rdma.exists_rdma() is sysfs_answer
            assert rdma.exists_rdma() is sysfs_answer
        absent = [r for r in caplog.records if r.name == "rdmad.sts"]
        assert len(absent) == 1, absent  # said once
        assert "rdmad is not running" in absent[0].getMessage()
        assert "/sys/class/infiniband/" in absent[0].getMessage()

        # The bus, without rdmad on it.
        caplog.clear()
        _fresh_sts(monkeypatch, host.address)
        host.stop_rdmad()
        try:
            with caplog.at_level("WARNING", logger="rdmad.sts"):
                assert rdma.exists_rdma() is sysfs_answer
            assert len([r for r in caplog.records if r.name == "rdmad.sts"]) == 1
        finally:
            host.start_rdmad()
        # rdmad back: its answer again (it publishes devices).
        assert rdma.exists_rdma() is True
    finally:
        if rdma._client is not None:
            rdma._client.close()


def test_device_not_found_names_the_device(sts_client, monkeypatch):
    monkeypatch.setattr(rdma, "_client", sts_client)  # tests before may have dropped it
    with pytest.raises(rdma.DeviceNotFound) as e:
        rdma.RdmaDevice("mlx9_0")
    assert "mlx9_0" in str(e.value) and "_5f" not in str(e.value)
