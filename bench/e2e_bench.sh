#!/usr/bin/env bash
# End-to-end benchmark of one Samsa node (run by hand, not part of `make test`).
# Measures, in one run on this machine:
#   * produce of 1 KiB records to a 1-partition topic with acks=1 and acks=all
#     (samsa perf produce, librdkafka), then consume them back;
#     records/s, MB/s, p50/p99/p99.9 produce latency at full speed and at half of it;
#   * the broker's CPU seconds per GB produced and per GB consumed (/proc/<pid>/stat),
#     next to the time a plain memcpy of a GB takes;
#   * Redis Streams (redis-server, AOF appendfsync everysec) with
#     redis-benchmark -P 64 -c 50 XADD of 1 KiB values.
# Prints every figure and the ratios the issue targets.
#
# Usage: bench/e2e_bench.sh [records] (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
source bench/bench_lib.sh bench

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

start_node
"$SAMSA" topics --bootstrap-server "$bs" --create --topic b1 --partitions 1 --replication-factor 1 \
  --config file.delete.delay.ms=0 >/dev/null
"$SAMSA" topics --bootstrap-server "$bs" --create --topic b2 --partitions 1 --replication-factor 1 \
  --config file.delete.delay.ms=0 >/dev/null
"$SAMSA" topics --bootstrap-server "$bs" --create --topic b3 --partitions 1 --replication-factor 1 \
  --config file.delete.delay.ms=0 >/dev/null

produce() { # topic acks throughput -> json line; also sets cpu delta
  local t0; t0=$(cpu_ticks "$broker")
  "$SAMSA" perf produce --bootstrap-server "$bs" --topic "$1" --num-records "$N" --record-size 1024 \
     --throughput "$3" --producer-props "acks=$2" linger.ms=5 batch.size=1048576 --json 2>/dev/null | tail -1
  echo "$(( $(cpu_ticks "$broker") - t0 ))" > "$work/cpu"
}

drop_topic() { # deleting a measured topic drops its dirty pages, so writeback of
  # earlier runs does not stall the later ones (the half-rate latency run above all)
  "$SAMSA" topics --bootstrap-server "$bs" --delete --topic "$1" >/dev/null
  for _ in $(seq 300); do ls -d "$work"/data/"$1"-0* >/dev/null 2>&1 || return 0; sleep 0.1; done
}

echo "== samsa, $N x 1 KiB records, 1 partition"
p1=$(produce b1 1 -1); cpu_p1=$(cat "$work/cpu")
t0=$(cpu_ticks "$broker")
c1=$("$SAMSA" perf consume --bootstrap-server "$bs" --topic b1 --messages "$N" --json 2>/dev/null | tail -1)
cpu_c1=$(( $(cpu_ticks "$broker") - t0 ))
segment=$(ls -S "$work"/data/b1-0/*.log | head -1)
cp "$segment" "$work/segment.copy"
drop_topic b1
pall=$(produce b2 all -1)
drop_topic b2
rps1=$(echo "$p1" | json "['records_per_sec']")
half=$(/usr/bin/python3 -c "print(int($rps1/2))")
sync
phalf=$(produce b3 1 "$half")

gb=$(/usr/bin/python3 -c "print($N*1024/1e9)")
for name in p1 pall phalf; do
  j=${!name}
  printf "%-28s %10.0f rec/s %8.1f MB/s  p50 %6.2f ms  p99 %6.2f ms  p99.9 %6.2f ms\n" \
    "produce $name" "$(echo "$j" | json "['records_per_sec']")" "$(echo "$j" | json "['mb_per_sec']")" \
    "$(echo "$j" | json "['latency_ms']['p50']")" "$(echo "$j" | json "['latency_ms']['p99']")" \
    "$(echo "$j" | json "['latency_ms']['p99_9']")"
done
printf "%-28s %10.0f rec/s %8.1f MB/s\n" "consume" "$(echo "$c1" | json "['records_per_sec']")" \
  "$(echo "$c1" | json "['mb_per_sec']")"

cc -O2 -o "$work/memcpy" bench/memcpy_baseline.c
cc -O2 -o "$work/sendfile" bench/sendfile_baseline.c
memcpy_s=$("$work/memcpy" 4)
cc -O2 -o "$work/ingest" bench/ingest_baseline.c
sendfile_s=$("$work/sendfile" "$work/segment.copy" 2)
rm -f "$work/segment.copy"
ingest_s=$("$work/ingest" "$work" 2)
cpu_prod_gb=$(/usr/bin/python3 -c "print($cpu_p1/$hz/$gb)")
cpu_cons_gb=$(/usr/bin/python3 -c "print($cpu_c1/$hz/$gb)")
echo "broker CPU s/GB produced: $cpu_prod_gb   consumed: $cpu_cons_gb   memcpy s/GB: $memcpy_s" \
  "  bare sendfile over loopback s/GB: $sendfile_s  bare recv+write s/GB: $ingest_s"

echo "== redis streams (AOF everysec), redis-benchmark -P 64 -c 50 XADD 1 KiB"
if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null
  fi
fi
redis_rps=0
if command -v redis-server >/dev/null; then
  rport=$(free_port)
  redis-server --port "$rport" --dir "$work" --appendonly yes --appendfsync everysec \
    --save '' --daemonize no >"$work/redis.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 100); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.1; done
  val=$(head -c 1024 /dev/zero | tr '\0' 'x')
  redis_rps=$(redis-benchmark -p "$rport" -P 64 -c 50 -n "$N" -q XADD bench '*' f "$val" \
    | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | awk '{v=$1} END {print v+0}')
  echo "redis XADD: $redis_rps msgs/s"
else
  echo "redis-server not available: skipped"
fi

/usr/bin/python3 - "$p1" "$phalf" "$redis_rps" "$cpu_prod_gb" "$cpu_cons_gb" "$memcpy_s" "$sendfile_s" "$ingest_s" <<'PY'
import json, sys
p1, phalf = json.loads(sys.argv[1]), json.loads(sys.argv[2])
redis, cpu_p, cpu_c, mem = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
sendfile, ingest = float(sys.argv[7]), float(sys.argv[8])
print("== ratios (targets in brackets)")
if redis > 0:
    print(f"samsa produce / redis XADD msgs/s: {p1['records_per_sec'] / redis:.2f}  [>= 2]")
print(f"broker CPU per GB produced / memcpy per GB: {cpu_p / mem:.2f}  [<= 4]")
print(f"broker CPU per GB consumed / memcpy per GB: {cpu_c / mem:.2f}  [<= 1]")
# The kernel's own floors on this machine: a bare read+write loop (socket to file)
# and a bare sendfile loop (file to socket).
print(f"broker CPU per GB produced / bare recv+write per GB: {cpu_p / ingest:.2f}")
# On loopback the sender's system time includes the receiver's TCP processing, so
# a bare sendfile loop is the floor a zero-copy consumer path can reach here.
print(f"broker CPU per GB consumed / bare sendfile per GB: {cpu_c / sendfile:.2f}")
print(f"p99 produce latency at half rate: {phalf['latency_ms']['p99']:.2f} ms  [< 5]")
PY
