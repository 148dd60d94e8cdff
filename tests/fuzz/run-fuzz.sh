#!/bin/sh
# run-fuzz.sh TARGET CORPUS: fuzzes TARGET for $FUZZ_SECONDS (default 30)
# starting from the seed corpus, which stays untouched (new inputs go to a
# scratch copy). A crash fails the test; libFuzzer writes the input to
# fuzz-artifacts/ in the build directory: fix the bug, then add the input
# to CORPUS as a regression test.
set -eu
target=$1
corpus=$2
seconds=${FUZZ_SECONDS:-30}
name=$(basename "$target")
artifacts=$(dirname "$target")/fuzz-artifacts/$name
scratch=$(mktemp -d "/tmp/$name-corpus-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$artifacts"

"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$scratch" "$corpus" 2>"$scratch.log" || {
        status=$?
        tail -n 60 "$scratch.log"
        rm -f "$scratch.log"
        echo "$name: libFuzzer found a failure (exit $status); inputs in $artifacts" >&2
        exit 1
}
# The figures: executions, coverage, corpus.
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done |stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added' "$scratch.log" || true
echo "$name: $(ls "$scratch" | wc -l) inputs in the working corpus after ${seconds} s, no failure"
rm -f "$scratch.log"
