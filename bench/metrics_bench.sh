#!/usr/bin/env bash
# The price of the metrics (docs/metrics.md; run by hand, not part of `make test`):
# produce throughput of one node counting and scraped every second (metrics.listener
# set) against one that counts nothing (metrics.listener empty), in one run on this
# machine. The two brokers take turns, ROUNDS rounds each, and which goes first
# alternates, so drift on a shared machine (and any first-or-second bias) falls
# on both; prints each round, the ratio of the median throughputs [>= 0.98], the
# median of the rounds' own ratios, and of the brokers' median CPU time for the
# same records.
#
# Usage: bench/metrics_bench.sh [records] [rounds] (default 500000 x 1 KiB, acks=1; 10)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-500000}
ROUNDS=${2:-10}
source bench/bench_lib.sh metrics-bench

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

start() { # name metrics.listener -> sets $bs and $pid
  local port cport; port=$(free_port); cport=$(free_port)
  "$SAMSA" server config/server.properties --override "log.dirs=$work/$1" \
    --override "metrics.listener=$2" \
    --override "listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport" \
    --override "controller.quorum.voters=1@127.0.0.1:$cport" >"$work/$1.log" 2>&1 &
  pid=$!; pids+=("$pid")
  for _ in $(seq 200); do grep -q "event=listening listener=PLAINTEXT" "$work/$1.log" && break; sleep 0.1; done
  bs="127.0.0.1:$port"
}

mport=$(free_port)
start on "127.0.0.1:$mport"; bs_on=$bs; pid_on=$pid
start off ""; bs_off=$bs; pid_off=$pid
# A Prometheus-like scraper on the counting broker, every second.
( while sleep 1; do curl -s "http://127.0.0.1:$mport/metrics" >/dev/null || true; done ) &
pids+=("$!")

round() { # bootstrap topic broker-pid -> "records/s broker-cpu-ticks"
  # The last round's records leave the page cache first, so their writeback
  # does not fall on this round.
  sync
  local t0; t0=$(cpu_ticks "$3")
  "$SAMSA" topics --bootstrap-server "$1" --create --topic "$2" --partitions 1 \
    --replication-factor 1 --config file.delete.delay.ms=0 >/dev/null
  "$SAMSA" perf produce --bootstrap-server "$1" --topic "$2" --num-records "$N" --record-size 1024 \
    --throughput -1 --producer-props acks=1 linger.ms=5 batch.size=1048576 --json 2>/dev/null \
    | tail -1 | json "['records_per_sec']" | tr '\n' ' '
  local ticks=$(( $(cpu_ticks "$3") - t0 ))
  # Deleted before the line is printed: the caller reads the line and goes on.
  "$SAMSA" topics --bootstrap-server "$1" --delete --topic "$2" >/dev/null
  echo "$ticks"
}

on=(); off=(); con=(); coff=()
run_on() { read -r r c < <(round "$bs_on" "m$1" "$pid_on"); on+=("$r"); con+=("$c"); }
run_off() { read -r r c < <(round "$bs_off" "m$1" "$pid_off"); off+=("$r"); coff+=("$c"); }
for i in $(seq "$ROUNDS"); do
  if [ $((i % 2)) = 1 ]; then run_on "$i"; run_off "$i"; first=on; else run_off "$i"; run_on "$i"; first=off; fi
  echo "round $i ($first first): metrics on ${on[-1]} rec/s (${con[-1]} CPU ticks)," \
    "off ${off[-1]} rec/s (${coff[-1]} ticks)"
done
curl -s "http://127.0.0.1:$mport/metrics" | grep -c '^kafka_' | xargs echo "series scraped:"
/usr/bin/python3 - "${on[*]}" "${off[*]}" "${con[*]}" "${coff[*]}" <<'PY'
import statistics, sys
on, off, con, coff = ([float(x) for x in a.split()] for a in sys.argv[1:5])
print(f"produce throughput, metrics on / off (medians): "
      f"{statistics.median(on) / statistics.median(off):.3f}  [>= 0.98]")
print(f"median of the rounds' own ratios, on / off: "
      f"{statistics.median(a / b for a, b in zip(on, off)):.3f}")
# The same records each round: broker CPU is the steadier figure on a shared machine.
print(f"broker CPU for the same records, metrics on / off (medians): "
      f"{statistics.median(con) / statistics.median(coff):.3f}")
PY
