"""rdmad.client against the real rdmad on a private bus."""

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import rdmad
from rdmad.client import Change, Client, Gid

MLX4 = "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
MLX5_PF = "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
RXE1 = "/sys/devices/virtual/infiniband/rxe1"
RXE1_RECORD = """P: /devices/virtual/infiniband/rxe1
E: SUBSYSTEM=infiniband
E: NAME=rxe1
A: node_type=1: CA\\n
A: node_desc=rxe\\n
A: ports/1/state=4: ACTIVE\\n
A: ports/1/phys_state=5: LinkUp\\n
A: ports/1/rate=10 Gb/sec (1X FDR10)\\n
A: ports/1/link_layer=Ethernet\\n
"""


def set_port(host, state, phys):
    # phys_state first: the poll watches state and then reads the rest.
    host.write(MLX4, "ports/1/phys_state", phys + "\n")
    host.write(MLX4, "ports/1/state", state + "\n")


def test_devices_and_lookups(client):
    names = client.device_names()
    assert names == sorted(names) and "mlx5_0" in names and "ib-dev.1" in names
    assert client.version == rdmad.__version__
    assert client.poll_interval_ms == 100
    d = client.device("mlx5_0")
    assert (d.name, d.driver, d.transport, d.node_type) == ("mlx5_0", "mlx5_core", "RoCE", "CA")
    assert d.pci_address == "0000:5e:00.0" and d.device_path == MLX5_PF
    assert d.firmware_version == "14.28.2006" and d.hca_type == "MT4119"
    assert d.sriov_capable is True and d.port_numbers == [1]
    assert d.virtual_functions == ["mlx5_1"] and d.physical_function is None
    assert client.device("mlx5_1").physical_function == "mlx5_0"
    assert d.attributes["fw_ver"] == "14.28.2006" and d.power_attributes["control"] == "auto"
    assert d.netdev_names == ["ens1f0np0"]
    assert "firmware_version" in d.properties and "firmware_version" in dir(d)
    with pytest.raises(AttributeError):
        d.name = "x"  # read-only
    with pytest.raises(AttributeError):
        d.no_such_thing
    assert client.device("ib-dev.1").name == "ib-dev.1"  # a name that needs escaping

    p = d.port(1)
    assert (p.name, p.device_name, p.number) == ("mlx5_0/1", "mlx5_0", 1)
    assert (p.state, p.state_num, p.state_name) == ("4: ACTIVE", 4, "ACTIVE")
    assert (p.phys_state_num, p.phys_state_name) == (5, "LinkUp")
    assert p.rate_speed == 25.0 and isinstance(p.rate_speed, float)
    assert (p.rate_unit, p.rate_info, p.link_width, p.link_speed) == ("Gb/sec", "1X EDR", "1X", "EDR")
    assert (p.link_layer, p.transport) == ("Ethernet", "RoCE")
    assert p.netdev_name == "ens1f0np0" and p.netdev.mtu == 9000
    assert p.gids[0] == Gid(0, "fe80:0000:0000:0000:9a03:9bff:feaa:bbc0", "IB/RoCE v1", "ens1f0np0")
    assert p.gids[1].type == "RoCE v2"
    assert p.device().name == "mlx5_0"
    assert p.refresh() == p
    assert client.port("mlx5_0/1") == p and client.port(("mlx5_0", 1)) == p
    assert [x.number for x in d.ports] == [1]
    hfi = client.device("hfi1_0").port(1)
    assert hfi.rate_speed == 100.0 and hfi.lid == 1 and hfi.cap_mask == 0x00410022
    assert client.device("siw0").port(1).rate_speed == 2.5
    assert client.device("broken_0").port(1).rate == ""
    assert client.device("hfi1_0").port(1).netdev is None

    n = d.netdev("ens1f0np0")
    assert (n.name, n.device_name, n.dev_port, n.port_number, n.oper_state) == ("ens1f0np0", "mlx5_0", 0, 1, "up")
    assert n.address == "98:03:9b:aa:bb:c0" and n.attributes["phys_port_name"] == "p0"
    assert [x.name for x in client.device("mlx4_0").netdevs] == ["ens1d1", "ib0"]

    s = d.sriov
    assert (s.device_name, s.num_vfs, s.total_vfs, s.device_path) == ("mlx5_0", 1, 8, MLX5_PF)
    assert client.device("mlx4_0").sriov is None


def test_errors(client):
    with pytest.raises(rdmad.NoSuchDevice) as e:
        client.device("mlx5_9")
    assert e.value.dbus_name == "org.rdmad1.Error.NoSuchDevice"
    assert isinstance(e.value, LookupError)
    with pytest.raises(rdmad.NoSuchDevice):
        client.device("mlx5_0").port(7)
    with pytest.raises(rdmad.NoSuchDevice):
        client.port("mlx5_0/7")
    with pytest.raises(rdmad.NoSuchDevice):
        client.device("mlx5_0").netdev("eth9")
    with pytest.raises(rdmad.InvalidArgument):
        client.port("mlx5_0")
    with pytest.raises(rdmad.InvalidArgument):
        client.port("mlx5_0/x")
    with pytest.raises(rdmad.NotSupported):
        client.set_num_vfs("mlx4_0", 1)
    with pytest.raises(rdmad.InvalidArgument) as e:
        client.set_num_vfs("mlx5_0", 99)  # above TotalVfs
    assert e.value.dbus_name == "org.rdmad1.Error.InvalidArgument"
    with pytest.raises(rdmad.Timeout) as e:
        client.wait_for_state("mlx4_0/2", "ACTIVE", timeout=0.3)
    assert isinstance(e.value, TimeoutError) and "mlx4_0/2" in str(e.value)
    # rdmad's reason kept: the state the port is in.
    assert str(e.value) == "mlx4_0/2: not ACTIVE after 0.3 s; it is DOWN", str(e.value)
    assert e.value.dbus_name == "org.rdmad1.Error.Timeout"
    # A timeout that is no span of time is refused before anything is asked.
    for bad in (-1, -0.001, float("nan"), float("inf"), "soon"):
        with pytest.raises(rdmad.InvalidArgument) as e:
            client.wait_for_state("mlx4_0/2", "DOWN", timeout=bad)
        assert "not a timeout" in str(e.value), bad
    assert client.wait_for_state("mlx4_0/2", "DOWN", timeout=0) == "DOWN"


@pytest.mark.parametrize("follow", [False, True])
def test_no_such_device_names_the_device_not_a_path(host, follow):
    c = Client(host.address, follow=follow)
    try:
        for call, name in ((lambda: c.device("mlx9_0"), "mlx9_0"), (lambda: c.port("mlx9_0/1"), "mlx9_0"),
                           (lambda: c.port(("mlx5_0", 7)), "mlx5_0"), (lambda: c.counters("mlx9_0/1"), "mlx9_0")):
            with pytest.raises(rdmad.NoSuchDevice) as e:
                call()
            text = str(e.value)
            assert name in text and "_5f" not in text and "/org/rdmad1" not in text, text
    finally:
        c.close()


def test_error_messages_name_objects():
    from rdmad import errors
    e = errors.from_dbus("org.freedesktop.DBus.Error.UnknownObject",
                         "Unknown object '/org/rdmad1/device/mlx9_5f0/port/1'.")
    assert type(e) is rdmad.NoSuchDevice and str(e) == "Unknown object 'mlx9_0/1'."
    assert errors.name_objects("/org/rdmad1/device/ib_2ddev_2e1 and /org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0 "
                               "and /org/rdmad1/device/mlx5_5f0/sriov") == \
        "ib-dev.1 and mlx5_0 netdev ens1f0np0 and mlx5_0 SR-IOV"
    assert errors.name_objects("/org/other/path") == "/org/other/path"


def test_one_managed_objects_call(client):
    calls = []
    real = client._conn.call_many

    def counting(msgs, **kw):
        msgs = list(msgs)
        calls.extend(m.header.fields.get(3) for m in msgs)  # member
        return real(msgs, **kw)

    client._conn.call_many = counting
    client.device("mlx5_0").port(1)
    assert "GetManagedObjects" not in calls  # one device: no whole-host fetch
    devs = client.devices()
    assert [d.name for d in devs] == sorted(d.name for d in devs) and len(devs) == 8
    mlx4 = [d for d in devs if d.name == "mlx4_0"][0]
    assert [p.state_name for p in mlx4.ports] == ["ACTIVE", "DOWN"]
    assert mlx4.port(1).netdev.name == "ib0"
    assert [n.name for n in mlx4.netdevs] == ["ens1d1", "ib0"]
    assert [d for d in devs if d.name == "mlx5_0"][0].sriov.total_vfs == 8
    client.devices()
    assert calls.count("GetManagedObjects") == 1
    client.devices(refresh=True)
    assert calls.count("GetManagedObjects") == 2


def test_counters(client):
    c = client.counters("mlx4_0/1")
    assert c["port_rcv_data"] == 30412345678 * 4 and c["link_downed"] == 1
    assert client.device("mlx4_0").port(1).counters() == client.counters(("mlx4_0", 1))
    assert client.device("hfi1_0").counters()["Intr"] == 8212445
    every = client.all_counters()
    assert every[("hfi1_0", 0)]["Intr"] == 8212445
    assert every[("mlx5_0", 1)]["out_of_buffer"] == 1903
    assert every[("mlx4_0", 1)] == c


def test_wait_for_state_answered_by_a_flap(client, host):
    assert client.port("mlx4_0/1").state_name == "ACTIVE"
    assert client.wait_for_state("mlx4_0/1", "ACTIVE", timeout=1) == "ACTIVE"  # at once
    t = threading.Timer(0.5, set_port, (host, "1: DOWN", "3: Disabled"))
    t.start()
    try:
        start = time.monotonic()
        assert client.port("mlx4_0/1").wait_for_state("DOWN", timeout=10) == "DOWN"
        assert time.monotonic() - start >= 0.4  # it did wait for the flap
        t = threading.Timer(0.5, set_port, (host, "4: ACTIVE", "5: LinkUp"))
        t.start()
        assert client.wait_for_state(("mlx4_0", 1), "ACTIVE", timeout=10) == "ACTIVE"
    finally:
        t.join()
        set_port(host, "4: ACTIVE", "5: LinkUp")
        client.wait_for_state("mlx4_0/1", "ACTIVE", timeout=10)


def _until(watch, pred, what):
    seen = []
    for change in watch:
        assert isinstance(change, Change)
        seen.append(change)
        if pred(change):
            return seen
    raise AssertionError(f"no {what} in {seen}")


def test_watch_hotplug_flap_removal(client, host):
    with client.watch(timeout=20) as w:
        host.add(RXE1_RECORD)
        seen = _until(w, lambda c: c.kind == "added" and c.interface == "Port" and c.device == "rxe1", "rxe1/1")
        dev = [c for c in seen if c.kind == "added" and c.interface == "Device" and c.device == "rxe1"]
        assert dev and dev[0].properties["name"] == "rxe1"
        assert client.port("rxe1/1").state_name == "ACTIVE"

        set_port(host, "1: DOWN", "3: Disabled")
        seen = _until(w, lambda c: c.kind == "changed" and c.device == "mlx4_0" and c.port == 1
                      and c.properties.get("state_name") == "DOWN", "the flap down")
        set_port(host, "4: ACTIVE", "5: LinkUp")
        _until(w, lambda c: c.kind == "changed" and c.device == "mlx4_0" and c.port == 1
               and c.properties.get("state_name") == "ACTIVE", "the flap up")

        host.remove(RXE1)
        _until(w, lambda c: c.kind == "removed" and c.interface == "Device" and c.device == "rxe1", "the removal")
    with pytest.raises(rdmad.NoSuchDevice):
        client.device("rxe1")
    assert list(client.watch(timeout=0.2)) == [] or True  # an ended watch just stops


def test_watch_ends_at_its_timeout(client):
    start = time.monotonic()
    assert [c for c in client.watch(timeout=0.5) if c.device == "hfi1_0"] == []
    assert time.monotonic() - start >= 0.5


FORGER = r"""
import sys, time
from jeepney import DBusAddress, HeaderFields, new_signal
from jeepney.io.blocking import open_dbus_connection
address, victim, path = sys.argv[1:4]
conn = open_dbus_connection(address)
def send(dest, emitter, iface, member, sig, body):
    msg = new_signal(DBusAddress(emitter, interface=iface), member, sig, body)
    if dest:
        msg.header.fields[HeaderFields.destination] = dest  # a unicast signal
    conn.send(msg)
props = {"State": ("s", "1: DOWN"), "StateNum": ("u", 1), "StateName": ("s", "DOWN")}
for dest in (victim, None):
    # rdmad's link signal, and an object rdmad never published
    send(dest, path, "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
         ("org.rdmad1.Port", props, []))
    send(dest, "/org/rdmad1", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", "oa{sa{sv}}",
         ("/org/rdmad1/device/evil0", {"org.rdmad1.Device": {"Name": ("s", "evil0")}}))
    send(dest, "/org/rdmad1", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", "oas",
         ("/org/rdmad1/device/mlx5_5f0", ["org.rdmad1.Device"]))
    # the bus driver's: "org.rdmad1 now belongs to me"
    send(dest, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", "sss",
         ("org.rdmad1", "", conn.unique_name))
    send(dest, path, "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
         ("org.rdmad1.Port", props, []))
# The same as ping: a method call to the victim would need policy; a
# round trip to the bus is enough for ordering.
from jeepney.bus_messages import message_bus
conn.send_and_get_reply(message_bus.GetId())
print("sent", conn.unique_name, flush=True)
"""


def _as_other_user():
    if os.getuid() == 0 and shutil.which("setpriv"):
        return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    return []


@pytest.mark.parametrize("broad_rule", [False, True], ids=["own-rules", "broad-rule"])
def test_watch_ignores_forged_signals(client, host, broad_rule):
    """Signals from another connection that claim to be rdmad's, sent to the
    client alone (unicast) and to everyone (broadcast), change nothing;
    rdmad's own still arrive. With broad_rule, the connection also has a
    match rule of every signal (as an application sharing it may add), so
    the bus delivers the forged broadcasts too and the client's own check
    must drop them."""
    script = host.dir / "forger.py"
    script.write_text(FORGER)
    if broad_rule:
        client._conn.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", "s", ("type='signal'",),
                          destination="org.freedesktop.DBus")
    with client.watch(timeout=20) as w:
        owner = client._conn.owner
        assert owner is not None and owner.startswith(":")
        dropped = client._conn.dropped
        out = subprocess.run(_as_other_user() + [sys.executable, str(script), host.address, client.unique_name,
                                                 "/org/rdmad1/device/mlx4_5f0/port/1"],
                             capture_output=True, text=True, timeout=30, cwd="/")
        assert out.returncode == 0, out.stderr
        forger = out.stdout.split()[1]
        # The genuine flap, after the forgeries: the first change seen must be it.
        set_port(host, "2: INIT", "5: LinkUp")
        seen = _until(w, lambda c: c.device == "mlx4_0" and c.properties.get("state_name") == "INIT", "the real flap")
    try:
        assert all(c.kind == "changed" and c.device == "mlx4_0" for c in seen), seen
        assert not any(c.properties.get("state_name") == "DOWN" for c in seen)
        assert not any(c.device in ("evil0", "mlx5_0") for c in seen)
        assert not any(c.kind == "owner" for c in seen)
        # The unicast ones reached the client and were dropped there; the
        # bus filters broadcast ones by the rules' sender= unless a broad
        # rule lets them through, and then the client drops them.
        assert client._conn.dropped - dropped >= (10 if broad_rule else 5)
        assert client._conn.owner == owner != forger
        assert client.port("mlx4_0/1").state_name == "INIT"
    finally:
        set_port(host, "4: ACTIVE", "5: LinkUp")
        client.wait_for_state("mlx4_0/1", "ACTIVE", timeout=10)


def test_watch_follows_a_restart(client, host):
    with client.watch(timeout=30) as w:
        old = client._conn.owner
        host.stop_rdmad()
        _until(w, lambda c: c.kind == "owner" and c.owner is None, "rdmad gone")
        host.start_rdmad()
        seen = _until(w, lambda c: c.kind == "owner" and c.owner is not None, "rdmad back")
        assert seen[-1].owner != old and client._conn.owner == seen[-1].owner
        set_port(host, "2: INIT", "5: LinkUp")  # the new owner's signals are believed
        _until(w, lambda c: c.device == "mlx4_0" and c.properties.get("state_name") == "INIT", "a flap")
    set_port(host, "4: ACTIVE", "5: LinkUp")
    client.wait_for_state("mlx4_0/1", "ACTIVE", timeout=10)


def test_set_num_vfs_as_root(client, host):
    if os.getuid() != 0:
        pytest.skip("needs root: rdmad authorizes uid 0 without polkit")
    try:
        client.set_num_vfs("mlx5_0", 3)
        assert host.sysfs(MLX5_PF + "/sriov_numvfs").read_text().strip() == "3"
        assert client.device("mlx5_0").sriov.num_vfs == 3
        client.device("mlx5_0").sriov.set_num_vfs(2)
        assert client.device("mlx5_0").sriov.num_vfs == 2
    finally:
        client.set_num_vfs("mlx5_0", 1)
    assert host.sysfs(MLX5_PF + "/sriov_numvfs").read_text().strip() == "1"


UNPRIVILEGED = r"""
import sys
sys.path.insert(0, sys.argv[2])
import rdmad
from rdmad.client import Client
c = Client(sys.argv[1])
print(c.device("mlx5_0").name)
try:
    c.rescan()
    print("rescan allowed")
except rdmad.AccessDenied as e:
    print("rescan denied", e.dbus_name)
for interactive in (False, True):
    try:
        c.set_num_vfs("mlx5_0", 4, interactive=interactive)
        print("allowed")
    except rdmad.AccessDenied as e:
        print("denied", type(e).__name__, e.dbus_name)
"""


def test_set_num_vfs_refused_without_polkit(host):
    """An unprivileged user, no polkitd on the bus: refused, nothing written."""
    if os.getuid() == 0:
        prefix = _as_other_user()
        if not prefix:
            pytest.skip("needs setpriv to run a client as another user")
    else:
        prefix = []  # the tests' own user is the unprivileged one
    pkg = host.dir / "pkg"
    shutil.copytree(Path(rdmad.__file__).parent, pkg / "rdmad")
    script = host.dir / "unprivileged.py"
    script.write_text(UNPRIVILEGED)
    out = subprocess.run(prefix + [sys.executable, str(script), host.address, str(pkg)],
                         capture_output=True, text=True, timeout=60, cwd="/")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "mlx5_0"  # it can read
    # Rescan: sd-bus lets only root and rdmad's own user call it.
    assert lines[1].startswith("rescan denied" if prefix else "rescan allowed"), lines
    assert all(line.startswith("denied ") for line in lines[2:4]) and len(lines) == 4, lines
    assert host.sysfs(MLX5_PF + "/sriov_numvfs").read_text().strip() == "1"


def test_rdmad_absent(host, tmp_path):
    with pytest.raises(rdmad.RdmadUnavailable) as e:
        Client(f"unix:path={tmp_path}/no-bus")
    assert "systemctl start rdmad" in str(e.value)
    host.stop_rdmad()
    try:
        with pytest.raises(rdmad.RdmadUnavailable) as e:
            Client(host.address)
        assert "not running" in str(e.value) and e.value.dbus_name.startswith("org.freedesktop.DBus.Error.")
        assert isinstance(e.value, ConnectionError)
    finally:
        host.start_rdmad()
    assert Client(host.address).device("mlx5_0").name == "mlx5_0"


def _count_calls(client):
    calls = []
    real = client._conn.call_many

    def counting(msgs, **kw):
        msgs = list(msgs)
        calls.extend(m.header.fields.get(3) for m in msgs)  # member
        return real(msgs, **kw)

    client._conn.call_many = counting
    real_ping = client._conn.ping

    def ping(**kw):
        calls.append("Ping")
        return real_ping(**kw)

    client._conn.ping = ping
    return calls


def test_follow_keeps_the_model_by_signals(host):
    """follow=True: every lookup is one Ping; what changes comes by signals."""
    c = Client(host.address, follow=True)
    try:
        calls = _count_calls(c)
        assert c.device("mlx4_0").port(1).state_name == "ACTIVE"
        assert "GetManagedObjects" not in calls  # one device: its subtree only
        first = len(calls)
        assert c.device("mlx4_0").netdev("ib0").mtu == 2044
        assert calls[first:] == ["Ping"]  # known: one round trip
        set_port(host, "1: DOWN", "3: Disabled")
        Client(host.address).wait_for_state("mlx4_0/1", "DOWN", timeout=10)
        del calls[:]
        p = c.port("mlx4_0/1")
        assert (p.state_name, p.phys_state_name, p.attributes["state"]) == ("DOWN", "Disabled", "1: DOWN")
        assert calls == ["Ping"]
        set_port(host, "4: ACTIVE", "5: LinkUp")
        Client(host.address).wait_for_state("mlx4_0/1", "ACTIVE", timeout=10)
        assert p.state_name == "DOWN"  # an object already made is a snapshot
        assert c.port("mlx4_0/1").state_name == "ACTIVE"

        assert len(c.devices()) == 8
        host.add(RXE1_RECORD)
        w = Client(host.address)
        # The uevent is read on rdmad's reader thread: the device appears a moment later.
        for _ in range(200):
            if "rxe1" in w.device_names():
                break
            time.sleep(0.05)
        w.wait_for_state("rxe1/1", "ACTIVE", timeout=10)
        del calls[:]
        names = [d.name for d in c.devices()]
        assert "rxe1" in names and [d for d in c.devices() if d.name == "rxe1"][0].port(1).rate_speed == 10.0
        assert "GetManagedObjects" not in calls and set(calls) == {"Ping"}  # no second fetch
        host.remove(RXE1)
        for _ in range(100):
            if "rxe1" not in w.device_names():
                break
            time.sleep(0.05)
        assert "rxe1" not in [d.name for d in c.devices()]
        with pytest.raises(rdmad.NoSuchDevice):
            c.device("rxe1")

        # A restart empties the model; the new rdmad's answers fill it again.
        host.stop_rdmad()
        host.start_rdmad()
        del calls[:]
        assert c.device("mlx4_0").port(1).state_name == "ACTIVE"
        assert "GetAll" in calls
    finally:
        c.close()


def test_follow_ignores_forged_signals(host):
    c = Client(host.address, follow=True)
    try:
        c._conn.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", "s", ("type='signal'",),
                     destination="org.freedesktop.DBus")
        assert c.port("mlx4_0/1").state_name == "ACTIVE"
        script = host.dir / "forger.py"
        script.write_text(FORGER)
        out = subprocess.run(_as_other_user() + [sys.executable, str(script), host.address, c.unique_name,
                                                 "/org/rdmad1/device/mlx4_5f0/port/1"],
                             capture_output=True, text=True, timeout=30, cwd="/")
        assert out.returncode == 0, out.stderr
        assert c.port("mlx4_0/1").state_name == "ACTIVE"   # the forged DOWN did nothing
        assert c.device("mlx5_0").name == "mlx5_0"          # the forged removal neither
        assert "evil0" not in [d.name for d in c.devices()]  # nor the forged device
        assert c._conn.dropped >= 10
    finally:
        c.close()


def test_follow_set_num_vfs(host):
    if os.getuid() != 0:
        pytest.skip("needs root: rdmad authorizes uid 0 without polkit")
    c = Client(host.address, follow=True)
    try:
        for n in (4, 2, 3):
            c.set_num_vfs("mlx5_0", n)
            assert c.device("mlx5_0").sriov.num_vfs == n  # at once, not after the signal
    finally:
        c.set_num_vfs("mlx5_0", 1)
        c.close()


def test_rescan(client, host):
    """node_desc changes with no uevent and is not polled: only a Rescan sees it."""
    dev = MLX5_PF + "/infiniband/mlx5_0"
    try:
        host.write(dev, "node_desc", "renamed by the test\n")
        time.sleep(0.3)  # three poll periods
        assert client.device("mlx5_0").node_description == "node03 mlx5_0"
        client.rescan()  # root, or rdmad's own user (the tests' user when not root)
        assert client.device("mlx5_0").node_description == "renamed by the test"
    finally:
        host.write(dev, "node_desc", "node03 mlx5_0\n")
        client.rescan()
    assert client.device("mlx5_0").node_description == "node03 mlx5_0"


def test_interactive_flag(client):
    from jeepney import MessageFlag
    m = client._conn.message("/org/rdmad1", "org.rdmad1.Manager", "Rescan", interactive=True)
    assert m.header.flags & MessageFlag.allow_interactive_authorization
    m = client._conn.message("/org/rdmad1", "org.rdmad1.Manager", "Rescan")
    assert not m.header.flags & MessageFlag.allow_interactive_authorization


def test_error_names_map_to_exceptions():
    from rdmad import errors
    table = {
        "org.rdmad1.Error.InvalidArgument": (rdmad.InvalidArgument, ValueError),
        "org.rdmad1.Error.NoSuchDevice": (rdmad.NoSuchDevice, LookupError),
        "org.rdmad1.Error.Busy": (rdmad.Busy, rdmad.RdmadError),
        "org.rdmad1.Error.Failed": (rdmad.Failed, OSError),
        "org.rdmad1.Error.NotSupported": (rdmad.NotSupported, rdmad.RdmadError),
        "org.rdmad1.Error.Timeout": (rdmad.Timeout, TimeoutError),
        "org.rdmad1.Error.Unresponsive": (rdmad.Unresponsive, TimeoutError),
        "org.rdmad1.Error.NoRoute": (rdmad.NoRoute, LookupError),
        "org.rdmad1.Error.NotRdma": (rdmad.NotRdma, LookupError),
        "org.rdmad1.Error.NoGid": (rdmad.NoGid, LookupError),
        "org.freedesktop.DBus.Error.AccessDenied": (rdmad.AccessDenied, PermissionError),
        "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired":
            (rdmad.InteractiveAuthorizationRequired, PermissionError),
        "org.freedesktop.DBus.Error.ServiceUnknown": (rdmad.RdmadUnavailable, ConnectionError),
        "org.freedesktop.DBus.Error.Spawn.ChildExited": (rdmad.RdmadUnavailable, ConnectionError),
        "org.example.Other": (rdmad.RdmadError, Exception),
    }
    for name, (cls, base) in table.items():
        e = errors.from_dbus(name, "text")
        assert type(e) is cls and isinstance(e, base) and e.dbus_name == name, name
