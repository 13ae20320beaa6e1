#!/usr/bin/env bash
# The broker's own produce ceiling (run by hand, not part of `make test`). In
# one run on this machine:
#   * loopback TCP bandwidth: iperf3, one stream, for SECONDS (Debian's
#     iperf3, installed when missing and run as root);
#   * a bare recv+write(2) loop (bench/ingest_baseline.c): its CPU seconds per
#     GB received and written to a file, the floor of any produce path;
#   * one Samsa node taking `samsa perf replay`: prebuilt batches of 1 KiB
#     records in 1 MiB batches, acks=1, to a 1-partition and a 4-partition
#     topic, GB of batches each, no client library on the hot path;
# and prints the ingest rate against the loopback bandwidth [>= 0.5] and the
# broker's CPU per GB against the bare loop's [<= 1.2]. The client shares the
# machine: on 2 cores its own CPU (a memcpy-free send loop) is part of what
# the ingest rate is measured against, as iperf3's is.
#
# Usage: bench/ceiling_bench.sh [GB] [seconds] (default 4 GB, 5 s)
set -euo pipefail
cd "$(dirname "$0")/.."
GB=${1:-4}
SECONDS_IPERF=${2:-5}
source bench/bench_lib.sh ceiling

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

if ! command -v iperf3 >/dev/null && [ "$(id -u)" -eq 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 >/dev/null
fi
iperf_gbps=0
if command -v iperf3 >/dev/null; then
  iport=$(free_port)
  iperf3 -s -p "$iport" >/dev/null 2>&1 &
  pids+=("$!"); disown "$!"
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$iport") 2>/dev/null && break; sleep 0.1; done
  iperf3 -c 127.0.0.1 -p "$iport" -t "$SECONDS_IPERF" -J >"$work/iperf.json"
  iperf_gbps=$(/usr/bin/python3 -c "import json; d=json.load(open('$work/iperf.json'));
print(d['end']['sum_received']['bits_per_second'] / 8e9)")
  echo "loopback TCP (iperf3, 1 stream): $iperf_gbps GB/s"
else
  echo "iperf3 not available: the bandwidth ratio is skipped"
fi

cc -O2 -o "$work/ingest" bench/ingest_baseline.c
ingest_s=$("$work/ingest" "$work" "$(/usr/bin/python3 -c "print($GB * 1e9 / 2**30)")")
echo "bare recv+write: $ingest_s CPU s/GB"

start_node

replay() { # topic partitions -> "GB/s CPU-s/GB p99-ms"
  "$SAMSA" topics --bootstrap-server "$bs" --create --topic "$1" --partitions "$2" \
    --replication-factor 1 --config file.delete.delay.ms=0 >/dev/null
  local t0; t0=$(cpu_ticks "$broker")
  local j; j=$("$SAMSA" perf replay --bootstrap-server "$bs" --topic "$1" --bytes "$GB" \
    --connections "$2" --json 2>/dev/null | tail -1)
  local ticks=$(( $(cpu_ticks "$broker") - t0 ))
  # The measured topic goes, and its dirty pages with it, before the next run.
  "$SAMSA" topics --bootstrap-server "$bs" --delete --topic "$1" >/dev/null
  /usr/bin/python3 - "$j" "$ticks" "$hz" <<'PY'
import json, sys
j, ticks, hz = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
gb = j["requests"] * j["batch_bytes"] / 1e9
print(f"{j['batch_mb_per_sec'] * 1048576 / 1e9:.3f} {ticks / hz / gb:.3f} {j['latency_ms']['p99']:.1f}")
PY
}

read -r r1_gbps r1_cpu r1_p99 <<<"$(replay ceiling1 1)"
read -r r4_gbps r4_cpu r4_p99 <<<"$(replay ceiling4 4)"
printf "%-34s %8s %12s %10s\n" "samsa perf replay, acks=1" "GB/s" "CPU s/GB" "p99 ms"
printf "%-34s %8s %12s %10s\n" "1 partition, 1 connection" "$r1_gbps" "$r1_cpu" "$r1_p99"
printf "%-34s %8s %12s %10s\n" "4 partitions, 4 connections" "$r4_gbps" "$r4_cpu" "$r4_p99"

/usr/bin/python3 - "$iperf_gbps" "$ingest_s" "$r1_gbps" "$r1_cpu" "$r4_gbps" "$r4_cpu" <<'PY'
import sys
iperf, ingest, r1, c1, r4, c4 = map(float, sys.argv[1:])
print("== ratios (targets in brackets)")
if iperf > 0:
    print(f"ingest / loopback bandwidth, 1 partition: {r1 / iperf:.2f}  [>= 0.5]")
    print(f"ingest / loopback bandwidth, 4 partitions: {r4 / iperf:.2f}  [>= 0.5]")
print(f"broker CPU per GB produced / bare recv+write, 1 partition: {c1 / ingest:.2f}  [<= 1.2]")
print(f"broker CPU per GB produced / bare recv+write, 4 partitions: {c4 / ingest:.2f}  [<= 1.2]")
PY
