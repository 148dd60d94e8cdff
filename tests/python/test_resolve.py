"""Client.resolve_address() against the real rdmad, in a network namespace of
the tests' own where veths stand in for the testbed's netdevs (the kernel
gives the routes and addresses, the testbed the GID tables): RoCE v2 before
v1, IPoIB, a local address, each error, and an answer that follows an
address added before the kernel fills the GID table. Needs root (a network
namespace and interfaces)."""

import ctypes
import os
import subprocess
import time

import pytest

import rdmad
from rdmad.client import Client, ResolvedAddress
from rdmad_host import Host

CLONE_NEWNET = 0x40000000
MLX5_SYS = "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0"
MLX5_PORT = "/org/rdmad1/device/mlx5_5f0/port/1"
MLX4_PORT = "/org/rdmad1/device/mlx4_5f0/port/1"
NETWORK = [
    "ip link set lo up",
    "ip link add name ens1f0np0 type veth peer name ens1f0np0p",
    "ip link set ens1f0np0 up", "ip link set ens1f0np0p up",
    "ip addr add 192.168.1.10/24 dev ens1f0np0",
    "ip addr add 192.168.2.10/24 dev ens1f0np0",
    "ip addr add 2001:db8::10/64 dev ens1f0np0 nodad",
    "ip link add name ib0 type veth peer name ib0p",
    "ip link set ib0 up", "ip link set ib0p up",
    "ip addr add 10.20.0.1/24 dev ib0",
    "ip link add name plain0 type veth peer name plain0p",
    "ip link set plain0 up", "ip link set plain0p up",
    "ip addr add 10.30.0.1/24 dev plain0",
    "ip route add unreachable 198.51.100.0/24",
]


@pytest.fixture(scope="module")
def net_host():
    if os.getuid() != 0:
        pytest.skip("needs root: a network namespace of its own, with veths")
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    if libc.unshare(CLONE_NEWNET) != 0:
        os.close(home)
        pytest.skip(f"no network namespace: {os.strerror(ctypes.get_errno())}")
    host = None
    try:
        for command in NETWORK:
            subprocess.run(command.split(), check=True)
        # The poll off: only rtnetlink's address messages make rdmad read the GIDs again.
        host = Host(["mlx5-roce-sriov", "mlx4-vpi"], rdmad_args=("--poll-interval=0",))
        yield host
    finally:
        if host:
            host.stop()
        # Back home; the namespace (and its veths) goes with its last process.
        assert libc.setns(home, CLONE_NEWNET) == 0, os.strerror(ctypes.get_errno())
        os.close(home)


@pytest.fixture
def net_client(net_host):
    c = Client(net_host.address)
    yield c
    c.close()


def test_resolve_roce_v2_before_v1(net_client):
    r = net_client.resolve_address("192.168.1.20")
    assert r == ResolvedAddress("mlx5_0", 1, 3, "0000:0000:0000:0000:0000:ffff:c0a8:010a", "RoCE v2",
                                "ens1f0np0", "192.168.1.10", MLX5_PORT)
    assert (r.device, r.port, r.gid_index) == ("mlx5_0", 1, 3)
    # A local address resolves to the netdev that holds it.
    assert net_client.resolve_address("192.168.1.10") == r
    # The port's Gids holds what the answer says.
    port = net_client.port((r.device, r.port))
    assert (r.gid_index, r.gid, r.gid_type, r.netdev) in [tuple(g) for g in port.gids]


def test_resolve_ipoib(net_client):
    r = net_client.resolve_address("10.20.0.2")
    assert r == ResolvedAddress("mlx4_0", 1, 0, "fe80:0000:0000:0000:0002:c903:00a1:b2c1", "", "ib0",
                                "10.20.0.1", MLX4_PORT)


def test_resolve_errors(net_client):
    with pytest.raises(rdmad.NoRoute, match="203.0.113.1"):
        net_client.resolve_address("203.0.113.1")
    with pytest.raises(rdmad.NoRoute, match="198.51.100.1"):
        net_client.resolve_address("198.51.100.1")
    with pytest.raises(rdmad.NotRdma, match="plain0") as e:
        net_client.resolve_address("10.30.0.2")
    assert isinstance(e.value, LookupError) and isinstance(e.value, rdmad.RdmadError)
    with pytest.raises(rdmad.NoGid, match="mlx5_0/1") as e:
        net_client.resolve_address("192.168.2.20")
    assert "192.168.2.10" in str(e.value) and e.value.dbus_name == "org.rdmad1.Error.NoGid"
    for bad in ("not-an-address", "192.168.1.300", "", "fe80::1%no-such-if0", "2001:db8::1%ens1f0np0"):
        with pytest.raises(ValueError):
            net_client.resolve_address(bad)
    with pytest.raises(ValueError):
        net_client.resolve_address(None)


def test_resolve_follows_an_address_change(net_client, net_host):
    # The address first; the kernel fills the GID table later (here 0.9 s).
    with net_client.watch(timeout=20) as w:
        subprocess.run("ip -6 addr add 2001:db8:5::10/64 dev ens1f0np0 nodad".split(), check=True)
        with pytest.raises(rdmad.NoGid):
            net_client.resolve_address("2001:db8:5::20")
        time.sleep(0.9)
        net_host.write(MLX5_SYS, "ports/1/gid_attrs/types/6", "RoCE v2\n")
        net_host.write(MLX5_SYS, "ports/1/gid_attrs/ndevs/6", "ens1f0np0\n")
        net_host.write(MLX5_SYS, "ports/1/gids/6", "2001:0db8:0005:0000:0000:0000:0000:0010\n")
        for change in w:
            if change.kind == "changed" and change.path == MLX5_PORT and "gids" in change.properties:
                break
        else:
            raise AssertionError("no Gids change of mlx5_0/1 within 20 s")
    assert net_client.resolve_address("2001:db8:5::20") == ResolvedAddress(
        "mlx5_0", 1, 6, "2001:0db8:0005:0000:0000:0000:0000:0010", "RoCE v2", "ens1f0np0", "2001:db8:5::10",
        MLX5_PORT)
