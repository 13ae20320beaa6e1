#!/usr/bin/env bash
# Durable acks benchmark (run by hand, not part of `make test`; issue #21): on
# a one-node cluster, P producers (samsa perf produce, librdkafka) at once,
# acks=all, records of SIZE bytes, spread over the P partitions of a topic
#   * with the default flush policy (acknowledged from the page cache);
#   * with flush.messages=1 (each acknowledgement waits for fdatasync; one
#     flush covers every append that arrived while the last one ran: group
#     commit across producers and partitions);
# in one run on this machine, and prints the aggregate records/s, the worst
# producer's p99, and the ratios durable / page cache.
#
# Usage: bench/durable_bench.sh [records per producer] [producers] [record size]
#        (default 100000 x 8 x 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
P=${2:-8}
SIZE=${3:-1024}
source bench/bench_lib.sh durable-bench

start_node

# run TOPIC -> one JSON line per producer in $work/TOPIC-*.json, all at once
run() {
  local topic=$1 i
  local -a running=()
  for i in $(seq 0 $((P - 1))); do
    "$SAMSA" perf produce --bootstrap-server "$bs" --topic "$topic" --num-records "$N" \
      --record-size "$SIZE" --throughput -1 --producer-props acks=all linger.ms=1 \
      batch.size=262144 --json 2>/dev/null | tail -1 \
      >"$work/$topic-$i.json" &
    running+=("$!")
  done
  wait "${running[@]}"
}

"$SAMSA" topics --bootstrap-server "$bs" --create --topic cached --partitions "$P" \
  --replication-factor 1 >/dev/null
"$SAMSA" topics --bootstrap-server "$bs" --create --topic durable --partitions "$P" \
  --replication-factor 1 --config flush.messages=1 >/dev/null
start=$(date +%s%N); run cached; cached_ns=$(( $(date +%s%N) - start ))
start=$(date +%s%N); run durable; durable_ns=$(( $(date +%s%N) - start ))

/usr/bin/python3 - "$work" "$P" "$N" "$SIZE" "$cached_ns" "$durable_ns" <<'PY'
import glob, json, sys
work, p, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cached_s, durable_s = int(sys.argv[5]) / 1e9, int(sys.argv[6]) / 1e9
def load(topic):
    return [json.loads(open(f).read()) for f in sorted(glob.glob(f"{work}/{topic}-*.json"))]
print(f"== {p} producers x {n} records of {size} B, acks=all, one node, samsa perf produce")
res = {}
for topic, secs in (("cached", cached_s), ("durable", durable_s)):
    runs = load(topic)
    assert len(runs) == p, f"{topic}: {len(runs)} of {p} producers reported"
    rate = p * n / secs
    p99 = max(r["latency_ms"]["p99"] for r in runs)
    p50 = sorted(r["latency_ms"]["p50"] for r in runs)[p // 2]
    res[topic] = (rate, p99)
    name = "page cache       " if topic == "cached" else "flush.messages=1 "
    print(f"{name} {rate:>10.0f} rec/s {rate * int(size) / 1e6:>8.1f} MB/s  "
          f"median p50 {p50:7.2f} ms  worst p99 {p99:7.2f} ms  ({secs:.1f} s)")
print(f"throughput ratio (durable / page cache): {res['durable'][0] / res['cached'][0]:.2f}")
print(f"p99 latency ratio (durable / page cache): {res['durable'][1] / res['cached'][1]:.2f}")
PY
