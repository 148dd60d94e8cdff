"""A simulated RDMA host for the Python tests: a private system bus
(RDMAD_TEST_BUS=dbus-daemon, the default, or dbus-broker) shaped like
Debian's, a umockdev testbed of tests/data fixtures held by tools/testbed.py
(which hot-plugs, removes and rewrites files on request), and the real
rdmad under umockdev-wrapper on that bus, as tools/demo runs them.

Every process runs in a session of its own and is stopped by stop(),
SIGKILL after 5 s; the directory is removed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
FIXTURES = TOP / "tests" / "data"
RDMAD = os.environ.get("RDMAD_BINARY") or str(TOP / "build" / "daemon" / "rdmad")

# The shape of Debian's /usr/share/dbus-1/system.conf (deny by default),
# then system.d/ as installed: the project's org.rdmad1.conf, and the
# tests' own policy letting the user who runs them own the name (a host
# runs rdmad as the user rdmad).
SYSTEM_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={sock}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <includedir>system.d</includedir>
</busconfig>
"""
OWN_POLICY = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><policy user="{user}"><allow own="org.rdmad1"/></policy></busconfig>
"""

# dbus-broker-launch logs to the journal; where there is none, a stand-in
# socket in a private mount namespace (as tools/demo does), root only.
BROKER_SH = r"""
set -e
state=$1 sock=$2
if [ ! -S /run/systemd/journal/socket ]; then
    if [ -d /run/systemd/journal ]; then mount -t tmpfs tmpfs /run/systemd/journal
    elif [ -d /run/systemd ]; then mount -t tmpfs tmpfs /run/systemd; mkdir /run/systemd/journal
    else mount -t tmpfs tmpfs /run; mkdir -p /run/systemd/journal; fi
    python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/run/systemd/journal/socket")
os.chmod("/run/systemd/journal/socket", 0o666)
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536) + b"\n")
' "$state/journal.log" &
    for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
fi
exec systemd-socket-activate -l "$sock" -E DBUS_SYSTEM_BUS_ADDRESS="unix:path=$sock" \
    dbus-broker-launch --scope system --config-file "$state/bus/system.conf"
"""


def bus_kind() -> str:
    kind = os.environ.get("RDMAD_TEST_BUS", "dbus-daemon")
    if kind not in ("dbus-daemon", "dbus-broker"):
        raise RuntimeError(f"RDMAD_TEST_BUS={kind}: neither dbus-daemon nor dbus-broker")
    return kind


class Host:
    def __init__(self, fixtures, rdmad_args=("--poll-interval=100",)):
        self.kind = bus_kind()
        # Reachable by every user (the unprivileged client's checks), even
        # when the checkout sits in a 0700 directory.
        self.dir = Path(tempfile.mkdtemp(prefix="rdmad-pytest-"))
        os.chmod(self.dir, 0o755)
        self.sock = self.dir / "system_bus_socket"
        self.address = f"unix:path={self.sock}"
        self.procs = []
        self.rdmad = None
        self.testbed_root = None
        self.rdmad_args = list(rdmad_args)
        try:
            self._start_bus()
            self._start_testbed([FIXTURES / f"{f}.umockdev" for f in fixtures])
            self.start_rdmad()
        except BaseException:
            self.stop()
            raise

    # ---- processes ----

    def _spawn(self, argv, env=None, **kw):
        p = subprocess.Popen(argv, env=env, start_new_session=True, **kw)
        self.procs.append(p)
        return p

    def _env(self, **extra):
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        env["DBUS_SYSTEM_BUS_ADDRESS"] = self.address
        env["SYSTEMD_DEVICE_VERIFY_SYSFS"] = "0"
        env.update(extra)
        return env

    def _start_bus(self):
        bus = self.dir / "bus"
        (bus / "system.d").mkdir(parents=True)
        shutil.copy(TOP / "systemd" / "org.rdmad1.conf", bus / "system.d" / "org.rdmad1.conf")
        import pwd
        user = pwd.getpwuid(os.getuid()).pw_name
        (bus / "system.d" / "pytest-rdmad-owner.conf").write_text(OWN_POLICY.format(user=user))
        (bus / "system.conf").write_text(SYSTEM_CONF.format(sock=self.sock))
        log = open(self.dir / "bus.log", "wb")
        if self.kind == "dbus-daemon":
            self._spawn(["dbus-daemon", "--nofork", "--nopidfile", f"--config-file={bus / 'system.conf'}"],
                        env=self._env(), stdout=log, stderr=log)
        else:
            if os.getuid() != 0 and not Path("/run/systemd/journal/socket").exists():
                raise RuntimeError("dbus-broker without journald needs root (a private mount namespace)")
            self._spawn(["unshare", "--mount", "--propagation", "private", "sh", "-c", BROKER_SH, "bus",
                         str(self.dir), str(self.sock)], env=self._env(), stdout=log, stderr=log)
        self._wait(lambda: self.sock.exists() and self._bus_answers(), "the bus did not start")
        # A system bus is every user's (systemd-socket-activate binds it
        # with the umask's mode).
        os.chmod(self.sock, 0o666)

    def _bus_answers(self):
        r = subprocess.run(["busctl", "--system", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus", "GetId"], env=self._env(), capture_output=True)
        return r.returncode == 0

    def _start_testbed(self, records):
        env = self._env(LD_PRELOAD="libumockdev-preload.so.0")
        self.testbed = self._spawn([str(TOP / "tools" / "testbed.py"), *map(str, records)], env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=open(self.dir / "testbed.log", "wb"), text=True, bufsize=1)
        self.testbed_root = self.testbed.stdout.readline().strip()
        if not self.testbed_root:
            raise RuntimeError("the testbed did not start: " + (self.dir / "testbed.log").read_text())

    def start_rdmad(self):
        log = open(self.dir / "rdmad.log", "ab")
        env = self._env(UMOCKDEV_DIR=self.testbed_root)
        self.rdmad = self._spawn(["umockdev-wrapper", RDMAD, *self.rdmad_args], env=env, stdout=log, stderr=log)
        self._wait(self._has_owner, "rdmad did not take org.rdmad1: " + str(self.dir / "rdmad.log"))

    def stop_rdmad(self):
        """SIGTERM; rdmad must exit with 0 (a sanitizer's report makes it fail)."""
        if self.rdmad is not None:
            p, self.rdmad = self.rdmad, None
            _terminate(p)
            self.procs.remove(p)
            if p.returncode != 0:
                log = (self.dir / "rdmad.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"rdmad exited with {p.returncode} on SIGTERM:\n{log}")
            self._wait(lambda: not self._has_owner(), "org.rdmad1 still owned")

    def _has_owner(self):
        r = subprocess.run(["busctl", "--system", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus", "NameHasOwner", "s", "org.rdmad1"],
                           env=self._env(), capture_output=True, text=True)
        return r.returncode == 0 and "true" in r.stdout

    def _wait(self, pred, what, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return
            time.sleep(0.05)
        raise RuntimeError(what)

    def stop(self):
        try:
            self.stop_rdmad()
        finally:
            self._stop_rest()

    def _stop_rest(self):
        for p in reversed(self.procs):
            _terminate(p)
        self.procs = []
        shutil.rmtree(self.dir, ignore_errors=True)

    # ---- the testbed ----

    def _tb(self, *words):
        self.testbed.stdin.write(" ".join(words) + "\n")
        answer = self.testbed.stdout.readline().strip()
        if answer != "ok":
            raise RuntimeError(f"testbed {' '.join(words)}: {answer}")

    def write(self, devpath: str, name: str, value: str):
        """Rewrites a sysfs file in place (devpath "/sys/devices/...")."""
        self._tb("write", devpath, name, value.replace("\n", "\\n"))

    def uevent(self, devpath: str, action: str):
        self._tb("uevent", devpath, action)

    def add(self, record: str):
        """Hot-plugs the devices of a umockdev record (sends "add")."""
        f = self.dir / f"record-{time.monotonic_ns()}.umockdev"
        f.write_text(record)
        self._tb("add", str(f))

    def remove(self, devpath: str):
        """Sends "remove", then deletes the device."""
        self._tb("remove", devpath)

    def sysfs(self, path: str) -> Path:
        """Where the testbed keeps /sys/... ."""
        return Path(self.testbed_root + path)


def _terminate(p, timeout=5.0):
    if p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
