#!/bin/sh
# make bench-baseline BASELINE=REV [BENCH_ARGS=N]: this build's rdmad beside
# rdmad built at REV, in turns on the same hosts in one run, so that the
# load of the moment weighs on both: start → READY, GetManagedObjects, a
# property Get against its floor, and the verbs figures (IB change →
# PropertiesChanged p99, idle CPU and sysfs opens at native speed).
set -eu
rev=${1:?usage: bench-baseline.sh REV BUILD [N]}
build=${2:?usage: bench-baseline.sh REV BUILD [N]}
n=${3:-2048}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmad-baseline-XXXXXX")
cleanup() {
        git -C "$root" worktree remove --force "$work/src" 2>/dev/null || true
        rm -rf "$work"
}
trap cleanup EXIT
git -C "$root" worktree add --quiet --detach "$work/src" "$rev"
meson setup "$work/build" "$work/src" -Dtests=false -Dexporter=disabled >/dev/null
meson compile -C "$work/build" daemon/rdmad >/dev/null
# The harness runs rdmad as its user: the copy must be reachable by it.
chmod 0755 "$work"
echo "Baseline: $(git -C "$root" log -1 --format='%h %s' "$rev")"
echo "This:     $(git -C "$root" log -1 --format='%h %s') $(git -C "$root" diff --quiet || echo '(with changes)')"
echo "Load: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$root/$build"
for mode in --start-only --gmo-only --get-only --verbs; do
        BENCH_BASELINE_BINARY="$work/build/daemon/rdmad" RDMAD_BINARY="$root/$build/daemon/rdmad" \
                SYSTEMD_DEVICE_VERIFY_SYSFS=0 LD_PRELOAD=libumockdev-preload.so.0 \
                ./bench/bench $mode "$n"
done
echo "Load: $(cut -d' ' -f1-3 /proc/loadavg)"
