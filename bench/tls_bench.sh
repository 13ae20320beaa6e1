#!/usr/bin/env bash
# TLS benchmark (run by hand, not part of `make test`). In one run, on one
# one-node broker with a PLAINTEXT and an SSL listener (PEM keystore made with
# openssl in a temp dir: a CA, and a server certificate with SAN IP:127.0.0.1
# and DNS:localhost):
#   * samsa perf produce of N records of 1 KiB to a 1-partition topic (acks=1,
#     linger.ms=5, batch.size=1048576), then samsa perf consume of them back
#     (in a group of its own: the consume figure is the fetch rate from the
#     first record on, perf's fetch_mb_per_sec, so connecting and joining are
#     left out), over plaintext and over TLS (--command-config:
#     security.protocol=SSL, ssl.ca.location=<the CA>), each on a topic of its
#     own;
#   * ROUNDS rounds, the two alternating (plaintext first in odd rounds, TLS
#     first in even ones), each topic deleted once read, so the runs meet the
#     same disk and page cache.
# Prints each figure (records/s, MB/s, produce p99, and the broker's CPU seconds
# per GB moved, from /proc/<pid>/stat), the TLS/plaintext throughput ratios of
# each round for produce and consume, and their medians.
#
# Usage: bench/tls_bench.sh [records] [rounds]   (default 1000000 3)
#        SAMSA_BIN=<path> picks the binary (default build/samsa).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
ROUNDS=${2:-3}
SAMSA=${SAMSA_BIN:-build/samsa}
PY=/usr/bin/python3
[ -x "$SAMSA" ] || { echo "build first: make build (or set SAMSA_BIN)" >&2; exit 1; }
command -v openssl >/dev/null || { echo "openssl not found" >&2; exit 1; }
work=$(mktemp -d /tmp/samsa-tls-bench-XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# --- certificates ----------------------------------------------------------------
certs=$work/certs
mkdir -p "$certs"
ossl() { (cd "$certs" && openssl "$@" >/dev/null 2>&1) || { echo "openssl $1 failed" >&2; exit 1; }; }
ossl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=samsa-bench-ca
echo "subjectAltName=IP:127.0.0.1,DNS:localhost" >"$certs/server.ext"
ossl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost
ossl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
  -extfile server.ext
cat "$certs/server.key" "$certs/server.pem" >"$certs/server-keystore.pem"
printf 'security.protocol=SSL\nssl.ca.location=%s\n' "$certs/ca.pem" >"$work/tls.properties"
: >"$work/plain.properties"

# --- broker ----------------------------------------------------------------------
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port); sport=$(free_port); cport=$(free_port)
log=$work/broker.log
"$SAMSA" server config/server.properties --override "log.dirs=$work/data" --override metrics.listener= \
  --override "listeners=PLAINTEXT://127.0.0.1:$port,SSL://127.0.0.1:$sport,CONTROLLER://127.0.0.1:$cport" \
  --override "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT" \
  --override "controller.quorum.voters=1@127.0.0.1:$cport" \
  --override ssl.keystore.type=PEM --override "ssl.keystore.location=$certs/server-keystore.pem" \
  >"$log" 2>&1 &
pid=$!
for _ in $(seq 300); do
  grep -q "event=listening listener=SSL" "$log" && grep -q "event=listening listener=PLAINTEXT" "$log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
grep -q "event=listening listener=SSL" "$log" || { echo "broker did not start; log:" >&2; tail -30 "$log" >&2; exit 1; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
declare -A bootstrap=([plain]="127.0.0.1:$port" [tls]="127.0.0.1:$sport")

drop_topic() { # its dirty pages go with it, so no run pays for an earlier one's writeback
  "$SAMSA" topics --bootstrap-server "127.0.0.1:$port" --delete --topic "$1" >/dev/null
  for _ in $(seq 300); do ls -d "$work"/data/"$1"-0* >/dev/null 2>&1 || return 0; sleep 0.1; done
}

run() { # round proto -> one line: proto|produce json|consume json|cpu ticks produce|cpu ticks consume
  local topic="tls-bench-$1-$2" bs=${bootstrap[$2]} conf="$work/$2.properties" t0 p c cp cc
  "$SAMSA" topics --bootstrap-server "127.0.0.1:$port" --create --topic "$topic" --partitions 1 \
    --replication-factor 1 --config file.delete.delay.ms=0 >/dev/null
  t0=$(cpu_ticks)
  p=$("$SAMSA" perf produce --bootstrap-server "$bs" --command-config "$conf" --topic "$topic" \
    --num-records "$N" --record-size 1024 --throughput -1 \
    --producer-props acks=1 linger.ms=5 batch.size=1048576 --json 2>"$work/err" | tail -1) ||
    { echo "perf produce over $2 failed:" >&2; cat "$work/err" >&2; tail -20 "$log" >&2; exit 1; }
  cp=$(( $(cpu_ticks) - t0 ))
  t0=$(cpu_ticks)
  c=$("$SAMSA" perf consume --bootstrap-server "$bs" --command-config "$conf" --topic "$topic" \
    --messages "$N" --group "$topic" --json 2>"$work/err" | tail -1) ||
    { echo "perf consume over $2 failed:" >&2; cat "$work/err" >&2; tail -20 "$log" >&2; exit 1; }
  cc=$(( $(cpu_ticks) - t0 ))
  drop_topic "$topic"
  echo "$2|$p|$c|$cp|$cc"
}

# Warm-up, not reported: the first group creates __consumer_offsets, and each
# listener's first connections pay for what later ones find ready.
for proto in plain tls; do
  "$SAMSA" topics --bootstrap-server "127.0.0.1:$port" --create --topic "warm-$proto" \
    --partitions 1 --replication-factor 1 --config file.delete.delay.ms=0 >/dev/null
  "$SAMSA" perf produce --bootstrap-server "${bootstrap[$proto]}" --command-config \
    "$work/$proto.properties" --topic "warm-$proto" --num-records 20000 --record-size 1024 \
    --throughput -1 --json >/dev/null 2>&1
  "$SAMSA" perf consume --bootstrap-server "${bootstrap[$proto]}" --command-config \
    "$work/$proto.properties" --topic "warm-$proto" --messages 20000 --group "warm-$proto" \
    --json >/dev/null 2>&1
  drop_topic "warm-$proto"
done

echo "== $N x 1 KiB records, 1 partition, acks=1, $ROUNDS rounds, plaintext and TLS alternating"
rows=()
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="plain tls"; else order="tls plain"; fi
  for proto in $order; do
    sync
    row=$(run "$round" "$proto")
    rows+=("$round|$row")
    $PY - "$round" "$row" "$N" "$(getconf CLK_TCK)" <<'PY'
import json, sys
rnd, row, n, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
proto, p, c, cp, cc = row.split("|")
p, c, gb = json.loads(p), json.loads(c), n * 1024 / 1e9
print(f"round {rnd} {proto:5s} produce {p['records_per_sec']:9.0f} rec/s {p['mb_per_sec']:7.1f} MB/s "
      f"p99 {p['latency_ms']['p99']:7.1f} ms  broker CPU {int(cp) / hz / gb:5.2f} s/GB | "
      f"consume {c['fetch_records_per_sec']:9.0f} rec/s {c['fetch_mb_per_sec']:7.1f} MB/s "
      f"(joining {c['rebalance_time_ms']:.0f} ms)  "
      f"broker CPU {int(cc) / hz / gb:5.2f} s/GB", flush=True)
PY
  done
done

$PY - "${rows[@]}" <<'PY'
import json, statistics, sys
runs = {}
for row in sys.argv[1:]:
    rnd, proto, p, c, _, _ = row.split("|")
    runs[(rnd, proto)] = (json.loads(p), json.loads(c))
rounds = sorted({r for r, _ in runs}, key=int)
ratios = {"produce": [], "consume": []}
for r in rounds:
    (pp, pc), (tp, tc) = runs[(r, "plain")], runs[(r, "tls")]
    ratios["produce"].append(tp["mb_per_sec"] / pp["mb_per_sec"])
    ratios["consume"].append(tc["fetch_mb_per_sec"] / pc["fetch_mb_per_sec"])
    print(f"round {r}: TLS/plaintext throughput: produce {ratios['produce'][-1]:.2f}, "
          f"consume {ratios['consume'][-1]:.2f}")
for kind, i, field in (("produce", 0, "mb_per_sec"), ("consume", 1, "fetch_mb_per_sec")):
    plain = statistics.median(runs[(r, "plain")][i][field] for r in rounds)
    tls = statistics.median(runs[(r, "tls")][i][field] for r in rounds)
    print(f"median {kind}: plaintext {plain:.1f} MB/s, TLS {tls:.1f} MB/s; "
          f"median TLS/plaintext ratio {statistics.median(ratios[kind]):.2f}")
PY
kill -TERM "$pid"
wait "$pid" || echo "broker exited $?" >&2
pid=""
