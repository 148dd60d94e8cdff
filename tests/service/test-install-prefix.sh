#!/bin/bash
# The real-host recipe of docs/operating.md ("From source"), checked: a build directory of its own
# configured with --prefix=/usr -Dtests=false needs none of the test
# dependencies and builds no test, fuzzer or benchmark; `meson install` puts
# every file where Debian's dbus-daemon, polkitd, systemd and udev read it
# (the directories taken from their configuration and pkg-config files);
# and `systemctl enable rdmad` installs the dbus-org.rdmad1.service alias
# that D-Bus activation starts.
set -euo pipefail
src=$1
tmp=$(mktemp -d /tmp/rdmad-install-prefix-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The recipe in docs/operating.md is this one.
recipe=$src/docs/operating.md
setup="meson setup build-release --prefix=/usr -Dtests=false"
grep -qF "$setup" "$recipe" || fail "the recipe of docs/operating.md does not say: $setup"
grep -qF "systemctl enable --now rdmad" "$recipe" || fail "the recipe of docs/operating.md does not enable rdmad"

build=$tmp/build-release
dest=$tmp/dest
meson setup "$build" "$src" --prefix=/usr -Dtests=false >"$tmp/setup.log" 2>&1 ||
        { cat "$tmp/setup.log" >&2; fail "meson setup"; }
# No test dependency looked up, no test program among the targets.
if grep -nE "cmocka|umockdev|gio-2\.0|dbus-daemon|busctl" "$build/meson-logs/meson-log.txt" | grep -iE "dependency|program" >&2; then
        fail "-Dtests=false still looks for test dependencies"
fi
targets=$(meson introspect "$build" --targets | python3 -c 'import json,sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin))))')
for t in $targets; do
        case $t in
        rdmad | rdmactl | rdmad-basic | rdmad-api | rdmad-client | rdmad-readers | rdmad-model | rdmad-sources | rdmad-bus | rdmactl-core | rdmad-exporter | rdmad-exporter-core) ;;
        *) fail "-Dtests=false builds $t" ;;
        esac
done
echo "-Dtests=false: no test dependency, targets: $targets"

# The smallest build: libsystemd and libudev are all it requires; what else
# it looks up is optional (install directories, bash completion).
minimal=$tmp/build-minimal
meson setup "$minimal" "$src" --prefix=/usr -Dtests=false -Dexporter=disabled >"$tmp/setup-minimal.log" 2>&1 ||
        { cat "$tmp/setup-minimal.log" >&2; fail "meson setup -Dexporter=disabled"; }
for dep in $(sed -n 's/^Run-time dependency \([^ ]*\) found.*/\1/p' "$tmp/setup-minimal.log"); do
        case $dep in
        libsystemd | libudev | threads) ;;
        bash-completion | systemd | dbus-1 | polkit-gobject-1 | udev)
                grep -qE "dependency\('$dep', required : false\)" "$src"/*/meson.build ||
                        fail "-Dexporter=disabled requires $dep" ;;
        libibverbs) # the verbs feature, auto: without it the poll covers every port
                grep -qE "option\\('verbs', type : 'feature', value : 'auto'" "$src/meson_options.txt" ||
                        fail "-Dexporter=disabled requires $dep" ;;
        *) fail "-Dexporter=disabled looks up $dep" ;;
        esac
done
grep -q "Dependency libmicrohttpd skipped: feature exporter disabled" "$tmp/setup-minimal.log" ||
        fail "-Dexporter=disabled still looks for libmicrohttpd"
minimal_targets=$(meson introspect "$minimal" --targets | python3 -c 'import json,sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin))))')
[ "$minimal_targets" = "rdmactl rdmactl-core rdmad rdmad-api rdmad-basic rdmad-bus rdmad-client rdmad-model rdmad-readers rdmad-sources" ] ||
        fail "-Dexporter=disabled builds: $minimal_targets"
echo "-Dtests=false -Dexporter=disabled: requires libsystemd and libudev only, targets: $minimal_targets"
nice meson compile -C "$build" >"$tmp/compile.log" 2>&1 || { tail -30 "$tmp/compile.log" >&2; fail "meson compile"; }
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null

# Where the host's services read their files.
unit_path=$(pkg-config --variable=systemdsystemunitpath systemd)
sysusers_dir=$(pkg-config --variable=sysusersdir systemd)
tmpfiles_dir=$(pkg-config --variable=tmpfilesdir systemd)
# dbus-daemon: the <includedir>s of its system.conf (relative to it), and
# the standard system service directories (dbus-daemon(1)).
policy_dirs=$(sed -n 's|.*<includedir>\(.*\)</includedir>.*|\1|p' /usr/share/dbus-1/system.conf |
        sed 's|^\([^/]\)|/usr/share/dbus-1/\1|')
service_dirs="/usr/local/share/dbus-1/system-services /usr/share/dbus-1/system-services /lib/dbus-1/system-services"
[ "$(pkg-config --variable=system_bus_services_dir dbus-1)" = /usr/share/dbus-1/system-services ] ||
        fail "dbus-1.pc names another services directory"
# polkitd reads only this one.
actions_dir=/usr/share/polkit-1/actions
# udev (systemd 252): these, /lib only where /usr is not merged.
rules_dirs="/etc/udev/rules.d /run/udev/rules.d /usr/local/lib/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d"

in_list() { # DIR LIST...: DIR is one of LIST
        local d=$1 x
        shift
        for x in "$@"; do [ "$d" = "$x" ] && return 0; done
        return 1
}

found_unit="" found_policy="" found_service="" found_action="" found_rule=""
while read -r f; do
        dir=$(dirname "$f")
        case $f in
        /usr/sbin/rdmad | /usr/bin/rdmactl | /usr/bin/rdmad-exporter) ;;
        */systemd/system/rdmad.service)
                in_list "$dir" ${unit_path//:/ } || fail "$f: systemd does not read $dir ($unit_path)"
                found_unit=$f ;;
        */systemd/system/*.service | */systemd/system/*.socket)
                in_list "$dir" ${unit_path//:/ } || fail "$f: systemd does not read $dir ($unit_path)" ;;
        */dbus-1/system.d/*)
                in_list "$dir" $policy_dirs || fail "$f: dbus-daemon does not read $dir ($policy_dirs)"
                found_policy=$f ;;
        */dbus-1/system-services/*)
                in_list "$dir" $service_dirs || fail "$f: dbus-daemon does not read $dir"
                found_service=$f ;;
        */dbus-1/interfaces/*.xml)
                [ "$dir" = /usr/share/dbus-1/interfaces ] || fail "$f: not in /usr/share/dbus-1/interfaces" ;;
        */polkit-1/actions/*)
                [ "$dir" = "$actions_dir" ] || fail "$f: polkitd reads only $actions_dir"
                found_action=$f ;;
        */rules.d/*.rules)
                in_list "$dir" $rules_dirs || fail "$f: udev does not read $dir"
                found_rule=$f ;;
        */sysusers.d/*)
                [ "$dir" = "$sysusers_dir" ] || fail "$f: systemd-sysusers reads $sysusers_dir" ;;
        */tmpfiles.d/*)
                [ "$dir" = "$tmpfiles_dir" ] || fail "$f: systemd-tmpfiles reads $tmpfiles_dir" ;;
        /usr/share/man/man[158]/* | /usr/share/bash-completion/completions/*) ;;
        *) fail "$f: not a place this test knows to check" ;;
        esac
        echo "  $f"
done < <(cd "$dest" && find . -type f | sed 's|^\.||' | sort)
[ -n "$found_unit" ] && [ -n "$found_policy" ] && [ -n "$found_service" ] && [ -n "$found_action" ] &&
        [ -n "$found_rule" ] || fail "a file is missing: unit '$found_unit' policy '$found_policy' \
service '$found_service' action '$found_action' rule '$found_rule'"
[ -x "$dest/usr/sbin/rdmad" ] && [ -x "$dest/usr/bin/rdmactl" ] || fail "binaries not in /usr/sbin, /usr/bin"
echo "every file where Debian's dbus-daemon, polkitd, systemd and udev read it: ok"

grep -qx "ExecStart=/usr/sbin/rdmad" "$dest$found_unit" || fail "ExecStart is not /usr/sbin/rdmad"
grep -qx "Alias=dbus-org.rdmad1.service" "$dest$found_unit" || fail "no [Install] Alias=dbus-org.rdmad1.service"
grep -qx "SystemdService=dbus-org.rdmad1.service" "$dest$found_service" || fail "activation file: SystemdService="
grep -qx "Name=org.rdmad1" "$dest$found_service" || fail "activation file: Name="

# The enable step, offline on the installed tree: it is what makes the
# activation file's SystemdService= name a unit.
systemctl --root="$dest" enable rdmad.service >"$tmp/enable.log" 2>&1 || { cat "$tmp/enable.log" >&2; fail "systemctl enable"; }
alias=$dest/etc/systemd/system/dbus-org.rdmad1.service
[ -L "$alias" ] || fail "systemctl enable did not install dbus-org.rdmad1.service"
[ "$(readlink "$alias")" = "$found_unit" ] || fail "dbus-org.rdmad1.service points to $(readlink "$alias")"
echo "systemctl enable rdmad: dbus-org.rdmad1.service -> $found_unit: ok"
echo "1 passed, 0 failed"
