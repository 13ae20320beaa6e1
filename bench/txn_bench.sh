#!/usr/bin/env bash
# Transactions benchmark (run by hand, not part of `make test`): in one run, on
# one one-node broker, samsa perf produce of 1 KiB records with acks=all
#   * without transactions (idempotent), then
#   * in transactions of 100 ms (--transactional-id --transaction-duration-ms 100),
# alternating the two three times, and print records/s of each and the ratio of
# the medians (the target: transactional >= 0.8 x plain).
#
# Usage: bench/txn_bench.sh [records] [record size] (default 300000 x 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-300000}
SIZE=${2:-1024}
source bench/bench_lib.sh txn-bench
start_node
"$SAMSA" topics --bootstrap-server "$bs" --create --topic plain --partitions 1 >/dev/null
"$SAMSA" topics --bootstrap-server "$bs" --create --topic txn --partitions 1 >/dev/null

produce() { # topic extra-args... -> json
  local topic=$1; shift
  "$SAMSA" perf produce --bootstrap-server "$bs" --topic "$topic" --num-records "$N" \
    --record-size "$SIZE" --throughput -1 --producer-props acks=all enable.idempotence=true \
    linger.ms=5 batch.size=1048576 --json "$@" 2>/dev/null | tail -1
}

results=()
for round in 1 2 3; do
  results+=("plain $(produce plain)")
  results+=("txn $(produce txn --transactional-id "bench-$round" --transaction-duration-ms 100)")
done

/usr/bin/python3 - "${results[@]}" <<'PY'
import json, statistics, sys
runs = {"plain": [], "txn": []}
for arg in sys.argv[1:]:
    kind, blob = arg.split(" ", 1)
    runs[kind].append(json.loads(blob))
for kind, rs in runs.items():
    print(f"{kind:5} records/s: " + ", ".join(f"{r['records_per_sec']:.0f}" for r in rs) +
          (f"  transactions: {[r.get('transactions') for r in rs]}" if kind == "txn" else ""))
plain = statistics.median(r["records_per_sec"] for r in runs["plain"])
txn = statistics.median(r["records_per_sec"] for r in runs["txn"])
print(f"median ratio transactional / plain: {txn / plain:.2f}")
PY
