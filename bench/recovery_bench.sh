#!/usr/bin/env bash
# Recovery benchmark (run by hand as root, not part of `make test`). In one
# run on this machine:
#   * one node takes GB of 1 KiB records in 1 MiB batches (samsa perf replay)
#     into one partition whose recovery point is never checkpointed
#     (log.flush.offset.checkpoint.interval.ms of an hour), so that every
#     segment is unflushed as far as recovery knows;
#   * kill -9, the page cache dropped; the node starts again and recovers
#     every byte (framing, CRC32C, offsets) before the partition is served:
#     the time from start to a ListOffsets answer with the whole log end;
#   * the page cache dropped again; the time to read the same segments
#     sequentially (cat to /dev/null);
# and prints both and their ratio [<= 2].
#
# Usage: bench/recovery_bench.sh [GB] (default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
GB=${1:-4}
[ "$(id -u)" -eq 0 ] || { echo "run as root (drops the page cache)" >&2; exit 1; }
source bench/bench_lib.sh recovery-bench

overrides=(--override log.segment.bytes=1073741824
           --override log.flush.offset.checkpoint.interval.ms=3600000)
now() { date +%s.%N; }
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

start_node "${overrides[@]}"
"$SAMSA" topics --bootstrap-server "$bs" --create --topic rec --partitions 1 \
  --replication-factor 1 >/dev/null
"$SAMSA" perf replay --bootstrap-server "$bs" --topic rec --bytes "$GB" --json >/dev/null
end=$("$SAMSA" get-offsets --bootstrap-server "$bs" --topic rec | cut -d: -f3)
kill -9 "$broker"; wait "$broker" 2>/dev/null || true
bytes=$(cat "$work"/data/rec-0/*.log | wc -c)
drop_caches

t0=$(now)
start_node "${overrides[@]}"
until [ "$("$SAMSA" get-offsets --bootstrap-server "$bs" --topic rec --timeout 2s 2>/dev/null \
  | cut -d: -f3)" = "$end" ]; do sleep 0.05; done
t1=$(now)
grep -o "event=log_recovered.*" "$work/broker.log" | head -1
kill -9 "$broker"; wait "$broker" 2>/dev/null || true

drop_caches
t2=$(now)
cat "$work"/data/rec-0/*.log >/dev/null
t3=$(now)

/usr/bin/python3 - "$t0" "$t1" "$t2" "$t3" "$bytes" "$end" <<'PY'
import sys
t0, t1, t2, t3 = map(float, sys.argv[1:5])
size, records = int(sys.argv[5]), int(sys.argv[6])
ready, read = t1 - t0, t3 - t2
print(f"== kill -9 with {size / 1e9:.2f} GB ({records} records) unflushed in one partition")
print(f"start to serving the whole log: {ready:.2f} s")
print(f"sequential read of the segments: {read:.2f} s ({size / read / 1e9:.2f} GB/s)")
print(f"recovery / sequential read: {ready / read:.2f}  [<= 2]")
PY
