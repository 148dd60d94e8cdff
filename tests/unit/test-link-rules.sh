#!/bin/bash
# The one link rule a link check cannot see: libsystemd, which the readers,
# the model and the event sources link for sd-event, holds sd-bus too, so a call to
# sd_bus_*() declared by hand (past no-sd-bus.h's poison) would link. Their
# static libraries (the arguments) must not reference any sd-bus symbol.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 LIBREADERS LIBMODEL LIBSOURCES" >&2; exit 2; }
fail=0
for lib in "$@"; do
        [ -f "$lib" ] || { echo "FAIL: $lib is not built" >&2; exit 1; }
        refs=$(nm -u "$lib" | awk '$2 ~ /^sd_bus_/ { print $2 }' | sort -u)
        if [ -n "$refs" ]; then
                echo "FAIL: $lib calls the bus: $(echo $refs)" >&2
                fail=1
        else
                echo "$lib: no sd-bus symbol ($(nm -u "$lib" | awk '$2 ~ /^sd_event_/' | sort -u | wc -l) of sd-event)"
        fi
done
exit $fail
