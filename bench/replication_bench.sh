#!/usr/bin/env bash
# Replication benchmark (run by hand, not part of `make test`): in one run on this
# machine, produce with samsa perf produce
#   * acks=1 to a 1-partition topic with replication factor 1 on a one-node cluster;
#   * acks=all to a 1-partition topic with replication factor 3 on a three-node
#     cluster (every node broker and controller, all on loopback);
# and print records/s and p50/p99 latency of each, and their ratios.
#
# Usage: bench/replication_bench.sh [records] [record size] (default 500000 x 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-500000}
SIZE=${2:-1024}
source bench/bench_lib.sh repl-bench

cluster_id=$(/usr/bin/python3 -c 'import base64,uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')

# start_cluster NAME N -> sets $bs to the bootstrap servers
start_cluster() {
  local name=$1 n=$2 voters="" i
  declare -a ports cports
  for i in $(seq 1 "$n"); do ports[$i]=$(free_port); cports[$i]=$(free_port);
    voters+="${voters:+,}$i@127.0.0.1:${cports[$i]}"; done
  bs=""
  for i in $(seq 1 "$n"); do
    "$SAMSA" server config/server.properties --cluster-id "$cluster_id" \
      --override node.id="$i" --override "log.dirs=$work/$name-$i" --override metrics.listener= \
      --override "listeners=PLAINTEXT://127.0.0.1:${ports[$i]},CONTROLLER://127.0.0.1:${cports[$i]}" \
      --override "controller.quorum.voters=$voters" \
      --override "offsets.topic.replication.factor=$n" >"$work/$name-$i.log" 2>&1 &
    pids+=("$!")
    bs+="${bs:+,}127.0.0.1:${ports[$i]}"
  done
  for i in $(seq 1 "$n"); do
    for _ in $(seq 300); do grep -q "event=listening listener=PLAINTEXT" "$work/$name-$i.log" && break; sleep 0.1; done
  done
}

produce() { # bootstrap topic acks -> json
  "$SAMSA" perf produce --bootstrap-server "$1" --topic "$2" --num-records "$N" \
    --record-size "$SIZE" --throughput -1 --producer-props "acks=$3" linger.ms=5 \
    batch.size=1048576 --json 2>/dev/null | tail -1
}

start_cluster one 1
"$SAMSA" topics --bootstrap-server "$bs" --create --topic r1 --partitions 1 --replication-factor 1 >/dev/null
single=$(produce "$bs" r1 1)
start_cluster three 3
"$SAMSA" topics --bootstrap-server "$bs" --create --topic r3 --partitions 1 --replication-factor 3 \
  --config min.insync.replicas=2 >/dev/null
replicated=$(produce "$bs" r3 all)

/usr/bin/python3 - "$single" "$replicated" "$N" "$SIZE" <<'PY'
import json, sys
one, three = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"== {sys.argv[3]} records of {sys.argv[4]} B, 1 partition, samsa perf produce (librdkafka)")
for name, d in (("acks=1   RF 1, 1 node  ", one), ("acks=all RF 3, 3 nodes ", three)):
    l = d["latency_ms"]
    print(f"{name} {d['records_per_sec']:>10.0f} rec/s {d['mb_per_sec']:>8.1f} MB/s "
          f"p50 {l['p50']:7.2f} ms  p99 {l['p99']:7.2f} ms")
print(f"throughput ratio (acks=all RF 3 / acks=1 RF 1): {three['records_per_sec'] / one['records_per_sec']:.2f}")
print(f"p99 latency ratio (acks=all RF 3 / acks=1 RF 1): {three['latency_ms']['p99'] / one['latency_ms']['p99']:.2f}")
PY
