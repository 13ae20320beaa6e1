#!/usr/bin/env bash
# End-to-end latency benchmark (run by hand, not part of `make test`): one
# node, samsa perf e2e producing 1 KiB records at 10,000 records/s with
# linger.ms=0 to a 1-partition topic while its consumer reads them; prints
# the produce-to-receive latency percentiles [p99 < 2 ms].
#
# Usage: bench/latency_bench.sh [records] [records/s] (default 100000 at 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
RATE=${2:-10000}
source bench/bench_lib.sh latency-bench

start_node
"$SAMSA" topics --bootstrap-server "$bs" --create --topic lat --partitions 1 --replication-factor 1 >/dev/null
j=$("$SAMSA" perf e2e --bootstrap-server "$bs" --topic lat --num-records "$N" --record-size 1024 \
  --throughput "$RATE" --producer-props linger.ms=0 acks=1 --consumer-props fetch.wait.max.ms=100 \
  --json 2>/dev/null | tail -1)
/usr/bin/python3 - "$j" "$N" "$RATE" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
l = j["latency_ms"]
print(f"== {sys.argv[2]} records of 1 KiB at {sys.argv[3]} records/s, produce to receive, 1 node")
print(f"received {j['received']} of {j['records']}")
print(f"p50 {l['p50']:.2f} ms  p95 {l['p95']:.2f} ms  p99.9 {l['p99_9']:.2f} ms  max {l['max']:.2f} ms")
print(f"p99 end-to-end latency: {l['p99']:.2f} ms  [< 2]")
PY
