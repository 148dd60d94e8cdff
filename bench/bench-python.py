#!/usr/bin/python3
"""rdmad's Python clients against an sts.rdma-style sysfs walk, side by side.

    bench/bench-python.py BUILD_DIR [N] [--rounds=R]     (default N 512)

Needs root: it re-executes itself in a private mount namespace, writes the
benchmark's simulated host of N dual-port devices (bench-write-host, the
host of make bench) and bind-mounts its sys/ on /sys, so that the walk,
rdmad and the clients see it as a real sysfs, none under umockdev's
preload. rdmad runs on a private dbus-daemon. Measured, interleaved round
by round, median and p99:

  * exists_rdma();
  * RdmaDevice("mlx5_7") + get_ports() + get_netdevs(), and the same
    cold (a new connection each time);
  * every device's ports' state, the devices listed from
    /sys/class/infiniband as an sts user's loop does.

rdmad.sts and the rdmad.client column share one followed Client (a model
kept by signals, one Ping per question); the cold row opens a new one.
The walk reads what sts.rdma reads, the way it reads it (written from its
documented behaviour and the design contract, both kept outside this tree): every
regular file of the directory with Path.read_text().strip(), resolve() of
the device link, iterdir() of ports/ and net/, is_file() of sriov_numvfs.
Not a test: it prints figures and never fails on a time.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOP / "python"))
sys.path.insert(0, str(TOP / "tests" / "python"))


# ---- the sts.rdma-style walk (what sts' own code does, per question) ----

def _read_dir(obj, path):
    for f in path.iterdir():
        if f.is_file():
            try:
                setattr(obj, f.stem, f.read_text().strip())
            except OSError:
                continue


class WalkPort:
    def __init__(self, path):
        self.path, self.rate, self.state, self.phys_state = path, None, None, None
        _read_dir(self, path)
        if self.rate:
            w = self.rate.split()
            self.rate_speed, self.rate_unit, self.rate_info = w[0], w[1], f'{w[2].strip("(")} {w[3].strip(")")}'
        if self.state:
            self.state_num, self.state_str = self.state.split(":")[0], self.state.split(": ")[1]
        if self.phys_state:
            self.phys_state_num, self.phys_state_str = self.phys_state.split(":")[0], self.phys_state.split(": ")[1]


class WalkNetDev:
    def __init__(self, path):
        self.path, self.dev_port = path, None
        _read_dir(self, path)


class WalkDevice:
    def __init__(self, ibdev):
        self.path = Path(f"/sys/class/infiniband/{ibdev}")
        _read_dir(self, self.path)
        self.ports_path = self.path / "ports"
        self.device_path = (self.path / "device").resolve()
        self.net_path = self.device_path / "net"
        self.ports = [p for p in self.ports_path.iterdir() if p.is_dir()]
        self.port_numbers = [p.name for p in self.ports]
        self.is_sriov_capable = (self.device_path / "sriov_numvfs").is_file()

    def get_ports(self):
        return [WalkPort(p) for p in self.ports] if self.ports else None

    def get_netdevs(self):
        return [WalkNetDev(e) for e in self.net_path.iterdir() if e.is_dir()]


def walk_exists_rdma():
    return Path("/sys/class/infiniband/").is_dir()


# ---- the runs ----

def enter_namespace():
    if os.environ.get("BENCH_PYTHON_NS") == "1":
        return
    if os.getuid() != 0:
        sys.exit("bench-python: needs root (a private mount namespace with the host on /sys)")
    env = dict(os.environ, BENCH_PYTHON_NS="1")
    env.pop("LD_PRELOAD", None)
    os.execvpe("unshare", ["unshare", "--mount", "--propagation", "private", sys.executable, *sys.argv], env)


def measure(fn, rounds):
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1e6)
    return out


def fmt(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.0f} µs"


def row(samples):
    s = sorted(samples)
    return f"{fmt(statistics.median(s))} ({fmt(s[min(len(s) - 1, int(len(s) * 0.99))])})"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--rounds=")), "21"))
    build = Path(args[0] if args else TOP / "build").resolve()
    n = int(args[1]) if len(args) > 1 else 512
    enter_namespace()

    from rdmad_host import OWN_POLICY, SYSTEM_CONF
    import rdmad
    from rdmad import sts
    from rdmad.client import Client

    tmp = Path(tempfile.mkdtemp(prefix="rdmad-bench-python-"))
    procs = []
    try:
        subprocess.run([str(build / "bench" / "bench-write-host"), str(tmp), str(n)], check=True)
        subprocess.run(["mount", "--bind", str(tmp / "sys"), "/sys"], check=True)
        sock = tmp / "bus_socket"
        (tmp / "bus" / "system.d").mkdir(parents=True)
        (tmp / "bus" / "system.d" / "org.rdmad1.conf").write_text((TOP / "systemd" / "org.rdmad1.conf").read_text())
        (tmp / "bus" / "system.d" / "owner.conf").write_text(OWN_POLICY.format(user="root"))
        (tmp / "bus" / "system.conf").write_text(SYSTEM_CONF.format(sock=sock))
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={sock}", SYSTEMD_DEVICE_VERIFY_SYSFS="0")
        procs.append(subprocess.Popen(["dbus-daemon", "--nofork", "--nopidfile",
                                       f"--config-file={tmp / 'bus' / 'system.conf'}"], env=env))
        for _ in range(200):
            if sock.exists():
                break
            time.sleep(0.05)
        procs.append(subprocess.Popen([str(build / "daemon" / "rdmad")], env=env,
                                      stderr=open(tmp / "rdmad.log", "wb")))
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = env["DBUS_SYSTEM_BUS_ADDRESS"]
        deadline = time.monotonic() + 120
        while True:
            try:
                client = Client()
                if len(client.device_names()) == n:
                    break
                client.close()
            except rdmad.RdmadError:
                pass
            if time.monotonic() > deadline:
                sys.exit("bench-python: rdmad did not publish the host: " + (tmp / "rdmad.log").read_text()[-2000:])
            time.sleep(0.2)

        sts.use_client(client)
        dev = f"mlx5_{min(7, n - 1)}"
        # The same answers, or the figures mean nothing.
        w, d = WalkDevice(dev), sts.RdmaDevice(dev)
        assert [p.state for p in w.get_ports()] == [p.state for p in d.get_ports()]
        assert sorted(vars(x)["dev_port"] for x in w.get_netdevs()) == [x.dev_port for x in d.get_netdevs()]
        assert d.device_path == w.device_path and d.port_numbers == sorted(w.port_numbers)

        def cold_sts(name):
            c = Client(follow=True)
            sts.use_client(c)
            x = sts.RdmaDevice(name)
            r = (x.get_ports(), x.get_netdevs())
            sts.use_client(client)
            c.close()
            return r

        def cold_client(name):
            with Client() as c:
                x = c.device(name)
                return (x.ports, x.netdevs)

        def listing():
            return os.listdir("/sys/class/infiniband")

        cases = [
            ("`exists_rdma()`", walk_exists_rdma, sts.exists_rdma, lambda: bool(client.device_names())),
            (f"`RdmaDevice(\"{dev}\")` + `get_ports()` + `get_netdevs()`",
             lambda: (lambda x: (x.get_ports(), x.get_netdevs()))(WalkDevice(dev)),
             lambda: (lambda x: (x.get_ports(), x.get_netdevs()))(sts.RdmaDevice(dev)),
             lambda: (lambda x: (x.ports, x.netdevs))(client.device(dev))),
            (f"the same, cold: a new connection each time (`rdmad.sts`: its model empty; `rdmad.client`: `Client()`, no model)",
             lambda: (lambda x: (x.get_ports(), x.get_netdevs()))(WalkDevice(dev)),
             lambda: cold_sts(dev),
             lambda: cold_client(dev)),
            (f"every device's ports' `state` ({n} devices, {2 * n} ports)",
             lambda: [p.state for name in listing() for p in WalkDevice(name).get_ports()],
             lambda: [p.state for name in listing() for p in sts.RdmaDevice(name).get_ports()],
             lambda: [p.state for d in client.devices(refresh=True) for p in d.ports]),
        ]
        print(f"\n### N = {n} devices ({2 * n} ports), {rounds} rounds, load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
        print("| question | sts.rdma-style walk | `rdmad.sts` | `rdmad.client` | walk / rdmad.sts | walk / rdmad.client |")
        print("| --- | --- | --- | --- | --- | --- |")
        for title, *fns in cases:
            r = max(3, rounds // 3) if "every device" in title else rounds
            samples = [[], [], []]
            for _ in range(r):  # interleaved: the load of the moment weighs on all three
                for i, fn in enumerate(fns):
                    samples[i] += measure(fn, 1)
            med = [statistics.median(s) for s in samples]
            print(f"| {title} | {row(samples[0])} | {row(samples[1])} | {row(samples[2])} | "
                  f"{med[0] / med[1]:.1f}× | {med[0] / med[2]:.1f}× |")
        client.close()
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(10)
        subprocess.run(["umount", "-l", "/sys"], check=False)
        subprocess.run(["rm", "-rf", str(tmp)], check=False)


if __name__ == "__main__":
    main()
