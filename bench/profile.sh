#!/usr/bin/env bash
# Where one Samsa node spends its CPU under a workload (run by hand, not part
# of `make test`): perf record of the broker alone while the workload runs,
# written as text to bench/results/profile-<workload>.txt (the symbols above
# 0.5 % of the samples, then the call chains of the top ones), so a change can
# be judged against the profile it was made for.
#
# Workloads (1 KiB records; GB of data, default 1):
#   replay-1p    samsa perf replay, 1 MiB batches, acks=1, 1 partition
#   replay-4p    the same over 4 partitions and 4 connections
#   produce-1p   samsa perf produce (librdkafka), acks=1, linger.ms=5
#   consume-1p   samsa perf consume of what produce-1p wrote
#
# Usage: bench/profile.sh WORKLOAD [GB]
set -euo pipefail
cd "$(dirname "$0")/.."
WORKLOAD=${1:?usage: bench/profile.sh replay-1p|replay-4p|produce-1p|consume-1p [GB]}
GB=${2:-1}
command -v perf >/dev/null || { echo "perf is needed (Debian: linux-perf)" >&2; exit 1; }
source bench/bench_lib.sh profile

start_node
records=$(/usr/bin/python3 -c "print(int($GB * 1e9 / 1024))")

topic() { "$SAMSA" topics --bootstrap-server "$bs" --create --topic "$1" --partitions "$2" \
  --replication-factor 1 >/dev/null; }
produce() { "$SAMSA" perf produce --bootstrap-server "$bs" --topic "$1" --num-records "$records" \
  --record-size 1024 --throughput -1 --producer-props acks=1 linger.ms=5 batch.size=1048576 \
  --json 2>/dev/null | tail -1; }

case "$WORKLOAD" in
  replay-1p) topic p 1; run=("$SAMSA" perf replay --bootstrap-server "$bs" --topic p --bytes "$GB") ;;
  replay-4p) topic p 4; run=("$SAMSA" perf replay --bootstrap-server "$bs" --topic p --bytes "$GB"
             --connections 4) ;;
  produce-1p) topic p 1; run=(produce p) ;;
  consume-1p) topic p 1; produce p >/dev/null
              run=("$SAMSA" perf consume --bootstrap-server "$bs" --topic p --messages "$records") ;;
  *) echo "unknown workload $WORKLOAD" >&2; exit 2 ;;
esac

perf record -g -F 999 -p "$broker" -o "$work/perf.data" >/dev/null 2>&1 &
recorder=$!
sleep 0.5
summary=$("${run[@]}" 2>/dev/null | tail -1)
kill -INT "$recorder"; wait "$recorder" || true

mkdir -p bench/results
out=bench/results/profile-$WORKLOAD.txt
{
  echo "# bench/profile.sh $WORKLOAD $GB"
  echo "# $(date -u +%F) at $(git rev-parse --short HEAD), $(nproc) cores: $(uname -r)"
  echo "# workload summary: $summary"
  echo
  echo "## symbols (self), above 0.5 % of the broker's samples"
  perf report -i "$work/perf.data" --no-children --sort dso,sym --percent-limit 0.5 --stdio \
    -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
  echo
  echo "## call chains (caller view) of the symbols above 3 %"
  perf report -i "$work/perf.data" --no-children --sort sym --percent-limit 3 --stdio \
    -g caller,0.5,callee,function,percent --max-stack 12 2>/dev/null | grep -v '^#' | grep -v '^$'
} >"$out"
echo "wrote $out"
