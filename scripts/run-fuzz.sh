#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build (make fuzz-build) for a while,
# each from its committed seed corpus (tests/fuzz/corpus/<target>/), and
# prints one line per target: "fuzz <target>: ok" or "fuzz <target>: FAILED".
# A crash, a leak, a sanitizer report, a timeout (one input over 10 s) or an
# out-of-memory (over 2 GiB) fails the target; its reproducer and log are kept
# under the fuzz build dir (fuzz-artifacts/).
# Usage: scripts/run-fuzz.sh [fuzz-build-dir] [seconds-per-target]
#   make test runs each target for a few seconds so that none rots;
#   a long run: make fuzz FUZZ_SECONDS=1800
set -uo pipefail
cd "$(dirname "$0")/.."
fuzz_dir=${1:-build-fuzz}
seconds=${2:-5}
artifacts="$fuzz_dir/fuzz-artifacts"
mkdir -p "$artifacts"
status=0
shopt -s nullglob
targets=("$fuzz_dir"/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
    echo "run-fuzz: no fuzz targets in $fuzz_dir (make fuzz-build)" >&2
    exit 1
fi
for bin in "${targets[@]}"; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    seeds="tests/fuzz/corpus/$name"
    work=$(mktemp -d)
    [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/
    log="$artifacts/$name.log"
    # Leak checking stays on; inputs are bounded so that one cannot take long.
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
        -artifact_prefix="$artifacts/$name-" -print_final_stats=1 "$work" >"$log" 2>&1
    code=$?
    rm -rf "$work"
    if [ "$code" -eq 0 ]; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
        echo "fuzz $name: ok (${runs:-?} inputs in ${seconds}s)"
    else
        echo "fuzz $name: FAILED (exit $code); log: $log"
        grep -m 20 -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | sed 's/^/    /'
        status=1
    fi
done
exit $status
