#!/bin/bash
# rdmad-wait-online.service and its template as `meson install` lays them
# out: systemd-analyze verify clean, ordered before network-online.target
# and wanted by it, the conflicts of a wait-online unit, and the template's
# instance mapping back to the name rdmactl takes.
set -euo pipefail
build=$1
dest=$(mktemp -d /tmp/rdmad-wait-online-XXXXXX)
trap 'rm -rf "$dest"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c \
        'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
units=$dest$prefix/lib/systemd/system
[ -f "$units/rdmad-wait-online.service" ] || fail "rdmad-wait-online.service not installed"
[ -f "$units/rdmad-wait-online@.service" ] || fail "rdmad-wait-online@.service not installed"
[ -f "$dest$prefix/share/man/man8/rdmad-wait-online.service.8" ] || fail "its man page not installed"

# The value of a key in a unit file (the last one wins, as in systemd).
value() { sed -n "s/^$2=//p" "$1" | tail -n 1; }
check() { # unit key expected
        local got
        got=$(value "$1" "$2")
        [ "$got" = "$3" ] || fail "$(basename "$1"): $2=$got, expected $3"
}

for unit in rdmad-wait-online.service rdmad-wait-online@.service; do
        f=$units/$unit
        check "$f" Type oneshot
        check "$f" RemainAfterExit yes
        check "$f" DefaultDependencies no
        check "$f" Conflicts shutdown.target
        check "$f" WantedBy network-online.target
        check "$f" Wants rdmad.service
        [[ " $(value "$f" Before) " == *" network-online.target "* ]] || fail "$unit: not Before=network-online.target"
        [[ " $(value "$f" Before) " == *" shutdown.target "* ]] || fail "$unit: not Before=shutdown.target"
        [[ " $(value "$f" After) " == *" rdmad.service "* ]] || fail "$unit: not After=rdmad.service"
        exec=$(value "$f" ExecStart)
        [[ $exec == "$prefix/bin/rdmactl wait --quiet "* ]] || fail "$unit: ExecStart=$exec"
        [[ $exec == *" --timeout="* ]] || fail "$unit: no --timeout"
done
check "$units/rdmad-wait-online.service" ExecStart "$prefix/bin/rdmactl wait --quiet --timeout=2min"
# %I, not %i: the instance is systemd-escape'd, rdmactl wants it back.
[[ $(value "$units/rdmad-wait-online@.service" ExecStart) == *" %I" ]] || fail "the template does not pass %I"
[ "$(systemd-escape --template=rdmad-wait-online@.service mlx5_0/1)" = "rdmad-wait-online@mlx5_0-1.service" ] ||
        fail "systemd-escape names mlx5_0/1 otherwise"
[ "$(systemd-escape --unescape mlx5_0-1)" = "mlx5_0/1" ] || fail "%I of mlx5_0-1 is not mlx5_0/1"

# verify needs the binaries where ExecStart says, and the units they name: all into the destdir.
mkdir "$dest/verify"
for unit in rdmad.service rdmad-wait-online.service; do
        sed "s|^ExecStart=$prefix/|ExecStart=$dest$prefix/|" "$units/$unit" > "$dest/verify/$unit"
done
sed "s|^ExecStart=$prefix/|ExecStart=$dest$prefix/|" "$units/rdmad-wait-online@.service" \
        > "$dest/verify/rdmad-wait-online@.service"
cp "$dest/verify/rdmad-wait-online@.service" "$dest/verify/rdmad-wait-online@mlx5_0-1.service"
out=$(cd "$dest/verify" && SYSTEMD_UNIT_PATH="$dest/verify:" systemd-analyze verify --man=no \
        rdmad-wait-online.service rdmad-wait-online@mlx5_0-1.service 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify: $out"
echo "systemd-analyze verify: ok"
echo "ordering: Before=network-online.target, WantedBy=network-online.target: ok"
