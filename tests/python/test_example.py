"""examples/rdma-link-service.py: waits for a link at start, then logs every flap."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import rdmad
from test_client import RXE1, RXE1_RECORD, set_port

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rdma-link-service.py"


class Lines:
    """The example's stderr, read as it comes."""

    def __init__(self, proc):
        self.proc, self.seen = proc, []
        os.set_blocking(proc.stderr.fileno(), False)
        self.buf = b""

    def wait_for(self, text, timeout=15):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(text in line for line in self.seen):
                return
            chunk = self.proc.stderr.read()
            if chunk:
                self.buf += chunk
                *lines, self.buf = self.buf.split(b"\n")
                self.seen += [line.decode() for line in lines]
            elif self.proc.poll() is not None:
                break
            else:
                time.sleep(0.05)
        raise AssertionError(f"no {text!r} in {self.seen}")


def start(host, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=host.address,
               PYTHONPATH=str(Path(rdmad.__file__).parents[1]))
    return subprocess.Popen([sys.executable, str(EXAMPLE), *args], env=env, stderr=subprocess.PIPE)


def test_waits_for_the_link_then_logs_flaps(host, client):
    set_port(host, "1: DOWN", "3: Disabled")
    client.wait_for_state("mlx4_0/1", "DOWN", timeout=10)
    p = start(host, "mlx4_0/1", "--timeout=30")
    out = Lines(p)
    try:
        out.wait_for("waiting for mlx4_0/1 to be ACTIVE")
        time.sleep(0.3)
        assert not any("link up" in line for line in out.seen)  # still waiting
        set_port(host, "4: ACTIVE", "5: LinkUp")
        out.wait_for("link up: mlx4_0/1; starting")
        set_port(host, "1: DOWN", "3: Disabled")
        out.wait_for("link mlx4_0/1: ACTIVE -> DOWN (Disabled)")
        set_port(host, "4: ACTIVE", "5: LinkUp")
        out.wait_for("link mlx4_0/1: DOWN -> ACTIVE (LinkUp)")
        host.add(RXE1_RECORD)
        out.wait_for("device rxe1 added")
        out.wait_for("port rxe1/1 appeared: ACTIVE")
        host.remove(RXE1)
        out.wait_for("device rxe1 removed")
    finally:
        p.send_signal(signal.SIGTERM)
        assert p.wait(10) == 0
        set_port(host, "4: ACTIVE", "5: LinkUp")


def test_any_port_and_timeout(host, tmp_path):
    p = start(host)  # any port: mlx5_0/1 and others are ACTIVE already
    out = Lines(p)
    out.wait_for("link up: ")
    p.send_signal(signal.SIGTERM)
    assert p.wait(10) == 0
    p = start(host, "mlx4_0/2", "--timeout=0.5")  # DOWN, stays DOWN
    out = Lines(p)
    assert p.wait(15) == 5
    out.wait_for("not ACTIVE after 0.5 s")


def test_rdmad_unreachable(tmp_path):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={tmp_path}/none",
               PYTHONPATH=str(Path(rdmad.__file__).parents[1]))
    r = subprocess.run([sys.executable, str(EXAMPLE)], env=env, capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "systemctl start rdmad" in r.stderr
