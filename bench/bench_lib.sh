# Shared by the benchmark scripts: `source bench/bench_lib.sh NAME` from the
# repository root. Sets $SAMSA (SAMSA_BIN or build/samsa, which must exist),
# $work (a fresh temp dir) and $pids (processes killed, and $work removed,
# on exit), and defines free_port, json ('<json line>' | json "['key']") and
# start_node (below).
SAMSA=${SAMSA_BIN:-build/samsa}
[ -x "$SAMSA" ] || { echo "build first: make build" >&2; exit 1; }
work=$(mktemp -d "/tmp/samsa-${1:-bench}-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json() { /usr/bin/python3 -c "import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(eval('d'+sys.argv[1]))" "$1"; }

# start_node [--override k=v ...]: one node, broker and controller, data in
# $work/data, log in $work/broker.log; sets $broker (its pid), $port, $cport
# and $bs, and returns once its client listener is up. Called again after the
# node was killed, it starts it on the same ports.
start_node() {
  port=${port:-$(free_port)}; cport=${cport:-$(free_port)}
  local before; before=$(grep -c "event=listening listener=PLAINTEXT" "$work/broker.log" 2>/dev/null || true)
  "$SAMSA" server config/server.properties --override "log.dirs=$work/data" --override metrics.listener= \
    --override "listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport" \
    --override "controller.quorum.voters=1@127.0.0.1:$cport" "$@" >>"$work/broker.log" 2>&1 &
  broker=$!; pids+=("$broker")
  disown "$broker"  # killed at exit without a "Killed" line
  bs="127.0.0.1:$port"
  for _ in $(seq 600); do
    [ "$(grep -c "event=listening listener=PLAINTEXT" "$work/broker.log")" -gt "${before:-0}" ] && return 0
    kill -0 "$broker" 2>/dev/null || { echo "the node exited: $work/broker.log" >&2; return 1; }
    sleep 0.1
  done
  echo "the node did not listen within 60 s" >&2; return 1
}
