#!/usr/bin/env bash
# Runs every test suite and prints one closing line: "N passed, N failed".
#   unit        ctest (GoogleTest binaries, one per room; generator freshness)
#   integration pytest against real samsa processes (tests/integration)
#   clients     pytest with clients beside Debian's librdkafka (tests/clients):
#               kafka-python, sarama, kafkajs, and librdkafka 2.15.1 for KIP-848
#               consumer groups (scripts/setup-clients.sh)
#   cluster     pytest multi-broker scenarios (tests/cluster), when present
#   faults      pytest quick fault runs in network namespaces (tests/faults)
#   fuzz        a short run of every libFuzzer target (scripts/run-fuzz.sh)
# Usage: scripts/run-tests.sh [build-dir]
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

passed=0
failed=0

# --- unit tests (ctest): count from its JUnit report. A binary that runs as
# one ctest entry (CMakeLists.txt, SAMSA_WHOLE_BINARY_ROOMS) counts by its
# GoogleTest report instead; without one (it crashed) the entry counts as failed.
rm -rf "$build_dir/gtest-reports"
(cd "$build_dir" && ctest --output-on-failure -j "$(nproc)" --timeout 600 \
    --output-junit "$results/ctest.xml") || true
if [ -f "$results/ctest.xml" ]; then
    read -r t f s < <(/usr/bin/python3 - "$results/ctest.xml" "$build_dir/gtest-reports" <<'PY'
import os, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
sk = sum(int(s.get("skipped", 0)) for s in suites)
# A test binary that did not build shows up as a skipped "<name>_NOT_BUILT" test.
nb = sum(1 for s in suites for c in s.iter("testcase") if c.get("name", "").endswith("_NOT_BUILT"))
f += nb
sk -= nb
reports = sys.argv[2]
names = {c.get("name"): c for s in suites for c in s.iter("testcase")}
for fn in sorted(os.listdir(reports)) if os.path.isdir(reports) else []:
    entry = names.get(fn[:-len(".xml")])
    if entry is None:
        continue
    g = ET.parse(os.path.join(reports, fn)).getroot()
    gt, gf = int(g.get("tests", 0)), int(g.get("failures", 0)) + int(g.get("errors", 0))
    gd = int(g.get("disabled", 0)) + int(g.get("skipped", 0))
    # The binary's own tests replace its one ctest entry.
    entry_failed = entry.find("failure") is not None or entry.get("status") == "fail"
    t += gt - 1
    f += gf - (1 if entry_failed else 0)
    if entry_failed and gf == 0:
        f += 1  # it failed outside any test (a crash at exit, a leak check)
    sk += gd
print(t, f, sk)
PY
)
    passed=$((passed + t - f - s))
    failed=$((failed + f))
else
    echo "run-tests: ctest produced no report" >&2
    failed=$((failed + 1))
fi

# --- integration, client and cluster tests (pytest with Debian's python3).
export SAMSA_BIN="$(cd "$build_dir" && pwd)/samsa"
export SAMSA_CLIENTS_DIR="$(cd "$build_dir" && pwd)/clients"
# Screenshots and other files tests keep (the console's, tests/integration/test_console.py).
export SAMSA_ARTIFACTS_DIR="$(cd "$build_dir" && pwd)/test-artifacts"
for suite in tests/integration tests/clients tests/cluster tests/faults; do
    ls "$suite"/test_*.py >/dev/null 2>&1 || continue
    name=$(basename "$suite")
    /usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml="$results/$name.xml" "$suite"
    code=$?
    if [ -f "$results/$name.xml" ]; then
        read -r t f s < <(/usr/bin/python3 - "$results/$name.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
sk = sum(int(s.get("skipped", 0)) for s in suites)
print(t, f, sk)
PY
)
        passed=$((passed + t - f - s))
        failed=$((failed + f))
    fi
    # pytest exit codes 2-4 (interrupted, internal error, usage) mean tests did not run.
    if [ "$code" -ge 2 ] && [ "$code" -le 4 ]; then
        echo "run-tests: pytest $suite exited with $code" >&2
        failed=$((failed + 1))
    fi
done

# --- fuzz smoke runs: each libFuzzer target for a few seconds (make fuzz-build).
fuzz_dir=${FUZZ_DIR:-build-fuzz}
if ls "$fuzz_dir"/fuzz_* >/dev/null 2>&1; then
    while read -r line; do
        echo "$line"
        case "$line" in
            "fuzz "*": ok"*) passed=$((passed + 1)) ;;
            "fuzz "*": FAILED"*) failed=$((failed + 1)) ;;
        esac
    done < <(scripts/run-fuzz.sh "$fuzz_dir" "${FUZZ_SMOKE_SECONDS:-5}")
else
    echo "run-tests: no fuzz targets in $fuzz_dir (make fuzz-build); fuzz smoke runs skipped" >&2
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
