#!/usr/bin/python3
"""What a process sees from inside rdmad.service's sandbox.

tests/systemd/test-systemd.sh runs this as the ExecStart= of a copy of the
installed unit's [Service] section (and its drop-ins) and asserts on the
output: one "key value" line per fact, the value an errno name ("ok" when
the call succeeded) or a list. It only looks; the one file it writes back
is what it read (sriov_numvfs, to see that the write goes through).
  probe.py SYSFS_PF_SRIOV_NUMVFS    the sandbox as configured
  probe.py --ip HOST PORT           IP through the family the unit's
                                    RestrictAddressFamilies= was reset for
"""
import errno
import os
import socket
import sys


def err(e):
    return errno.errorcode.get(e.errno, str(e.errno))


def attempt(fn):
    try:
        fn()
        return "ok"
    except OSError as e:
        return err(e)


def say(key, value):
    print(key, value, flush=True)


def open_close(path, flags):
    os.close(os.open(path, flags))


def status():
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs",
                     "Seccomp"):
                say(k, " ".join(v.split()))


def sandbox(sriov):
    status()
    say("groups", ",".join(str(g) for g in sorted(os.getgroups())) or "-")
    # ProtectSystem=strict: the whole tree read-only.
    for d in ("/usr", "/etc", "/var", "/"):
        p = os.path.join(d, "rdmad-probe-%d" % os.getpid())
        say("create " + d, attempt(lambda: open_close(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL)))
    # PrivateTmp=: the host's marker not seen, a file of its own writable.
    say("tmp-marker", "seen" if os.path.exists("/tmp/rdmad-test-marker") else "absent")
    say("tmp-create", attempt(lambda: open_close("/tmp/probe", os.O_WRONLY | os.O_CREAT)))
    # PrivateDevices=, BindPaths=/dev/infiniband, DevicePolicy=, DeviceAllow=.
    say("dev", ",".join(sorted(os.listdir("/dev"))))
    say("dev-infiniband", ",".join(sorted(os.listdir("/dev/infiniband")))
        if os.path.isdir("/dev/infiniband") else "absent")
    say("open /dev/null", attempt(lambda: open_close("/dev/null", os.O_RDWR)))
    for n in ("uverbs0", "not-uverbs"):
        say("open /dev/infiniband/" + n, attempt(lambda: open_close("/dev/infiniband/" + n, os.O_RDWR)))
    # RestrictAddressFamilies=AF_UNIX AF_NETLINK.
    for name in ("AF_INET", "AF_INET6", "AF_PACKET", "AF_UNIX", "AF_NETLINK"):
        fam = getattr(socket, name)
        proto = 0 if name != "AF_NETLINK" else socket.NETLINK_ROUTE
        kind = socket.SOCK_DGRAM if name in ("AF_PACKET", "AF_NETLINK") else socket.SOCK_STREAM
        say("socket " + name, attempt(lambda: socket.socket(fam, kind, proto).close()))
    # ProtectProc=invisible, ProcSubset=pid.
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    foreign = [p for p in pids if os.stat("/proc/%d" % p).st_uid != os.getuid()]
    say("proc-pid1", "seen" if os.path.exists("/proc/1") else "absent")
    say("proc-foreign", ",".join(map(str, foreign)) or "-")
    say("proc-sys", "seen" if os.path.exists("/proc/sys") else "absent")
    say("proc-cmdline", "seen" if os.path.exists("/proc/cmdline") else "absent")
    # /sys: read-only but /sys/devices, where file permissions decide.
    writable = []
    for top, dirs, files in os.walk("/sys"):
        for f in files:
            p = os.path.join(top, f)
            if not os.path.islink(p) and attempt(lambda: open_close(p, os.O_WRONLY)) == "ok":
                writable.append(p)
    say("sys-writable", ",".join(sorted(writable)) or "-")
    say("sys-create /sys/devices", attempt(lambda: open_close("/sys/devices/probe", os.O_WRONLY | os.O_CREAT)))
    with open(sriov) as f:
        value = f.read()
    def write_back():
        with open(sriov, "w") as f:
            f.write(value)
    say("write sriov_numvfs", attempt(write_back))
    # SystemCallFilter=~@privileged @resources; SystemCallErrorNumber=EPERM.
    say("setuid", attempt(lambda: os.setuid(0)))
    say("sched_setscheduler", attempt(lambda: os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))))
    say("sethostname", attempt(lambda: socket.sethostname("probe")))
    say("unshare", attempt(lambda: os.unshare(os.CLONE_NEWNS)) if hasattr(os, "unshare") else "n/a")


def ip(host, port):
    # IPAddressDeny=any: the cgroup's egress filter drops the packet and the
    # sender hears EPERM (a TCP SYN would be retried silently instead).
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    say("sendto", attempt(lambda: s.sendto(b"probe", (host, int(port)))))
    s.close()
    # SocketBindDeny=any: bind() refused where systemd enforces it.
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    say("bind", attempt(lambda: s.bind(("127.0.0.1", 0))))
    s.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ip"]:
        ip(sys.argv[2], sys.argv[3])
    else:
        sandbox(sys.argv[1])
    say("done", "ok")
