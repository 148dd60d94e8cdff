#!/bin/bash
# The units under a real systemd: Debian 12's systemd 252 booted as PID 1 of
# a throwaway container (tests/systemd/boot.sh), the project installed into
# it from its Debian packages, rdmad given a simulated host. TAP, one case
# per check.
#   test-systemd.sh BUS      BUS: dbus-daemon or dbus-broker, the container's
#                            system bus (dbus.service)
# RDMAD_DEBS=DIR: the .debs that make package-check builds (make
# check-systemd builds them once for both buses); without it they are built
# here from the tracked files. Needs root, cgroup2, overlayfs and the
# namespaces; skips (TAP "1..0 # SKIP") with the reason where one is missing.
#
# Three boots on one root (an overlay of the host's / on a tmpfs; each boot
# a fresh layer over the one before, so the host is never written):
#   install  apt-get installs the packages, as docs/operating.md says;
#            then the checks on the running system, in order: verify,
#            start, sandbox, journal, activation, watchdog, wait-online@,
#            exporter, the boot log.
#   ordering boots to a target that wants network-online.target and a
#            consumer ordered after it, rdmad-wait-online.service enabled, a
#            port INIT; the port turns ACTIVE from outside 3 s into the boot.
#   timeout  the same with the port left INIT and the wait's timeout
#            shortened (a test drop-in): the wait fails, the boot goes on.
# Where it differs from docs/operating.md's "From source" recipe: the packages, not
# meson install (the recipe's sysusers, daemon-reload and enable are what
# their scripts do); no udevd in a container (/sys read-only), so the udev
# rule's chgrp/chmod of sriov_numvfs is done on the simulated tree by hand
# and rdmad is started by systemctl, not by the rule; the simulated host is
# a test-only drop-in (BindReadOnlyPaths= of a umockdev tree onto /sys,
# SYSTEMD_DEVICE_VERIFY_SYSFS=0).
set -uo pipefail
bus=${1:-dbus-daemon}
src=${RDMAD_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$src/tests/systemd

skip() { echo "1..0 # SKIP $*"; exit 0; }

# build_debs DIR: the packages as make package-check builds them, from the
# tracked files; DIR gets rdmad_*.deb, rdmad-exporter_*.deb and
# python3-rdmad_*.deb (make rpm-check compares the RPMs with all three),
# with the -dbgsym packages, the .changes and the .buildinfo (make
# package-check lints them).
build_debs() {
        local out=$1 work
        work=$(mktemp -d /tmp/rdmad-debs-XXXXXX) || return 1
        mkdir -p "$out" "$work/src"
        git -C "$src" ls-files -z | (cd "$src" && tar --null -T - -c) | tar -x -C "$work/src"
        if ! (cd "$work/src" && PATH=/usr/sbin:/usr/bin:/sbin:/bin nice dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
                tail -30 "$work/build.log" | sed 's/^/# /'
                rm -rf "$work"
                return 1
        fi
        mv "$work"/*.deb "$work"/rdmad_*.changes "$work"/rdmad_*.buildinfo "$out/"
        rm -rf "$work"
}
# test-systemd.sh --build-debs DIR: only that (make check-systemd, once for both buses).
if [ "${1:-}" = --build-debs ]; then
        [ -n "${2:-}" ] || { echo "usage: test-systemd.sh --build-debs DIR" >&2; exit 2; }
        build_debs "$2" || { echo "dpkg-buildpackage failed" >&2; exit 1; }
        exit 0
fi
case $bus in dbus-daemon) busexe=/usr/bin/dbus-daemon ;; dbus-broker) busexe=/usr/bin/dbus-broker-launch ;;
*) echo "usage: test-systemd.sh dbus-daemon|dbus-broker" >&2; exit 2 ;; esac

# Everything this test mounts lives in a mount namespace of its own, gone
# with it, whatever happens.
if [ -z "${RDMAD_SYSTEMD_NS:-}" ]; then
        [ "$(id -u)" = 0 ] || skip "needs root: it boots systemd in a container (namespaces, cgroup2, mounts)"
        [ -x /lib/systemd/systemd ] || skip "no /lib/systemd/systemd (Debian package systemd)"
        [ -x "$busexe" ] || skip "no $busexe (Debian package $bus)"
        grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
        grep -qw overlay /proc/filesystems || skip "no overlayfs in this kernel: the container's root is an overlay"
        grep -qw cgroup2 /proc/filesystems || skip "no cgroup2 in this kernel: systemd needs it in a container"
        findmnt -n -t cgroup2 >/dev/null || skip "cgroup2 is not mounted on this host (systemd in the container needs a cgroup2 hierarchy)"
        out=$(unshare --pid --fork --mount --uts --ipc --net --cgroup true 2>&1) ||
                skip "cannot create PID, mount, UTS, IPC, network and cgroup namespaces here: $out"
        RDMAD_SYSTEMD_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

tmp=$(mktemp -d /tmp/rdmad-systemd-XXXXXX)
mount -t tmpfs -o mode=0755 tmpfs "$tmp"
cgmnt=$(findmnt -n -t cgroup2 -o TARGET | head -1)
cgparent=$cgmnt$(sed -n 's/^0:://p' /proc/self/cgroup)
cgparent=${cgparent%/}
pid1="" unshare_pid="" cg="" n=0 failed=0 booted=""

log() { echo "# $*"; }
c() { # a command inside the container (all its namespaces, its root)
        nsenter -t "$pid1" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 SYSTEMD_COLORS=0 \
                SYSTEMD_PAGER= "$@"
}
show() { c systemctl show -P "$2" "$1"; }

# boot NAME LOWER UNIT: a container on a fresh layer $tmp/NAME over LOWER,
# booting UNIT, $pid1 its systemd (host PID); returns once systemd answers.
boot() {
        local name=$1 lower=$2 unit=$3 i
        cg=$cgparent/rdmad-systemd-$$-$name
        mkdir "$cg" || return 1
        (echo "$BASHPID" >"$cg/cgroup.procs" &&
                exec unshare --pid --fork --kill-child --mount --uts --ipc --net --cgroup \
                        "$here/boot.sh" "$tmp/$name" "$lower" "$unit") >"$tmp/$name/boot.log" 2>&1 &
        unshare_pid=$!
        pid1=""
        for i in $(seq 200); do
                pid1=$(cat "/proc/$unshare_pid/task/$unshare_pid/children" 2>/dev/null | awk '{print $1}')
                [ -n "$pid1" ] && case $(readlink "/proc/$pid1/exe" 2>/dev/null) in */lib/systemd/systemd) ;; *) false ;; esac &&
                        c test -S /run/systemd/private 2>/dev/null && { booted=$name; return 0; }
                kill -0 "$unshare_pid" 2>/dev/null || break
                sleep 0.05
        done
        log "the container did not boot: $(cat "$tmp/$name/boot.log" "$tmp/$name/console.log")"
        return 1
}
poweroff() {
        local i t0
        [ -n "$unshare_pid" ] || return 0
        t0=$(mono_us)
        if kill -0 "$unshare_pid" 2>/dev/null; then
                kill -RTMIN+4 "$pid1" 2>/dev/null # systemd: poweroff.target
                for i in $(seq 300); do kill -0 "$unshare_pid" 2>/dev/null || break; sleep 0.1; done
                kill -0 "$unshare_pid" 2>/dev/null && { log "no poweroff within 30 s: killed"; kill -KILL "$unshare_pid"; }
        fi
        wait "$unshare_pid" 2>/dev/null
        log "$booted: powered off in $((($(mono_us) - t0) / 1000)) ms"
        unshare_pid="" pid1=""
        for i in $(seq 50); do
                find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
                [ -d "$cg" ] || break
                sleep 0.1
        done
        [ -d "$cg" ] && log "cgroup $cg left behind"
        return 0
}
cleanup() {
        poweroff
        umount -R "$tmp" 2>/dev/null
        rmdir "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# case NAME FUNCTION: one TAP line; a failing function's output as diagnostics.
case_() {
        local name=$1 out rc
        shift
        n=$((n + 1))
        out=$( ("$@") 2>&1)
        rc=$?
        if [ "$rc" = 0 ]; then
                echo "ok $n - $bus: $name"
                [ -z "$out" ] || echo "$out" | sed 's/^/# /'
        else
                echo "not ok $n - $bus: $name"
                echo "$out" | sed 's/^/# /'
                failed=$((failed + 1))
                # RDMAD_SYSTEMD_HOLD=FILE: keep the container for a look until FILE is removed.
                if [ -n "${RDMAD_SYSTEMD_HOLD:-}" ]; then
                        touch "$RDMAD_SYSTEMD_HOLD"
                        echo "# holding the container: nsenter -t $pid1 -a bash; rm $RDMAD_SYSTEMD_HOLD to go on"
                        while [ -e "$RDMAD_SYSTEMD_HOLD" ]; do sleep 1; done
                fi
        fi
}
fail() { echo "FAIL: $*"; exit 1; } # ends the case (each runs in a subshell)
# until SECONDS COMMAND...: poll every 0.1 s.
until_() {
        local t=$1 i
        shift
        for i in $(seq $((t * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
        return 1
}
# mlx5_0/1 is a RoCE port: rdmad re-reads it on its netdev's rtnetlink
# events (and polls it only every slow round). The netdev, ens1f0np0, is one
# end of a veth pair in the container's network namespace (veth is built
# into more kernels than dummy): the kernel sends the events.
roce_port() { # STATE PHYS_STATE
        c sh -c "printf '$1\\n' >$mlx5_port/state && printf '$2\\n' >$mlx5_port/phys_state" &&
                c sh -c 'ip link show ens1f0np0 >/dev/null 2>&1 ||
                        ip link add ens1f0np0 type veth peer name rdmad-peer0' &&
                case $1 in
                4:*) c ip link set rdmad-peer0 up && c ip link set ens1f0np0 up ;;
                *) c ip link set ens1f0np0 down ;;
                esac
}
mono_us() { python3 -c 'import time; print(time.monotonic_ns() // 1000)'; }

# --- What the container is given ---------------------------------------
debs=${RDMAD_DEBS:-}
if [ -z "$debs" ]; then
        debs=$tmp/debs
        log "building the packages (dpkg-buildpackage -us -uc -b; RDMAD_DEBS= skips this)"
        command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage (tools/install-deps package) and no RDMAD_DEBS"
        build_debs "$debs" || { echo "Bail out! dpkg-buildpackage failed"; exit 1; }
fi
ls "$debs"/rdmad_*.deb "$debs"/rdmad-exporter_*.deb >/dev/null 2>&1 || { echo "Bail out! no packages in $debs"; exit 1; }

# The first layer: what the test brings, under /rdmad-test (a name the
# host's / does not have, so no directory of the host changes its mode).
A=$tmp/install
mkdir -p "$A/upper/rdmad-test/debs" "$A/upper/etc/systemd/system"
chmod 0755 "$A/upper" "$A/upper/etc" "$A/upper/etc/systemd" "$A/upper/etc/systemd/system"
cp "$debs"/rdmad_*.deb "$debs"/rdmad-exporter_*.deb "$A/upper/rdmad-test/debs/"
cp "$here/probe.py" "$A/upper/rdmad-test/"
# The simulated host: umockdev's tree of the fixtures (mlx5_0 with its VF
# mlx5_1, hfi1_0), kept as files, with the empty directories systemd's
# sandbox mounts over in /sys.
(cd / && /usr/bin/python3 - "$A/upper/rdmad-test/sys" "$src/tests/data/mlx5-roce-sriov.umockdev" \
        "$src/tests/data/hfi1.umockdev" <<'PY'
import shutil, sys, gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev
tb = UMockdev.Testbed.new()
for f in sys.argv[2:]:
    tb.add_from_file(f)
shutil.copytree(tb.get_root_dir() + "/sys", sys.argv[1], symlinks=True)
PY
) || { echo "Bail out! umockdev could not make the simulated sysfs"; exit 1; }
mkdir -p "$A/upper/rdmad-test/sys/fs/cgroup" "$A/upper/rdmad-test/sys/kernel"
pf=/rdmad-test/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0
mlx5_port=$pf/infiniband/mlx5_0/ports/1
hfi1_port=/rdmad-test/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0/ports/1
cat >"$A/upper/rdmad-test/50-simulated-sysfs.conf" <<'EOF'
# Test only (tests/systemd): rdmad on the simulated host, a umockdev tree
# in place of /sys; sd-device accepts a /sys that is not sysfs.
[Service]
BindReadOnlyPaths=/rdmad-test/sys:/sys
Environment=SYSTEMD_DEVICE_VERIFY_SYSFS=0
EOF
# The journal in /run: each boot's own (the boots share the kernel's boot ID).
mkdir -p "$A/upper/etc/systemd/journald.conf.d"
chmod 0755 "$A/upper/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$A/upper/etc/systemd/journald.conf.d/50-rdmad-test.conf"
cat >"$A/upper/etc/systemd/system/rdmad-test.target" <<'EOF'
[Unit]
Description=rdmad test boot (tests/systemd)
Requires=basic.target
After=basic.target
EOF
cat >"$A/upper/etc/systemd/system/rdmad-test-ordering.target" <<'EOF'
[Unit]
Description=rdmad test boot: network-online.target and a consumer (tests/systemd)
Requires=basic.target
Wants=network-online.target rdmad-test-consumer.service
After=basic.target network-online.target rdmad-test-consumer.service
EOF
cat >"$A/upper/etc/systemd/system/rdmad-test-consumer.service" <<EOF
# What NVMe-oF autoconnect and the like are: ordered after network-online.target.
[Unit]
Description=A consumer of RDMA links (tests/systemd)
Wants=network-online.target
After=network-online.target
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'cat $mlx5_port/state >/run/rdmad-test-consumer.state'
EOF

# --- install boot ------------------------------------------------------
# The bus: dbus-broker's package makes it dbus.service when enabled
# (Alias=); dbus-daemon's dbus.service is the default.
set_bus() { # LAYER
        if [ "$bus" = dbus-broker ]; then
                ln -sf /lib/systemd/system/dbus-broker.service "$1/etc/systemd/system/dbus.service"
        fi
}
set_bus "$A/upper"
echo "1..13"

t_boot() {
        c systemctl is-system-running --wait >/dev/null
        local state exe
        state=$(c systemctl is-system-running)
        [ "$state" = running ] || fail "system state $state: $(c systemctl --failed --no-legend)"
        c busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId >/dev/null ||
                fail "the system bus does not answer"
        exe=$(c readlink "/proc/$(show dbus.service MainPID)/exe")
        [ "$exe" = "$busexe" ] || fail "dbus.service is $exe, not $busexe"
        c systemd-detect-virt -c | grep -qx container-other || fail "not a container to systemd"
        echo "systemd $(c systemctl --version | awk 'NR == 1 {print $2}') as PID 1, rdmad-test.target $(show rdmad-test.target ActiveState); $(c systemd-analyze time | head -1); bus: $exe"
}

t_install() {
        local before after out
        # A fresh machine: no user of the host's own installation.
        c sed -i '/^rdmad\(-exporter\)\?:/d' /etc/passwd /etc/group /etc/shadow /etc/gshadow
        before=$(c find /etc/systemd/system -type l | sort)
        out=$(c sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                /rdmad-test/debs/rdmad_*.deb /rdmad-test/debs/rdmad-exporter_*.deb 2>&1') ||
                fail "apt-get install: $(echo "$out" | tail -20)"
        c getent passwd rdmad >/dev/null || fail "no user rdmad"
        c getent passwd rdmad-exporter >/dev/null || fail "no user rdmad-exporter"
        # As sysusers.d says: system users, no login.
        c getent passwd rdmad rdmad-exporter | grep -v ':/usr/sbin/nologin$' && fail "not as sysusers.d makes them"
        echo "users: $(c getent passwd rdmad rdmad-exporter | cut -d: -f1,3,4,7 | tr '\n' ' ')"
        after=$(c find /etc/systemd/system -type l | sort)
        [ "$(comm -13 <(echo "$before") <(echo "$after"))" = /etc/systemd/system/dbus-org.rdmad1.service ] ||
                fail "installation enabled: $(comm -13 <(echo "$before") <(echo "$after"))"
        [ "$(show rdmad.service ActiveState)" = inactive ] || fail "installation started rdmad"
        [ "$(show rdmad-exporter.socket ActiveState)" = inactive ] || fail "installation started the exporter's socket"
        # docs/operating.md: "systemctl reload dbus" (the package's trigger asks the bus to reload too).
        c systemctl reload dbus.service || fail "systemctl reload dbus"
        # What 90-rdmad.rules does on the add event, by hand: no udevd here.
        c chgrp rdmad "$pf/sriov_numvfs" && c chmod g+w "$pf/sriov_numvfs"
        echo "installed; enabled: dbus-org.rdmad1.service only; nothing started"
}

t_verify() {
        local units out
        units=$(c dpkg -L rdmad rdmad-exporter | grep '/systemd/system/.*\.\(service\|socket\)$' | grep -v '@\.service$')
        [ "$(echo "$units" | wc -l)" = 4 ] || fail "units: $units"
        # The template as an instance, as systemd loads it.
        out=$(c systemd-analyze verify --man=no $units rdmad-wait-online@mlx5_0-1.service 2>&1) ||
                fail "systemd-analyze verify: $out"
        [ -z "$out" ] || fail "systemd-analyze verify printed: $out"
        echo "systemd-analyze verify $(echo $units | tr ' ' '\n' | xargs -n1 basename | tr '\n' ' ')rdmad-wait-online@mlx5_0-1.service: nothing printed"
}

active_with() { # UNIT STATUS: active, StatusText=STATUS
        [ "$(show "$1" ActiveState)" = active ] && [ "$(show "$1" StatusText)" = "$2" ]
}
t_start() {
        local n_real uid
        # The container's own /sys: this machine's RDMA devices (none here).
        n_real=$(c sh -c 'ls /sys/class/infiniband 2>/dev/null | wc -l')
        c systemctl start rdmad.service || fail "systemctl start rdmad: $(c journalctl -b -u rdmad -o cat | tail)"
        [ "$(show rdmad.service ActiveState)" = active ] || fail "not active"
        case $n_real in 0) want="Publishing 0 RDMA devices." ;; 1) want="Publishing 1 RDMA device." ;;
        *) want="Publishing $n_real RDMA devices." ;; esac
        [ "$(show rdmad.service StatusText)" = "$want" ] || fail "StatusText: \"$(show rdmad.service StatusText)\", not \"$want\""
        uid=$(c stat -c %U "/proc/$(show rdmad.service MainPID)")
        [ "$uid" = rdmad ] || fail "runs as $uid"
        echo "real /sys ($n_real devices): active, StatusText \"$(show rdmad.service StatusText)\", user $uid"
        # The simulated host.
        c mkdir -p /etc/systemd/system/rdmad.service.d
        c cp /rdmad-test/50-simulated-sysfs.conf /etc/systemd/system/rdmad.service.d/
        c systemctl daemon-reload
        c systemctl restart rdmad.service || fail "restart on the simulated host: $(c journalctl -b -u rdmad -o cat | tail)"
        active_with rdmad.service "Publishing 3 RDMA devices." ||
                fail "simulated host: $(show rdmad.service ActiveState), \"$(show rdmad.service StatusText)\""
        out=$(c setpriv --reuid=nobody --regid=nogroup --clear-groups rdmactl list 2>&1) || fail "rdmactl list: $out"
        for d in mlx5_0 mlx5_1 hfi1_0; do echo "$out" | grep -q "^$d " || fail "rdmactl list shows no $d: $out"; done
        echo "simulated host: active, StatusText \"$(show rdmad.service StatusText)\"; rdmactl list as nobody:"
        echo "$out" | sed 's/^/  /'
}

# A copy of the installed rdmad.service's [Service] (and its drop-in), its
# command the probe: what rdmad runs in, seen from inside.
probe_unit() { # NAME EXTRA-LINES PROBE-ARGS
        {
                printf '[Unit]\nDescription=rdmad sandbox probe (tests/systemd)\n[Service]\nType=oneshot\n'
                printf 'ExecStart=/usr/bin/python3 /rdmad-test/probe.py %s\n' "$3"
                printf 'StandardOutput=file:/run/%s.out\n' "$1"
                c sed -n '/^\[Service\]/,/^\[/p' /lib/systemd/system/rdmad.service |
                        grep -v '^\[\|^Type=\|^BusName=\|^ExecStart=\|^ExecReload=\|^Restart=\|^WatchdogSec='
                c sed -n '/^\[Service\]/,$p' /etc/systemd/system/rdmad.service.d/50-simulated-sysfs.conf | grep -v '^\['
                printf '%s\n' "$2"
        } | c sh -c "cat >/etc/systemd/system/$1.service"
}
t_sandbox() {
        local out want v
        probe_unit rdmad-probe "" "${pf#/rdmad-test}/sriov_numvfs" # the path in rdmad's /sys
        c touch /tmp/rdmad-test-marker # PrivateTmp=: not to be seen
        c systemctl daemon-reload
        c systemctl start rdmad-probe.service || fail "probe: $(c journalctl -b -u rdmad-probe -o cat | tail)"
        out=$(c cat /run/rdmad-probe.out)
        echo "$out" | grep -qx "done ok" || fail "probe incomplete: $out"
        v() { echo "$out" | sed -n "s|^$1 ||p"; }
        local uid; uid=$(c id -u rdmad)
        [ "$(v Uid)" = "$uid $uid $uid $uid" ] || fail "uid: $(v Uid)"
        [ "$(v groups)" = "$(c id -g rdmad)" ] || fail "groups: $(v groups)"
        for k in CapInh CapPrm CapEff CapBnd CapAmb; do [ "$(v $k)" = 0000000000000000 ] || fail "$k $(v $k)"; done
        [ "$(v NoNewPrivs)" = 1 ] || fail "NoNewPrivs $(v NoNewPrivs)"
        [ "$(v Seccomp)" = 2 ] || fail "Seccomp $(v Seccomp) (2: filter)"
        for d in /usr /etc /var /; do [ "$(v "create $d")" = EROFS ] || fail "create in $d: $(v "create $d")"; done
        [ "$(v tmp-marker)" = absent ] && [ "$(v tmp-create)" = ok ] || fail "PrivateTmp: marker $(v tmp-marker), create $(v tmp-create)"
        echo ",$(v dev)," | grep -q ",console,\|,fuse,\|,kmsg," && fail "/dev not private: $(v dev)"
        echo ",$(v dev)," | grep -q ",infiniband," || fail "no /dev/infiniband: $(v dev)"
        [ "$(v dev-infiniband)" = "not-uverbs,uverbs0" ] || fail "/dev/infiniband: $(v dev-infiniband)"
        [ "$(v "open /dev/null")" = ok ] || fail "/dev/null: $(v "open /dev/null")"
        # 10:229 (fuse, 0666): refused by the cgroup's device policy, not by
        # permissions; opened by the same user outside the sandbox.
        [ "$(v "open /dev/infiniband/not-uverbs")" = EPERM ] || fail "not-uverbs: $(v "open /dev/infiniband/not-uverbs")"
        c setpriv --reuid=rdmad --regid=rdmad --clear-groups python3 -c \
                'import os; os.close(os.open("/dev/infiniband/not-uverbs", os.O_RDWR))' 2>/dev/null ||
                fail "outside the sandbox rdmad cannot open the node either: the check proves nothing"
        # uverbs0: allowed by major (char-infiniband_verbs) where the kernel
        # has ib_uverbs; without, systemd cannot resolve the name.
        if c grep -q ' infiniband_verbs$' /proc/devices; then
                [ "$(v "open /dev/infiniband/uverbs0")" != EPERM ] || fail "uverbs0 refused by the device policy"
        else
                [ "$(v "open /dev/infiniband/uverbs0")" = EPERM ] || fail "uverbs0: $(v "open /dev/infiniband/uverbs0")"
                echo "no ib_uverbs in this kernel: char-infiniband_verbs allows nothing, uverbs0 refused (EPERM)"
        fi
        for f in AF_INET AF_INET6 AF_PACKET; do [ "$(v "socket $f")" = EAFNOSUPPORT ] || fail "$f: $(v "socket $f")"; done
        for f in AF_UNIX AF_NETLINK; do [ "$(v "socket $f")" = ok ] || fail "$f: $(v "socket $f")"; done
        [ "$(v proc-pid1)" = absent ] && [ "$(v proc-foreign)" = - ] || fail "ProtectProc: pid1 $(v proc-pid1), foreign $(v proc-foreign)"
        [ "$(v proc-sys)" = absent ] && [ "$(v proc-cmdline)" = absent ] || fail "ProcSubset=pid: sys $(v proc-sys), cmdline $(v proc-cmdline)"
        [ "$(v sys-writable)" = "${pf#/rdmad-test}/sriov_numvfs" ] || fail "writable under /sys: $(v sys-writable)"
        [ "$(v "write sriov_numvfs")" = ok ] || fail "sriov_numvfs: $(v "write sriov_numvfs")"
        [ "$(v "sys-create /sys/devices")" = EACCES ] || fail "create in /sys/devices: $(v "sys-create /sys/devices")"
        for s in setuid sched_setscheduler sethostname; do [ "$(v $s)" = EPERM ] || fail "$s: $(v $s)"; done
        echo "uid $uid, no capabilities, NoNewPrivs, seccomp, / read-only, private /tmp and /dev ($(v dev)),"
        echo "/dev/infiniband bound, device policy refuses 10:229, no AF_INET/AF_INET6/AF_PACKET, ProtectProc=invisible,"
        echo "ProcSubset=pid, writable under /sys: only $(v sys-writable)"

        # The next layer: IP allowed as a family, IPAddressDeny= must refuse
        # it; SocketBindDeny= where this systemd has BPF_FRAMEWORK.
        probe_unit rdmad-probe-ip "RestrictAddressFamilies=" "--ip 127.0.0.1 10999"
        c systemctl daemon-reload
        c systemctl start rdmad-probe-ip.service || fail "ip probe: $(c journalctl -b -u rdmad-probe-ip -o cat | tail)"
        out=$(c cat /run/rdmad-probe-ip.out)
        echo "$out" | grep -qx "done ok" || fail "ip probe incomplete: $out"
        [ "$(v sendto)" = EPERM ] || fail "IPAddressDeny=any: a datagram to 127.0.0.1: $(v sendto)"
        c python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 10999))' ||
                fail "outside the sandbox the datagram is refused too: the check proves nothing"
        if c systemctl --version | grep -q -- '+BPF_FRAMEWORK'; then
                [ "$(v bind)" = EPERM ] || fail "SocketBindDeny=any: bind $(v bind)"
        else
                [ "$(v bind)" = ok ] || fail "bind: $(v bind)"
                c grep -q 'SocketBindDeny.*\|BPF_FRAMEWORK' /lib/systemd/system/rdmad.service &&
                        c sh -c 'zcat /usr/share/man/man8/rdmad.8.gz | grep -q BPF_FRAMEWORK' ||
                        fail "SocketBindDeny= not enforced, and not said in the unit and rdmad(8)"
                echo "SocketBindDeny=any not enforced by this systemd (-BPF_FRAMEWORK), as the unit and rdmad(8) say"
        fi
        echo "IPAddressDeny=any (with the family allowed): a datagram to 127.0.0.1 refused (EPERM); sent outside the sandbox"
}

t_journal() {
        local out
        # A flap of hfi1_0 port 1, as the kernel rewrites the attributes.
        c sh -c "printf '1: DOWN\n' >$hfi1_port/state; printf '3: Disabled\n' >$hfi1_port/phys_state"
        until_ 10 c sh -c "journalctl -b RDMA_DEVICE=hfi1_0 RDMA_PORT=1 RDMA_STATE=DOWN RDMA_PHYS_STATE=Disabled -q | grep -q ." ||
                fail "no journal entry with RDMA_DEVICE=hfi1_0 RDMA_PORT=1 RDMA_STATE=DOWN RDMA_PHYS_STATE=Disabled: $(c journalctl -b -u rdmad -o cat | tail -5)"
        c sh -c "printf '4: ACTIVE\n' >$hfi1_port/state; printf '5: LinkUp\n' >$hfi1_port/phys_state"
        until_ 10 c sh -c "journalctl -b RDMA_DEVICE=hfi1_0 RDMA_STATE=ACTIVE RDMA_PHYS_STATE=LinkUp -q | grep -q ." ||
                fail "no entry for the way back up"
        echo "journal: $(c journalctl -b RDMA_DEVICE=hfi1_0 -o cat | tail -2 | tr '\n' '|')"
        # reload: a rescan publishes what only a rescan reads.
        local fw=/rdmad-test/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0/fw_ver
        c sh -c "printf '1.28.0\n' >$fw"
        c rdmactl status hfi1_0 | grep -q '1\.28\.0' && fail "the firmware version changed without a rescan: the check proves nothing"
        c systemctl reload rdmad.service || fail "systemctl reload"
        until_ 10 c sh -c 'rdmactl status hfi1_0 | grep -q "1\.28\.0"' || fail "reload: fw_ver not re-read: $(c rdmactl status hfi1_0 | head)"
        c journalctl -b -u rdmad -o cat | grep -q "SIGHUP: rescanning." || fail "no 'SIGHUP: rescanning.'"
        echo "systemctl reload: rescanned (hfi1_0 firmware 1.27.0 -> 1.28.0 published)"
}

t_activation() {
        local out
        c systemctl stop rdmad.service
        c systemctl disable -q rdmad.service
        if out=$(c busctl call org.rdmad1 /org/rdmad1 org.freedesktop.DBus.Peer Ping 2>&1); then
                fail "a call started rdmad with the unit disabled"
        fi
        # Each bus words it its own way (rdmad(8), FILES).
        case $bus in
        dbus-daemon) echo "$out" | grep -q "Unit dbus-org.rdmad1.service not found" ;;
        dbus-broker) echo "$out" | grep -q "activation request failed: unknown unit" ;;
        esac || { c systemctl enable -q rdmad.service; fail "not enabled: unexpected failure: $out"; }
        [ "$(show rdmad.service ActiveState)" = inactive ] || fail "rdmad started"
        echo "not enabled: $out"
        c systemctl enable -q rdmad.service
        out=$(c busctl call org.rdmad1 /org/rdmad1 org.freedesktop.DBus.ObjectManager GetManagedObjects 2>&1) ||
                fail "enabled: the call failed: $out"
        echo "$out" | grep -q mlx5_0 || fail "the activated rdmad publishes no mlx5_0"
        active_with rdmad.service "Publishing 3 RDMA devices." || fail "rdmad: $(show rdmad.service ActiveState)"
        echo "enabled: busctl call started rdmad.service (dbus-org.rdmad1.service), model published"
}

t_watchdog() {
        local old new wd rs t0 t1 limit
        c systemctl start rdmad.service
        old=$(show rdmad.service MainPID)
        [ "${old:-0}" -gt 0 ] || fail "rdmad is not running: $(show rdmad.service ActiveState)"
        wd=$(show rdmad.service WatchdogUSec)
        rs=$(show rdmad.service RestartUSec)
        limit=$(python3 -c "
def us(s):
    import re
    t = 0
    for n, u in re.findall(r'([0-9.]+)\s*(min|ms|us|s)', s):
        t += float(n) * {'min': 60e6, 's': 1e6, 'ms': 1e3, 'us': 1}[u]
    return t
print(int(us('$wd') + us('$rs') + 10e6))")
        c kill -STOP "$old"
        t0=$(mono_us)
        until_ $((limit / 1000000 + 5)) sh -c "[ \"\$(nsenter -t $pid1 -a systemctl show -P MainPID rdmad.service)\" != $old ] &&
                [ \"\$(nsenter -t $pid1 -a systemctl show -P ActiveState rdmad.service)\" = active ] &&
                [ \"\$(nsenter -t $pid1 -a systemctl show -P MainPID rdmad.service)\" != 0 ]" ||
                fail "not restarted within $((limit / 1000000 + 5)) s: $(show rdmad.service ActiveState)"
        t1=$(mono_us)
        new=$(show rdmad.service MainPID)
        [ $((t1 - t0)) -le "$limit" ] || fail "restarted after $(((t1 - t0) / 1000)) ms, more than WatchdogSec=$wd + RestartSec=$rs + 10 s"
        c journalctl -b -u rdmad -o cat | grep -q "Watchdog timeout" || fail "no 'Watchdog timeout' in the journal: not the watchdog"
        active_with rdmad.service "Publishing 3 RDMA devices." || fail "the new rdmad: $(show rdmad.service StatusText)"
        c busctl call org.rdmad1 /org/rdmad1 org.freedesktop.DBus.ObjectManager GetManagedObjects | grep -q hfi1_0 ||
                fail "the new rdmad publishes no model"
        echo "SIGSTOP of $old: \"$(c journalctl -b -u rdmad -o cat | grep -m1 "Watchdog timeout")\"; new rdmad $new active after $(((t1 - t0) / 1000)) ms (bound: WatchdogSec=$wd + RestartSec=$rs + 10 s), model published"
}

t_wait_instance() {
        local t_flip exit_t
        roce_port "2: INIT" "5: LinkUp"
        until_ 5 c sh -c 'rdmactl list | grep -q "^mlx5_0 *1 .*INIT"' || fail "mlx5_0/1 not INIT on the bus: $(c rdmactl list)"
        c systemctl start --no-block rdmad-wait-online@mlx5_0-1.service
        sleep 2
        [ "$(show rdmad-wait-online@mlx5_0-1.service ActiveState)" = activating ] ||
                fail "with mlx5_0/1 INIT the wait is $(show rdmad-wait-online@mlx5_0-1.service ActiveState)"
        t_flip=$(mono_us)
        roce_port "4: ACTIVE" "5: LinkUp"
        until_ 10 sh -c "[ \"\$(nsenter -t $pid1 -a systemctl show -P ActiveState rdmad-wait-online@mlx5_0-1.service)\" = active ]" ||
                fail "not done after mlx5_0/1 went ACTIVE: $(show rdmad-wait-online@mlx5_0-1.service ActiveState)"
        exit_t=$(show rdmad-wait-online@mlx5_0-1.service ExecMainExitTimestampMonotonic)
        [ "$exit_t" -gt "$t_flip" ] || fail "exited before the flip"
        [ "$(show rdmad-wait-online@mlx5_0-1.service Result)" = success ] || fail "result"
        echo "rdmad-wait-online@mlx5_0-1: activating while INIT, done $(((exit_t - t_flip) / 1000)) ms after ACTIVE"
}

t_exporter() {
        local out score
        c systemctl start rdmad-exporter.socket || fail "socket"
        [ "$(show rdmad-exporter.service ActiveState)" = inactive ] || fail "started before a connection"
        out=$(c curl -sS --max-time 20 http://127.0.0.1:10480/metrics 2>&1) || fail "curl: $out"
        [ "$(show rdmad-exporter.service ActiveState)" = active ] || fail "the connection did not start the service"
        [ "$(c stat -c %U "/proc/$(show rdmad-exporter.service MainPID)")" = rdmad-exporter ] || fail "user"
        echo "$out" | grep -qx "rdmad_up 1" ||
                fail "no rdmad_up 1: $(echo "$out" | grep '^rdmad_up'); $(c journalctl -b -u rdmad-exporter -o cat | tail -3)"
        for d in mlx5_0 mlx5_1 hfi1_0; do echo "$out" | grep -q "device=\"$d\"" || fail "no series of $d"; done
        echo "$out" | grep -qx 'rdma_state_id{device="hfi1_0",port="1"} 4' || fail "no rdma_state_id of hfi1_0/1"
        echo "socket-activated as rdmad-exporter: rdmad_up 1, $(echo "$out" | grep -c 'device="') series of mlx5_0, mlx5_1, hfi1_0"
        # Why not DynamicUser= (rdmad-exporter(8)): the same unit with a
        # dynamic user, for the record (not asserted: the bus's behaviour).
        c mkdir -p /run/systemd/system/rdmad-exporter.service.d
        printf '[Service]\nDynamicUser=yes\nUser=rdmad-exporter-dyn\nGroup=\n' |
                c sh -c 'cat >/run/systemd/system/rdmad-exporter.service.d/dynamic.conf'
        c systemctl daemon-reload && c systemctl stop -q rdmad-exporter.service 2>/dev/null
        echo "for the record, with DynamicUser=yes instead: $(c curl -sS --max-time 20 http://127.0.0.1:10480/metrics | grep '^rdmad_up') on $bus"
        c rm -r /run/systemd/system/rdmad-exporter.service.d
        c systemctl daemon-reload && c systemctl stop -q rdmad-exporter.service 2>/dev/null
        for u in rdmad.service:0.8 rdmad-exporter.service:0.2; do
                score=$(c systemd-analyze security "${u%:*}" 2>/dev/null | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
                [ -n "$score" ] && awk -v e="$score" -v m="${u#*:}" 'BEGIN { exit !(e <= m) }' ||
                        fail "${u%:*}: exposure ${score:-?} above ${u#*:}"
                echo "systemd-analyze security ${u%:*}: $score (at most ${u#*:})"
        done
}

boot_log_clean() { # no warning about the project's units in this boot
        local out
        # What the checks themselves cause (the watchdog's kill, the failed
        # wait of the timeout boot) is not a warning about the units.
        out=$(c journalctl -b -p warning -o cat _PID=1 + SYSLOG_IDENTIFIER=systemd | grep -i 'rdmad\|org\.rdmad1' |
                grep -v "^rdmad.service: Watchdog timeout (limit [0-9a-z]*)!$\|^rdmad.service: Main process exited, code=killed, status=6/ABRT$\|^rdmad.service: Failed with result 'watchdog'.$" |
                grep -v "^rdmad-wait-online.service: Failed with result 'exit-code'.$\|^Failed to start rdmad-wait-online.service - ")
        [ -z "$out" ] || fail "warnings about the units: $out"
}
t_boot_log() {
        boot_log_clean
        echo "no warning from systemd about rdmad's units in this boot (install, reloads, all the checks)"
}

if ! boot install / rdmad-test.target; then
        echo "Bail out! the container did not boot"
        exit 1
fi
case_ "boot: systemd as PID 1 on $bus" t_boot
case_ "install from the packages: users from sysusers.d, dbus-org.rdmad1.service enabled, nothing started" t_install
case_ "systemd-analyze verify of every installed unit prints nothing" t_verify
case_ "start: active (READY=1), StatusText, on this /sys and on the simulated host" t_start
case_ "sandbox probe from rdmad.service's [Service]" t_sandbox
case_ "journal RDMA_* fields after a flap; reload rescans" t_journal
case_ "D-Bus activation: disabled fails as documented, enabled starts rdmad" t_activation
case_ "watchdog: SIGSTOP, restarted within WatchdogSec + RestartSec, model published" t_watchdog
case_ "rdmad-wait-online@mlx5_0-1.service waits for that port" t_wait_instance
case_ "exporter: socket-activated, rdmad_up 1, the simulated host's series; security exposure" t_exporter
case_ "the boot logs no warning about the units" t_boot_log

# Ready the next boots: the wait enabled, mlx5_0/1 INIT.
c systemctl enable -q rdmad-wait-online.service
c sh -c "printf '2: INIT\n' >$mlx5_port/state" # no netdev yet in the next boots: read at start
poweroff

# --- ordering boot -------------------------------------------------------
t_ordering() {
        local t_flip w_exit no_enter cons_start
        until_ 10 sh -c "[ \"\$(nsenter -t $pid1 -a systemctl show -P ActiveState rdmad-wait-online.service)\" = activating ]" ||
                fail "the wait is $(show rdmad-wait-online.service ActiveState)"
        sleep 3
        [ "$(show rdmad-wait-online.service ActiveState)" = activating ] || fail "the wait did not wait for INIT"
        [ "$(show network-online.target ActiveState)" = inactive ] || fail "network-online.target reached with a port INIT"
        [ "$(show rdmad-test-consumer.service ActiveState)" = inactive ] || fail "the consumer started with a port INIT"
        t_flip=$(mono_us)
        roce_port "4: ACTIVE" "5: LinkUp"
        c systemctl is-system-running --wait >/dev/null
        [ "$(c systemctl is-system-running)" = running ] || fail "$(c systemctl is-system-running): $(c systemctl --failed --no-legend)"
        [ "$(show rdmad-wait-online.service Result)" = success ] || fail "wait: $(show rdmad-wait-online.service Result)"
        w_exit=$(show rdmad-wait-online.service ExecMainExitTimestampMonotonic)
        no_enter=$(show network-online.target ActiveEnterTimestampMonotonic)
        cons_start=$(show rdmad-test-consumer.service ExecMainStartTimestampMonotonic)
        [ "$w_exit" -gt "$t_flip" ] && [ "$no_enter" -ge "$w_exit" ] && [ "$cons_start" -ge "$no_enter" ] ||
                fail "order: flip $t_flip, wait done $w_exit, network-online.target $no_enter, consumer $cons_start"
        [ "$(c cat /run/rdmad-test-consumer.state)" = "4: ACTIVE" ] || fail "the consumer saw $(c cat /run/rdmad-test-consumer.state)"
        boot_log_clean
        echo "INIT at boot, ACTIVE from outside: wait done +$(((w_exit - t_flip) / 1000)) ms, network-online.target +$(((no_enter - t_flip) / 1000)) ms, consumer +$(((cons_start - t_flip) / 1000)) ms (saw \"4: ACTIVE\")"
}
mkdir -p "$tmp/ordering/upper" && chmod 0755 "$tmp/ordering/upper"
if boot ordering "$A/upper:/" rdmad-test-ordering.target; then
        case_ "boot ordering: consumer after network-online.target after the port went ACTIVE" t_ordering
else
        n=$((n + 1)) failed=$((failed + 1))
        echo "not ok $n - $bus: boot ordering: the container did not boot"
fi
poweroff

# --- timeout boot --------------------------------------------------------
t_timeout() {
        c systemctl is-system-running --wait >/dev/null
        [ "$(c systemctl is-system-running)" = degraded ] || fail "state $(c systemctl is-system-running), not degraded"
        [ "$(show rdmad-wait-online.service Result)" = exit-code ] && [ "$(show rdmad-wait-online.service ExecMainStatus)" = 5 ] ||
                fail "wait: $(show rdmad-wait-online.service Result) $(show rdmad-wait-online.service ExecMainStatus)"
        out=$(c journalctl -b -u rdmad-wait-online.service -o cat)
        echo "$out" | grep -q "timed out" && echo "$out" | grep -q "mlx5_0" || fail "the journal does not name the port: $out"
        [ "$(show rdmad-test-consumer.service ActiveState)" = active ] && [ "$(show rdmad-test-ordering.target ActiveState)" = active ] ||
                fail "the boot did not go on"
        [ "$(c cat /run/rdmad-test-consumer.state)" = "2: INIT" ] || fail "consumer saw $(c cat /run/rdmad-test-consumer.state)"
        boot_log_clean
        echo "port left INIT: rdmad-wait-online failed (exit 5) after its timeout; journal: $(echo "$out" | grep -i 'timed out\|mlx5_0' | tr '\n' '|')"
        echo "the boot went on: consumer ran, system degraded"
}
# The wait's 2 min shortened, in this boot's own layer.
L=$tmp/timeout/upper/etc/systemd/system/rdmad-wait-online.service.d
mkdir -p "$L"
chmod 0755 "$tmp/timeout/upper" "$tmp/timeout/upper/etc" "$tmp/timeout/upper/etc/systemd" \
        "$tmp/timeout/upper/etc/systemd/system" "$L"
printf '# Test only (tests/systemd): the 2 min timeout shortened.\n[Service]\nExecStart=\nExecStart=/usr/bin/rdmactl wait --quiet --timeout=5s\n' >"$L/50-test-timeout.conf"
if boot timeout "$A/upper:/" rdmad-test-ordering.target; then
        case_ "boot ordering: port left INIT, the wait fails at its timeout naming it, the boot goes on" t_timeout
else
        n=$((n + 1)) failed=$((failed + 1))
        echo "not ok $n - $bus: boot ordering (timeout): the container did not boot"
fi
poweroff

[ "$failed" = 0 ]
