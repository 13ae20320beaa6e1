#!/usr/bin/env bash
# Log cleaner benchmark (run by hand, not part of `make test`). In one run, on
# one one-node broker:
#   * a keyed writer (confluent-kafka) puts N MB of 1 KiB records over K keys
#     into `compacted` (cleanup.policy=compact) and the same into `plain`
#     (cleanup.policy=delete), with log.cleaner.enable=false, so the dirty log
#     waits;
#   * the broker restarts with the cleaner on (log.cleaner.backoff.ms=200): it
#     cleans `compacted` while samsa perf produce sends P records of 1 KiB to
#     `probe` (acks=1): "produce while cleaning";
#   * once the cleaner is done the broker restarts again: nothing is left to
#     clean (`compacted` is clean, `plain` is never cleaned) and the same
#     samsa perf produce runs: "produce without cleaning".
# Repeated ROUNDS times (each round dirties `compacted` with N MB more). Prints
# the cleaner's throughput in MB/s of dirty log (from the broker's
# event=log_cleaned lines: dirty_bytes= over duration_ms=, and the wall clock
# from the first cleaning's start to the last one's end), how much of the probe
# the cleaner was busy for, and the ratio of the two produce throughputs: over
# the whole probes, and over the probe's 100 ms progress windows that lie
# inside a cleaning (the target, >= 0.8) against the probe without cleaning.
# The probe should outlast the cleaning; the default probe (2 M records) does
# on this machine.
#
# Usage: bench/cleaner_bench.sh [MB per round] [keys] [probe records] [rounds]
#        (default 3072 10000 2000000 3); CLEANER_IO_MAX=<bytes/s> sets
#        log.cleaner.io.max.bytes.per.second. Needs about (rounds + 2) x N MB
#        of free space in /tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-3072}
KEYS=${2:-10000}
PROBE=${3:-2000000}
ROUNDS=${4:-3}
SEGMENT=$((32 * 1024 * 1024))
SAMSA=${SAMSA_BIN:-build/samsa}
PY=/usr/bin/python3
[ -x "$SAMSA" ] || { echo "build first: make build" >&2; exit 1; }
work=$(mktemp -d /tmp/samsa-cleaner-bench-XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; [ -n "${KEEP:-}" ] && cp "$work"/probe-* "$work/broker.log" "$KEEP"/ 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
cport=$(free_port)
bs=127.0.0.1:$port
log=$work/broker.log
touch "$log"

start_broker() { # cleaner-enable
  local before; before=$(grep -c "event=listening listener=PLAINTEXT" "$log" || true)
  echo "----- bench: start, log.cleaner.enable=$1 at $(date +%s.%N)" >>"$log"
  "$SAMSA" server config/server.properties --override "log.dirs=$work/data" --override metrics.listener= \
    --override "listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport" \
    --override "controller.quorum.voters=1@127.0.0.1:$cport" \
    --override "log.cleaner.enable=$1" --override log.cleaner.backoff.ms=200 \
    ${CLEANER_IO_MAX:+--override "log.cleaner.io.max.bytes.per.second=$CLEANER_IO_MAX"} \
    >>"$log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    [ "$(grep -c "event=listening listener=PLAINTEXT" "$log" || true)" -gt "$before" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "broker did not start; log:" >&2; tail -50 "$log" >&2; exit 1
}
# On a virtual machine whose free memory is handed back to the host (virtio
# balloon free page reporting), writing into never-touched page-cache pages
# runs at a fraction of the speed of writing into pages just freed, and which
# of the two a probe gets decides its throughput more than the cleaner does.
# So each probe is preceded by a scratch file of the probe's size, written and
# removed: both probes then start on freshly freed pages.
warm_memory() {
  dd if=/dev/zero of="$work/scratch" bs=1M count=$((PROBE / 1024 + 256)) status=none
  rm -f "$work/scratch"
}
stop_broker() { kill -TERM "$pid"; wait "$pid" || { echo "broker exited $?" >&2; exit 1; }; pid=""; }

cleanings() { grep -c "event=log_cleaned partition=compacted-0" "$log" || true; }

write_keyed() { # topic -> "records MB/s"
  $PY - "$bs" "$1" "$MB" "$KEYS" <<'PY'
import os, random, sys, time
from confluent_kafka import Producer
bs, topic, mb, keys = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
n = mb * 1024 * 1024 // 1024
p = Producer({"bootstrap.servers": bs, "acks": "1", "linger.ms": 5, "batch.size": 1048576,
              "queue.buffering.max.kbytes": 262144})
blob = os.urandom(1024 + 4096)
rng = random.Random(1)
errors = []
def cb(err, msg):
    if err: errors.append(err)
t0 = time.monotonic()
for i in range(n):
    off = i % 4096
    while True:
        try:
            p.produce(topic, key=b"key-%07d" % rng.randrange(keys), value=blob[off:off + 1024],
                      partition=0, on_delivery=cb)
            break
        except BufferError:
            p.poll(0.01)
    if i % 1000 == 0:
        p.poll(0)
assert p.flush(300) == 0 and not errors, errors[:3]
dt = time.monotonic() - t0
print(f"{n} records, {n * 1024 / 1e6 / dt:.0f} MB/s")
PY
}

probe() { # kind -> perf produce's json in $probe_json, its start and end in $probe_t0
  # $probe_t1; its progress windows ("end-time records seconds" per line) in $work/probe-<kind>
  probe_t0=$(date +%s.%N)
  probe_json=$($PY - "$SAMSA" "$bs" "$PROBE" "$work/probe-$1" <<'PY'
import subprocess, sys, time
samsa, bs, n, out = sys.argv[1:5]
p = subprocess.Popen([samsa, "perf", "produce", "--bootstrap-server", bs, "--topic", "probe",
                      "--num-records", n, "--record-size", "1024", "--throughput", "-1",
                      "--reporting-interval", "100", "--producer-props", "acks=1", "linger.ms=5",
                      "batch.size=1048576", "--json"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
with open(out, "w") as f:
    for line in p.stderr:  # "N records sent, R records/sec ...", stamped on arrival
        words = line.split()
        if len(words) > 3 and words[1] == "records" and words[2] == "sent," and float(words[3]) > 0:
            f.write(f"{time.time():.3f} {words[0]} {int(words[0]) / float(words[3]):.4f}\n")
print(p.stdout.read().strip().splitlines()[-1])
sys.exit(p.wait())
PY
)
  probe_t1=$(date +%s.%N)
}

wait_cleaner_done() { # after > $1 cleanings, until none for 3 s and no .cleaned file (600 s max)
  local n last quiet=0
  for _ in $(seq 6000); do
    n=$(cleanings)
    if [ "$n" -gt "$1" ] && ! ls "$work"/data/compacted-0/*.cleaned >/dev/null 2>&1; then
      if [ "$n" = "${last:-}" ]; then quiet=$((quiet + 1)); else quiet=0; fi
      [ "$quiet" -ge 30 ] && return 0
    fi
    last=$n
    sleep 0.1
  done
  echo "the cleaner did not finish; log tail:" >&2; tail -30 "$log" >&2; exit 1
}

dir_mb() { # MB in the partition's segments (not in .deleted files waiting for their delay)
  find "$work/data/$1-0" -name '[0-9]*.log' -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s / 1e6}'
}

start_broker false
for t in compacted plain; do
  "$SAMSA" topics --bootstrap-server "$bs" --create --topic "$t" --partitions 1 \
    --config "cleanup.policy=$([ $t = compacted ] && echo compact || echo delete)" \
    --config "segment.bytes=$SEGMENT" >/dev/null
done
"$SAMSA" topics --bootstrap-server "$bs" --create --topic probe --partitions 1 >/dev/null
stop_broker

echo "== $MB MiB of 1 KiB records over $KEYS keys per round, probe $PROBE x 1 KiB, $ROUNDS rounds"
rows=()
for round in $(seq "$ROUNDS"); do
  start_broker false
  wc=$(write_keyed compacted)
  wp=$(write_keyed plain)
  echo "round $round: wrote compacted ($wc) and plain ($wp);" \
    "compacted-0 holds $(dir_mb compacted) MB"
  stop_broker
  sync  # the writes' dirty pages reach the disk before either probe, not during one

  before=$(cleanings)
  warm_memory
  start_broker true
  restart_t=$(date +%s.%N)
  probe "during-$round"; during=$probe_json; d0=$probe_t0; d1=$probe_t1
  wait_cleaner_done "$before"
  after=$(cleanings)
  echo "round $round: $((after - before)) cleanings; compacted-0 now $(dir_mb compacted) MB"
  stop_broker
  sync

  warm_memory
  start_broker true
  probe "idle-$round"; idle=$probe_json; i0=$probe_t0; i1=$probe_t1
  idle_cleanings=$(( $(cleanings) - after ))
  stop_broker
  rows+=("$round|$before|$after|$restart_t|$d0|$d1|$i0|$i1|$idle_cleanings|$during|$idle")
done

$PY - "$log" "$MB" "$work" "${rows[@]}" <<'PY'
import json, re, statistics, sys, time
from datetime import datetime
log_path, mb, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = [l for l in open(log_path, errors="replace") if "event=log_cleaned partition=compacted-0" in l]

def field(line, name):
    m = re.search(rf"\b{name}=(\S+)", line)
    return m.group(1) if m else None

def stamp(line):
    m = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\]", line)
    return time.mktime(datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").timetuple()) + \
        int(m.group(1)[-3:]) / 1000

ratios, speeds, walls = [], [], []
def windows(kind, rnd):  # (start, end, records) of the probe's progress windows
    out = []
    for line in open(f"{work}/probe-{kind}-{rnd}"):
        end, n, secs = line.split()
        out.append((float(end) - float(secs), float(end), int(n)))
    return out

inside_ratios = []
for row in sys.argv[4:]:
    rnd, before, after, restart_t, d0, d1, i0, i1, idle_n, during, idle = row.split("|", 10)
    mine = lines[int(before):int(after)]
    during, idle = json.loads(during), json.loads(idle)
    d0, d1, i0, i1, restart_t = map(float, (d0, d1, i0, i1, restart_t))
    dirty = [field(l, "dirty_bytes") for l in mine]
    br = [field(l, "bytes_read") for l in mine]
    du = [field(l, "duration_ms") for l in mine]
    if mine and all(x is not None for x in dirty + br + du):
        dirty_mb, read_mb = sum(map(int, dirty)) / 1e6, sum(map(int, br)) / 1e6
        secs = max(sum(map(float, du)) / 1000, 1e-3)
        speeds.append(dirty_mb / secs)
        print(f"round {rnd}: {len(mine)} cleanings, {dirty_mb:.0f} MB of dirty log in {secs:.1f} s "
              f"of cleaning (duration_ms): {speeds[-1]:.0f} MB/s of dirty log; they read "
              f"{read_mb:.0f} MB ({read_mb / secs:.0f} MB/s)")
    else:
        print(f"round {rnd}: event=log_cleaned lines lack dirty_bytes=, bytes_read= or "
              f"duration_ms=: {mine[:1]}")
    # (start, end) of each cleaning: its line's time and duration_ms; without
    # duration_ms, from the previous cleaning's end (the first: the restart).
    busy = []
    for l, d in zip(mine, du):
        end = stamp(l)
        start = end - float(d) / 1000 if d is not None else (busy[-1][1] if busy else restart_t)
        busy.append((start, end))
    if not busy:
        print(f"round {rnd}: no event=log_cleaned line for compacted-0")
        continue
    first, last = min(s for s, _ in busy), max(e for _, e in busy)
    walls.append(mb * 1.048576 / max(last - first, 1e-3))
    print(f"round {rnd}: {mb} MiB written cleaned in {last - first:.1f} s from the first "
          f"cleaning's start to the last one's end ({last - restart_t:.1f} s after the restart): "
          f"{walls[-1]:.0f} MB/s (wall clock)")
    overlap = sum(max(0.0, min(e, d1) - max(s, d0)) for s, e in busy)
    print(f"round {rnd}: probe while cleaning {during['records_per_sec']:.0f} rec/s "
          f"({during['mb_per_sec']:.1f} MB/s, p99 {during['latency_ms']['p99']:.1f} ms) over "
          f"{d1 - d0:.1f} s, the cleaner busy for {overlap:.1f} s of it "
          f"({100 * overlap / (d1 - d0):.0f}%)")
    print(f"round {rnd}: probe without cleaning {idle['records_per_sec']:.0f} rec/s "
          f"({idle['mb_per_sec']:.1f} MB/s, p99 {idle['latency_ms']['p99']:.1f} ms); "
          f"cleanings meanwhile: {idle_n}")
    ratios.append(during["records_per_sec"] / idle["records_per_sec"])
    print(f"round {rnd}: ratio produce while cleaning / without, whole probes: {ratios[-1]:.2f}")
    # The windows wholly inside one cleaning, against the whole idle probe.
    inside = [w for w in windows("during", rnd) if any(s <= w[0] and w[1] <= e for s, e in busy)]
    idle_w = windows("idle", rnd)
    idle_rate = sum(n for _, _, n in idle_w) / max(sum(e - s for s, e, _ in idle_w), 1e-9)
    # And the same probe's windows that touch no cleaning.
    outside = [w for w in windows("during", rnd) if all(w[1] <= s or e <= w[0] for s, e in busy)]
    if inside:
        rate = sum(n for _, _, n in inside) / sum(e - s for s, e, _ in inside)
        inside_ratios.append(rate / idle_rate)
        print(f"round {rnd}: inside cleanings ({len(inside)} windows, "
              f"{sum(e - s for s, e, _ in inside):.1f} s) {rate:.0f} rec/s, without cleaning "
              f"{idle_rate:.0f} rec/s: ratio {inside_ratios[-1]:.2f}")
        if outside:
            out_rate = sum(n for _, _, n in outside) / sum(e - s for s, e, _ in outside)
            print(f"round {rnd}: the same probe outside cleanings ({len(outside)} windows) "
                  f"{out_rate:.0f} rec/s: inside / outside {rate / out_rate:.2f}")
    else:
        print(f"round {rnd}: no progress window of the probe lies inside a cleaning")
if speeds:
    print(f"median cleaner throughput: {statistics.median(speeds):.0f} MB/s of dirty log "
          "(dirty_bytes / duration_ms)")
if walls:
    print(f"median cleaning rate, wall clock: {statistics.median(walls):.0f} MB/s of dirty log")
if ratios:
    print(f"median ratio produce while cleaning / without cleaning, whole probes: "
          f"{statistics.median(ratios):.2f}")
if inside_ratios:
    print(f"median ratio produce inside cleanings / without cleaning: "
          f"{statistics.median(inside_ratios):.2f}  [>= 0.8]")
PY
