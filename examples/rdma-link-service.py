#!/usr/bin/python3
"""An RDMA-dependent service's start-up and link log, on rdmad.client.

    rdma-link-service.py [PORT...] [--timeout=SECONDS]

Waits at start until an RDMA link is up: each PORT given ("mlx5_0/1") is
ACTIVE, or with none, any port is. Then it says READY=1 to systemd (when
run as Type=notify) and logs every link flap, hot-plug and removal rdmad
announces, and rdmad's restarts, until SIGTERM. Where a real service would
start its work (an NVMe-oF connect, an iSER login) it only logs.

Exit status: 0 on SIGTERM, 1 when rdmad cannot be reached, 5 when no link
came up within --timeout.
"""

import argparse
import logging
import os
import signal
import socket
import sys

from rdmad import RdmadUnavailable, Timeout
from rdmad.client import Client

log = logging.getLogger("rdma-link-service")


def notify(state: str) -> None:
    """sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET."""
    path = os.environ.get("NOTIFY_SOCKET")
    if not path:
        return
    if path.startswith("@"):
        path = "\0" + path[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.connect(path)
        s.sendall(state.encode())


def wait_for_link(client, watch, ports, timeout):
    """The ports (names) that are up once the start condition holds."""
    if ports:
        for p in ports:
            log.info("waiting for %s to be ACTIVE", p)
            client.wait_for_state(p, "ACTIVE", timeout)
        return ports
    # Any port: what rdmad has now, then its signals (the watch was made
    # first, so a link that comes up in between is not missed).
    up = [p.name for d in client.devices() for p in d.ports if p.state_name == "ACTIVE"]
    if up:
        return up
    log.info("waiting for any RDMA port to be ACTIVE")
    for change in watch:
        if change.interface == "Port" and change.properties.get("state_name") == "ACTIVE":
            return [f"{change.device}/{change.port}"]
    raise Timeout(f"no RDMA port ACTIVE after {timeout:g} s")


def describe(change, states):
    where = f"{change.device}/{change.port}" if change.port is not None else change.device
    if change.kind == "owner":
        return "rdmad stopped" if change.owner is None else f"rdmad is on the bus ({change.owner})"
    if change.interface == "Port" and change.kind == "changed" and "state_name" in change.properties:
        new = change.properties["state_name"]
        old = states.get(where, "?")
        states[where] = new
        phys = change.properties.get("phys_state_name")
        return f"link {where}: {old} -> {new}" + (f" ({phys})" if phys else "")
    if change.interface == "Port" and change.kind == "added":
        states[where] = change.properties.get("state_name", "?")
        return f"port {where} appeared: {states[where]}"
    if change.interface == "Device" and change.kind in ("added", "removed"):
        return f"device {change.device} {change.kind}"
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ports", nargs="*", metavar="PORT", help="mlx5_0/1 (default: any port)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for a link (120)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))

    try:
        client = Client()
    except RdmadUnavailable as e:
        log.error("%s", e)
        return 1
    watch = client.watch(timeout=args.timeout)
    try:
        up = wait_for_link(client, watch, args.ports, args.timeout)
    except Timeout as e:
        log.error("%s", e)
        return 5
    watch.close()
    log.info("link up: %s; starting", " ".join(up))
    notify("READY=1")

    states = {p.name: p.state_name for d in client.devices(refresh=True) for p in d.ports}
    with client.watch() as changes:
        for change in changes:
            line = describe(change, states)
            if line:
                log.info("%s", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
