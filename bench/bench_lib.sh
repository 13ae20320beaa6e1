# Shared by the benchmark scripts: `source bench/bench_lib.sh NAME` from the
# repository root. Sets $SAMSA (SAMSA_BIN or build/samsa, which must exist),
# $work (a fresh temp dir) and $pids (processes killed, and $work removed,
# on exit), and defines free_port and json ('<json line>' | json "['key']").
SAMSA=${SAMSA_BIN:-build/samsa}
[ -x "$SAMSA" ] || { echo "build first: make build" >&2; exit 1; }
work=$(mktemp -d "/tmp/samsa-${1:-bench}-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json() { /usr/bin/python3 -c "import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(eval('d'+sys.argv[1]))" "$1"; }
