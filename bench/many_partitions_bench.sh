#!/usr/bin/env bash
# Many partitions and clients (run by hand, not part of `make test`). In one
# run on one node: 16 producers (samsa perf produce, librdkafka, acks=1,
# linger.ms=5) send N records of 1 KiB in all, keyed 0..99999 and spread by
# Kafka's murmur2 partitioner, while 4 consumers in one group read the topic;
# first to a topic of 1,000 partitions, then to a topic of 1. Prints the
# producers' aggregate records/s for each and their ratio [>= 0.7], and how
# many cores' worth of CPU the broker used meanwhile (the clients share the
# machine).
#
# Usage: bench/many_partitions_bench.sh [records] (default 400000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-400000}
PRODUCERS=16
CONSUMERS=4
source bench/bench_lib.sh many-partitions
start_node --override num.partitions=1

run() { # topic partitions -> aggregate records/s of the producers
  "$SAMSA" topics --bootstrap-server "$bs" --create --topic "$1" --partitions "$2" \
    --replication-factor 1 >/dev/null
  # Creating the partitions' logs is not what is measured: wait for them all.
  until [ "$(grep -c "event=became_leader partition=$1-" "$work/broker.log")" -ge "$2" ]; do
    sleep 0.2
  done
  local consumers=()
  for c in $(seq "$CONSUMERS"); do
    # Background load: each reads until N records or 5 s without any.
    "$SAMSA" perf consume --bootstrap-server "$bs" --topic "$1" --group "g-$1" \
      --messages "$N" --timeout 5s >/dev/null 2>&1 &
    consumers+=("$!")
  done
  local start; start=$(date +%s.%N)
  local ticks0; ticks0=$(awk '{print $14 + $15}' "/proc/$broker/stat")
  local producers=()
  for p in $(seq "$PRODUCERS"); do
    "$SAMSA" perf produce --bootstrap-server "$bs" --topic "$1" \
      --num-records $(( N / PRODUCERS )) --record-size 1024 --throughput -1 --keys 100000 \
      --producer-props acks=1 linger.ms=5 partitioner=murmur2_random --json \
      >"$work/$1-$p.json" 2>/dev/null &
    producers+=("$!")
  done
  wait "${producers[@]}"
  local end; end=$(date +%s.%N)
  local ticks; ticks=$(( $(awk '{print $14 + $15}' "/proc/$broker/stat") - ticks0 ))
  wait "${consumers[@]}" 2>/dev/null || true
  /usr/bin/python3 - "$work" "$1" "$start" "$end" "$ticks" "$(getconf CLK_TCK)" <<'PY'
import glob, json, sys
work, topic, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
cpu = int(sys.argv[5]) / int(sys.argv[6])
runs = [json.loads(open(f).read().strip().splitlines()[-1]) for f in glob.glob(f"{work}/{topic}-*.json")]
acked = sum(r["records"] for r in runs)
print(f"{acked / (end - start):.0f} {cpu / (end - start):.2f}")
PY
}

read -r many many_cpu <<<"$(run many 1000)"
read -r one one_cpu <<<"$(run one 1)"
echo "== $PRODUCERS keyed producers and $CONSUMERS consumers in a group, $N records of 1 KiB, one node"
echo "1,000 partitions: $many records/s (broker CPU: $many_cpu cores)"
echo "1 partition:      $one records/s (broker CPU: $one_cpu cores)"
/usr/bin/python3 -c "print(f'throughput ratio (1,000 partitions / 1 partition): {$many / $one:.2f}  [>= 0.7]')"
