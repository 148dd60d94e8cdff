#!/bin/bash
# make package-check: the Debian package, as an operator gets it.
#   1. dpkg-buildpackage -us -uc -b on a copy of the tracked files (or the
#      packages built so in RDMAD_DEBS=DIR); lintian reports no error.
#   2. apt-get installs both .debs on this machine: the user rdmad exists
#      (systemd-sysusers), every file is where Debian's dbus-daemon,
#      polkitd, systemd, udev, man and bash-completion read it, rdmad.service
#      is enabled (the dbus-org.rdmad1.service alias of D-Bus activation),
#      the exporter's socket is not, and nothing was started.
#   3. The installed /usr/sbin/rdmad runs as the installed user on a
#      simulated host (umockdev, tools/testbed.py), on a private dbus-daemon
#      that reads the host's own system.conf and system.d, where the
#      package's policy is: nobody reads it through the installed rdmactl
#      and the installed python3-rdmad (rdmad.client and rdmad.sts).
#   4. apt-get remove, then purge: no file of the packages is left, no unit
#      symlink, no deb-systemd-helper state, no dpkg record; the user stays
#      (Debian: a system user may still own files elsewhere).
# Needs root. Refuses to run where rdmad is already installed.
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (it installs and purges the packages)"
for p in rdmad rdmad-exporter python3-rdmad; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        case $st in *" not-installed" | "") ;; *) fail "$p is on this machine already ($st): not touching it" ;; esac
done

tmp=$(mktemp -d /tmp/rdmad-package-XXXXXX)
chmod 0755 "$tmp"
pids=()
installed=""
cleanup() {
        local pid
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
        wait 2>/dev/null || true
        if [ -n "$installed" ]; then
                echo "cleanup: purging the packages after a failure" >&2
                DEBIAN_FRONTEND=noninteractive apt-get purge -y -q python3-rdmad rdmad-exporter rdmad >/dev/null 2>&1 ||
                        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q rdmad-exporter rdmad >/dev/null 2>&1 || true
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT

# 1. Build, from the tracked files only (no build directory, no .git), with
# the system's tools only (pybuild runs "python3": Debian's, not a pyenv's).
# RDMAD_DEBS=DIR: the packages were built so already, from this tree (make
# check-systemd's, with their .changes): those are checked, not built again.
pkgs=${RDMAD_DEBS:-}
if [ -n "$pkgs" ]; then
        pkgs=$(cd "$pkgs" && pwd)
        echo "the packages of $pkgs (RDMAD_DEBS), built by dpkg-buildpackage -us -uc -b from this tree"
else
        pkgs=$tmp
        mkdir "$tmp/rdmad"
        git -C "$src" ls-files -z | (cd "$src" && tar --null -T - -c) | tar -x -C "$tmp/rdmad"
        echo "dpkg-buildpackage -us -uc -b (log: build.log)"
        (cd "$tmp/rdmad" && PATH=/usr/sbin:/usr/bin:/sbin:/bin nice dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 ||
                { tail -40 "$tmp/build.log" >&2; fail "dpkg-buildpackage"; }
fi
debs=$(cd "$pkgs" && ls rdmad_*.deb rdmad-exporter_*.deb python3-rdmad_*.deb)
[ "$(echo "$debs" | wc -l)" = 3 ] || fail "expected three binary packages, got: $debs"
lintian -I --allow-root --fail-on error "$pkgs"/rdmad_*.changes >"$tmp/lintian.log" 2>&1 ||
        { cat "$tmp/lintian.log" >&2; fail "lintian reports errors"; }
echo "lintian: no error ($(grep -c '^W:' "$tmp/lintian.log" || true) warnings, $(grep -c '^I:' "$tmp/lintian.log" || true) info)"

# 2. Install.
units_enabled() {
        find /etc/systemd/system -type l -printf '%P -> %l\n' 2>/dev/null | sort
}
units_enabled >"$tmp/units.before"
user_before=$(getent passwd rdmad || true)
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$pkgs"/rdmad_*.deb \
        "$pkgs"/rdmad-exporter_*.deb "$pkgs"/python3-rdmad_*.deb >"$tmp/install.log" 2>&1 || { tail -30 "$tmp/install.log" >&2; fail "apt-get install"; }
dpkg -L rdmad rdmad-exporter python3-rdmad | sort -u >"$tmp/files"
getent passwd rdmad >/dev/null || fail "no user rdmad after installation (systemd-sysusers)"
getent group rdmad >/dev/null || fail "no group rdmad after installation"
[ -z "$user_before" ] || [ "$(getent passwd rdmad)" = "$user_before" ] || fail "the user rdmad changed"
echo "user: $(getent passwd rdmad)"

unit_paths=$(systemd-analyze unit-paths 2>/dev/null || echo /lib/systemd/system /usr/lib/systemd/system)
policy_dirs=$(sed -n 's|.*<includedir>\(.*\)</includedir>.*|\1|p' /usr/share/dbus-1/system.conf |
        sed 's|^\([^/]\)|/usr/share/dbus-1/\1|')
# udev (systemd 252): these; sysusers and the bash completion from their own .pc files.
rules_dirs="/etc/udev/rules.d /run/udev/rules.d /usr/local/lib/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d"
sysusers_dir=$(pkg-config --variable=sysusersdir systemd)
completions_dir=$(pkg-config --variable=completionsdir bash-completion)
in_list() {
        local d=$1 x
        shift
        for x in "$@"; do [ "$d" = "$x" ] && return 0; done
        return 1
}
n=0
need="unit policy service action rule sysusers man completion exporter-socket python typed"
python_path=$(/usr/bin/python3 -c 'import sys; print(" ".join(p for p in sys.path if p))')
while read -r f; do
        [ -f "$f" ] || continue # directories
        dir=$(dirname "$f")
        case $f in
        /usr/sbin/rdmad | /usr/bin/rdmactl | /usr/bin/rdmad-exporter) ;;
        */systemd/system/rdmad-exporter.socket)
                in_list "$dir" $unit_paths || fail "$f: systemd does not read $dir"
                need=${need/exporter-socket/} ;;
        */systemd/system/*.service)
                in_list "$dir" $unit_paths || fail "$f: systemd does not read $dir"
                need=${need/unit/} ;;
        */dbus-1/system.d/*)
                in_list "$dir" $policy_dirs || fail "$f: dbus-daemon does not read $dir ($policy_dirs)"
                need=${need/policy/} ;;
        */dbus-1/system-services/*)
                [ "$dir" = /usr/share/dbus-1/system-services ] || fail "$f: dbus-daemon activates from /usr/share/dbus-1/system-services"
                need=${need/service/} ;;
        /usr/share/dbus-1/interfaces/*.xml) ;;
        */polkit-1/actions/*)
                [ "$dir" = /usr/share/polkit-1/actions ] || fail "$f: polkitd reads only /usr/share/polkit-1/actions"
                need=${need/action/} ;;
        */rules.d/*.rules)
                in_list "$dir" $rules_dirs || fail "$f: udev does not read $dir"
                need=${need/rule/} ;;
        */sysusers.d/*)
                [ "$dir" = "$sysusers_dir" ] || fail "$f: systemd-sysusers reads $sysusers_dir"
                need=${need/sysusers/} ;;
        /usr/share/man/man[158]/*.gz)
                need=${need/man/} ;;
        */bash-completion/completions/*)
                [ "$dir" = "$completions_dir" ] || fail "$f: bash-completion reads $completions_dir"
                need=${need/completion/} ;;
        /usr/lib/python3/dist-packages/rdmad/*.py)
                in_list "$dir" $(for d in $python_path; do echo "$d/rdmad"; done) ||
                        fail "$f: python3 does not import from $(dirname "$dir")"
                need=${need/python/} ;;
        /usr/lib/python3/dist-packages/rdmad/py.typed) # PEP 561: type checkers read the annotations
                need=${need/typed/} ;;
        /usr/lib/python3/dist-packages/rdmad-*.dist-info/*) ;;
        /usr/share/doc/rdmad/* | /usr/share/doc/rdmad-exporter/* | /usr/share/doc/python3-rdmad/*) ;;
        *) fail "$f: not a place this test knows to check" ;;
        esac
        n=$((n + 1))
done <"$tmp/files"
[ -z "${need// /}" ] || fail "no file of these kinds installed: $need"
for m in rdmad.8 org.rdmad1.5 rdmactl.1 rdmad-exporter.8; do
        man -w "${m%.*}" >/dev/null 2>&1 || fail "man does not find $m"
done
echo "$n files, each where dbus-daemon, polkitd, systemd, udev, man, bash-completion and python3 read it: ok"

alias=/etc/systemd/system/dbus-org.rdmad1.service
[ -L "$alias" ] || fail "rdmad.service is not enabled: no $alias for D-Bus activation"
[ -f "$(readlink -f "$alias")" ] && grep -qx "ExecStart=/usr/sbin/rdmad" "$(readlink -f "$alias")" ||
        fail "$alias does not lead to the installed rdmad.service"
units_enabled >"$tmp/units.after"
new_units=$(comm -13 "$tmp/units.before" "$tmp/units.after")
[ "$new_units" = "dbus-org.rdmad1.service -> $(readlink "$alias")" ] ||
        fail "installation enabled more than rdmad.service's alias: $new_units"
echo "enabled: rdmad.service (alias dbus-org.rdmad1.service); not enabled: rdmad-exporter.socket: ok"
running() { # the processes of an installed binary, whoever started them
        local p
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/exe" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
        done
        return 0
}
[ -z "$(running /usr/sbin/rdmad)$(running /usr/bin/rdmad-exporter)" ] || fail "installation started rdmad or the exporter"
echo "nothing started: ok"

# 3. The installed rdmad, as the installed user, on a simulated host. The
# bus: the host's system.conf as it is, but for what only the boot-time
# bus does (fork, pidfile, user, syslog) and its address.
sock=$tmp/system_bus_socket
sed -e "s|<listen>.*</listen>|<listen>unix:path=$sock</listen>|" \
    -e '/<fork\/>/d' -e '/<pidfile>/d' -e '/<user>/d' -e '/<syslog\/>/d' \
    -e 's|<includedir>system.d</includedir>|<includedir>/usr/share/dbus-1/system.d</includedir>|' \
    /usr/share/dbus-1/system.conf >"$tmp/system.conf"
grep -q "<includedir>/usr/share/dbus-1/system.d</includedir>" "$tmp/system.conf" || fail "system.conf has no system.d"
dbus-daemon --nofork --nopidfile --config-file="$tmp/system.conf" >"$tmp/dbus.log" 2>&1 &
pids+=($!)
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$sock SYSTEMD_DEVICE_VERIFY_SYSFS=0
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
chmod 0666 "$sock"

mkfifo "$tmp/tb.in" "$tmp/tb.out"
LD_PRELOAD=libumockdev-preload.so.0 "$src/tools/testbed.py" "$src/tests/data/mlx5-roce-sriov.umockdev" \
        "$src/tests/data/hfi1.umockdev" <"$tmp/tb.in" >"$tmp/tb.out" 2>"$tmp/testbed.log" &
pids+=($!)
exec {tb_in}>"$tmp/tb.in" {tb_out}<"$tmp/tb.out"
read -r testbed <&"$tb_out" || { cat "$tmp/testbed.log" >&2; fail "the testbed did not start"; }
chgrp -R rdmad "$testbed" && chmod -R g+rwX "$testbed"
UMOCKDEV_DIR=$testbed setpriv --reuid=rdmad --regid=rdmad --clear-groups \
        umockdev-wrapper /usr/sbin/rdmad --poll-interval=0 >"$tmp/rdmad.log" 2>&1 {tb_in}>&- {tb_out}<&- &
rdmad_pid=$!
pids+=($rdmad_pid)
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
up=""
for _ in $(seq 200); do
        as_nobody busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s \
                org.rdmad1 2>/dev/null | grep -q true && { up=1; break; }
        kill -0 "$rdmad_pid" 2>/dev/null || break
        sleep 0.05
done
[ -n "$up" ] || { cat "$tmp/rdmad.log" >&2; fail "the installed rdmad did not come up on the bus as rdmad"; }
owner=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetConnectionUnixUser s \
        org.rdmad1 | awk '{print $2}')
[ "$owner" = "$(id -u rdmad)" ] || fail "org.rdmad1 is owned by uid $owner, not rdmad"
list=$(cd / && as_nobody /usr/bin/rdmactl list 2>&1) || { echo "$list" >&2; fail "rdmactl list as nobody"; }
echo "$list" | grep -q "^mlx5_0 " || { echo "$list" >&2; fail "rdmactl list does not show mlx5_0"; }
echo "$list" | grep -q "^hfi1_0 " || { echo "$list" >&2; fail "rdmactl list does not show hfi1_0"; }
echo "installed rdmad as user rdmad on the host's policy; rdmactl list as nobody:"
echo "$list" | sed 's/^/  /'
# The host's policy refuses nobody what changes the machine (no polkitd here).
if out=$(cd / && as_nobody /usr/bin/rdmactl set-vfs mlx5_0 2 2>&1); then
        fail "rdmactl set-vfs as nobody succeeded: $out"
fi
echo "rdmactl set-vfs as nobody: refused ($out)"
# python3-rdmad, installed, as nobody: both APIs against the installed rdmad.
py=$(cd / && as_nobody /usr/bin/python3 -c '
import rdmad, rdmad.client
from rdmad import sts as rdma
assert rdmad.__file__.startswith("/usr/lib/python3/dist-packages/"), rdmad.__file__
c = rdmad.client.Client()
port = rdma.RdmaDevice("mlx5_0").get_port("1")
print(rdmad.__file__, c.device_names(), c.port("hfi1_0/1").rate_speed, port.state, port.rate_info)
try:
    c.set_num_vfs("mlx5_0", 2)
    print("set_num_vfs allowed")
except rdmad.AccessDenied:
    print("set_num_vfs refused")
' 2>&1) || { echo "$py" >&2; fail "python3-rdmad as nobody"; }
[ "$py" = "/usr/lib/python3/dist-packages/rdmad/__init__.py ['hfi1_0', 'mlx5_0', 'mlx5_1'] 100.0 4: ACTIVE 1X EDR
set_num_vfs refused" ] || { echo "$py" >&2; fail "python3-rdmad's answers"; }
echo "python3-rdmad as nobody: $py" | tr '\n' ' '; echo
kill "$rdmad_pid"
wait "$rdmad_pid" || fail "rdmad did not exit 0 on SIGTERM"
exec {tb_in}>&- {tb_out}<&-
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
unset DBUS_SYSTEM_BUS_ADDRESS

# 4. Remove, then purge. A link history as systemd's StateDirectory=rdmad
# would hold it: kept on removal (data), gone on purge (debian/rdmad.postrm).
mkdir -p /var/lib/rdmad
echo test >/var/lib/rdmad/link-history.port.test.1
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q python3-rdmad rdmad-exporter rdmad >"$tmp/remove.log" 2>&1 ||
        { tail -20 "$tmp/remove.log" >&2; fail "apt-get remove"; }
[ -e /var/lib/rdmad/link-history.port.test.1 ] || fail "remove deleted the link histories (only purge may)"
# (python3-rdmad has no conffiles: removed, dpkg has forgotten it.)
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q rdmad-exporter rdmad >"$tmp/purge.log" 2>&1 ||
        { tail -20 "$tmp/purge.log" >&2; fail "apt-get purge"; }
installed=""
while read -r f; do
        [ -d "$f" ] && continue # shared directories (/usr/bin ...)
        [ -e "$f" ] || [ -L "$f" ] && fail "left after purge: $f"
done <"$tmp/files"
[ ! -e /var/lib/rdmad ] || fail "purge left /var/lib/rdmad"
units_enabled >"$tmp/units.purged"
cmp -s "$tmp/units.before" "$tmp/units.purged" || fail "unit symlinks left: $(comm -13 "$tmp/units.before" "$tmp/units.purged")"
! ls /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | grep -q rdmad ||
        fail "deb-systemd-helper still records rdmad: $(find /var/lib/systemd/deb-systemd-helper-enabled -name '*rdmad*')"
for p in rdmad rdmad-exporter python3-rdmad; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        case $st in "" | *" not-installed") ;; *) fail "dpkg still records $p: $st" ;; esac
done
getent passwd rdmad >/dev/null || fail "purge removed the user rdmad (Debian keeps system users)"
echo "removed and purged: no file, unit symlink or dpkg record left; the user rdmad stays: ok"
echo "1 passed, 0 failed"
