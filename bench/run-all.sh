#!/usr/bin/env bash
# Every performance figure of the broker and its target, in one table (run by
# hand as root on a quiet machine; about 20 minutes; not part of `make test`).
# Runs the benchmarks below one after another, keeps each one's output under
# bench/results/run-all-<time>/, and prints one row per figure: its value,
# its target and whether it is met. Each figure is a ratio measured side by
# side in one run of its benchmark (the machines are shared and noisy), or a
# latency at a fixed rate.
#
#   e2e_bench.sh          one node: latency at half the maximum rate, CPU
#                         per GB consumed against a bare sendfile loop
#   replication_bench.sh  acks=all on 3 nodes against acks=1 on one
#   durable_bench.sh      flush.messages=1 against the page cache
#   ceiling_bench.sh      samsa perf replay against loopback TCP and a bare
#                         recv+write loop
#   recovery_bench.sh     recovery of an unflushed log against reading it
#   samsa perf e2e        produce-to-consume latency at 10,000 records/s
#   idle_partitions.py    memory and fds per idle partition, restart time
#   many_partitions_bench.sh  16 keyed producers and 4 consumers, 1,000
#                         partitions against 1
#
# Usage: bench/run-all.sh [quick]   (quick: smaller runs, to check the script)
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=${1:-}
out=bench/results/run-all-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
if [ "$QUICK" = quick ]; then
  e2e_n=100000 repl_n=100000 durable_n=10000 ceiling_gb=0.5 recovery_gb=0.5 idle_n=500 lat_n=20000
  many_n=32000
else
  e2e_n=1000000 repl_n=1000000 durable_n=100000 ceiling_gb=4 recovery_gb=4 idle_n=10000 lat_n=100000
  many_n=400000
fi

run() { # name command... -> output in $out/name.txt
  local name=$1; shift
  echo "== $name: $*" >&2
  if ! "$@" >"$out/$name.txt" 2>"$out/$name.err"; then
    echo "$name failed (see $out/$name.err)" >&2
  fi
}

run e2e bench/e2e_bench.sh "$e2e_n"
run replication bench/replication_bench.sh "$repl_n"
run durable bench/durable_bench.sh "$durable_n"
run ceiling bench/ceiling_bench.sh "$ceiling_gb"
run recovery bench/recovery_bench.sh "$recovery_gb"
run latency bench/latency_bench.sh "$lat_n"
run many bench/many_partitions_bench.sh "$many_n"
run idle env SAMSA_BIN="$(realpath "${SAMSA_BIN:-build/samsa}")" /usr/bin/python3 bench/idle_partitions.py "$idle_n"

/usr/bin/python3 - "$out" <<'PY' | tee "$out/summary.txt"
import os, re, sys
out = sys.argv[1]

def text(name):
    path = os.path.join(out, name + ".txt")
    return open(path).read() if os.path.exists(path) else ""

def find(name, pattern):
    m = re.search(pattern, text(name), re.M)
    return float(m.group(1)) if m else None

rows = [
    # figure, benchmark, pattern, target operator, target
    ("replication throughput, acks=all RF 3 / acks=1 RF 1", "replication",
     r"throughput ratio \(acks=all RF 3 / acks=1 RF 1\): ([\d.]+)", ">=", 0.5),
    ("replication p99, acks=all RF 3 / acks=1 RF 1", "replication",
     r"p99 latency ratio \(acks=all RF 3 / acks=1 RF 1\): ([\d.]+)", "<=", 3),
    ("durable throughput, flush.messages=1 / page cache", "durable",
     r"throughput ratio \(durable / page cache\): ([\d.]+)", ">=", 0.8),
    ("durable p99, flush.messages=1 / page cache", "durable",
     r"p99 latency ratio \(durable / page cache\): ([\d.]+)", "<=", 2),
    ("ingest (perf replay, 1 partition) / loopback TCP", "ceiling",
     r"ingest / loopback bandwidth, 1 partition: ([\d.]+)", ">=", 0.5),
    ("broker CPU per GB produced / bare recv+write", "ceiling",
     r"broker CPU per GB produced / bare recv\+write, 1 partition: ([\d.]+)", "<=", 1.2),
    ("broker CPU per GB consumed / bare sendfile", "e2e",
     r"broker CPU per GB consumed / bare sendfile per GB: ([\d.]+)", "<=", 1.2),
    ("p99 produce latency at half the maximum rate, ms", "e2e",
     r"p99 produce latency at half rate: ([\d.]+) ms", "<", 2),
    ("p99 end-to-end latency at 10k records/s, ms", "latency",
     r"p99 end-to-end latency: ([\d.]+) ms", "<", 2),
    ("RSS per idle partition, KiB", "idle",
     r"RSS: -?\d+ KiB -> -?\d+ KiB: (-?[\d.]+) KiB per partition", "<=", 64),
    ("open fds per idle partition", "idle",
     r"open fds: \d+ -> \d+: ([\d.]+) per partition", "<=", 3),
    ("clean restart until every idle partition is led, s", "idle",
     r"clean restart until every partition is led: ([\d.]+) s", "<=", 10),
    ("1,000 partitions / 1, 16 keyed producers, 4 consumers", "many",
     r"throughput ratio \(1,000 partitions / 1 partition\): ([\d.]+)", ">=", 0.7),
    ("recovery of an unflushed log / sequential read", "recovery",
     r"recovery / sequential read: ([\d.]+)", "<=", 2),
]
ops = {">=": lambda v, t: v >= t, "<=": lambda v, t: v <= t, "<": lambda v, t: v < t}
print(f"{'figure':56} {'value':>8} {'target':>8}  met")
for figure, bench, pattern, op, target in rows:
    value = find(bench, pattern)
    shown = "-" if value is None else f"{value:.2f}"
    met = "not measured" if value is None else ("yes" if ops[op](value, target) else "no")
    print(f"{figure:56} {shown:>8} {op + ' ' + str(target):>8}  {met}")
PY
echo "outputs in $out"
