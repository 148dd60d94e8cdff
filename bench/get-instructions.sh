#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per property Get of rdmad and of its floor (bench-floor), by
# callgrind, each daemon counting only inside sd_event_run(): `bench
# --get-only N` once with 200 Gets of each and once with 2000, and the
# difference over 1800, so that start-up's loop work drops out. Instructions
# do not move with the machine's load, as the times do. rdmad gets
# --read-timeout=0: under valgrind a big host's start-up reads outlast the
# default 5 s, and devices declared unresponsive would not be published.
#
#   bench/get-instructions.sh BUILD_DIR N     (N = 64 takes a minute, 2048 several)
set -eu
build=$(cd "$1" && pwd)
n=$2
dir=$(mktemp -d /tmp/rdmad-get-instructions-XXXXXX)
chmod 1777 "$dir" # the daemon runs as its own user and writes here
cat > "$dir/wrap" <<'WRAP'
#!/bin/sh
out=$1
shift
extra=
case "$1" in */rdmad) extra=--read-timeout=0 ;; esac
exec valgrind --tool=callgrind --collect-atstart=no --toggle-collect=sd_event_run \
        --callgrind-out-file="$out/callgrind.out.%p" "$@" $extra
WRAP
chmod 755 "$dir/wrap"

# The total of one daemon's runs in a directory: rdmad's or the floor's.
total() {
        for f in "$1"/callgrind.out.*; do
                if grep -q '^cmd:.*bench-floor' "$f"; then kind=floor; else kind=rdmad; fi
                [ "$kind" = "$2" ] && sed -n 's/^\(summary\|totals\): *//p' "$f" | head -n 1
        done | awk '{ s += $1 } END { print s + 0 }'
}

for mode in quick full; do
        mkdir -m 1777 "$dir/$mode"
        quick=--quick
        [ "$mode" = full ] && quick=
        (cd "$build" && RDMAD_TEST_WRAPPER="$dir/wrap $dir/$mode" RDMAD_BINARY="$build/daemon/rdmad" \
                SYSTEMD_DEVICE_VERIFY_SYSFS=0 LD_PRELOAD=libumockdev-preload.so.0 \
                ./bench/bench $quick --get-only "$n" > "$dir/$mode/bench.out" 2>&1) ||
                { echo "bench --get-only $n failed: $dir/$mode/bench.out" >&2; exit 1; }
done
rdmad=$(( ($(total "$dir/full" rdmad) - $(total "$dir/quick" rdmad)) / 1800 ))
floor=$(( ($(total "$dir/full" floor) - $(total "$dir/quick" floor)) / 1800 ))
echo "N = $n: instructions per Get: rdmad $rdmad, floor $floor, $(awk "BEGIN { printf \"%.2f\", $rdmad / $floor }")× the floor"
echo "callgrind outputs: $dir (callgrind_annotate --inclusive=yes FILE)"
