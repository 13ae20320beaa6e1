#!/usr/bin/env python3
"""Group rebalance benchmark (run by hand, not part of `make test`): N members
join one group one at a time, and each join is timed until the group has
settled again, for the classic protocol (JoinGroup/SyncGroup, client-side
assignor) and the KIP-848 consumer protocol (group.protocol=consumer,
ConsumerGroupHeartbeat, the server's uniform assignor), in one run; prints the
total, median and p95 per join of each and the ratios consumer / classic (the
target: consumer <= 0.5 x classic).

    /usr/bin/python3 bench/rebalance_bench.py [--members N] [--partitions P]
        [--protocols classic-range,classic-cooperative,consumer] [--rounds R]
        [--gap-ms MS] [--per-join]

The members are librdkafka 2.15.1 consumers (tests/clients/librdkafka/setup.sh
builds it; $RDKAFKA_LIB names another build dir) on Debian's confluent-kafka:
each protocol runs in a child process of its own, `/usr/bin/python3` with
LD_LIBRARY_PATH at that build, holding all N Consumer instances and polling
them round-robin with poll(0) (a 2 ms sleep after a pass where nothing
changed, so that the loop leaves the broker and librdkafka's threads a core
of the two).

Each protocol gets a fresh broker (same settings; the dead members of the
previous run are not fenced during the next) and one topic of P partitions
(default 100, so the 100th member gets one). Join k is timed from just before
the k-th Consumer is created until every member's assignment() covers every
partition exactly once and is balanced (each holds floor(P/k) or ceil(P/k)
partitions; the range, cooperative-sticky and uniform assignors all end
there), so a consumer-protocol member half-way through (some partitions
received, some still being revoked elsewhere) does not count as settled.

The same pacing for both protocols: heartbeats every 1000 ms (classic: the
client's heartbeat.interval.ms; consumer: the broker's
group.consumer.heartbeat.interval.ms, its minimum lowered to 1000), session
timeouts of 45 s, group.initial.rebalance.delay.ms=0 on the broker,
enable.auto.commit=false and an empty topic (no commits, nothing to fetch).
By default member k+1 is created as soon as join k has settled; --gap-ms
waits a random 0..MS first (the members' heartbeat phases then fall anywhere
relative to the join, rather than about one interval away).

Besides the time to settle, each join reports (as medians) when the newcomer
was first handed partitions, when the old members' revoke callbacks ran, how
many partitions they revoked, and the partition-seconds a revoked partition
spent without an owner until it was assigned again.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = "/usr/bin/python3"
RDK_VERSION = "2.15.1"
DEFAULT_LIB = REPO / "build" / "clients" / "librdkafka" / "package" / "deps" / "librdkafka" / "src"
HEARTBEAT_MS = 1000
SESSION_MS = 45000
JOIN_TIMEOUT_S = 120.0
IDLE_SLEEP_S = 0.002
TOPIC = "rebalance-bench"

PROTOCOLS = {
    # name: (label, client properties)
    "classic-range": ("classic (range)", {
        "group.protocol": "classic", "partition.assignment.strategy": "range",
        "heartbeat.interval.ms": HEARTBEAT_MS, "session.timeout.ms": SESSION_MS}),
    "classic-cooperative": ("classic (cooperative-sticky)", {
        "group.protocol": "classic", "partition.assignment.strategy": "cooperative-sticky",
        "heartbeat.interval.ms": HEARTBEAT_MS, "session.timeout.ms": SESSION_MS}),
    "consumer": ("consumer (uniform)", {
        "group.protocol": "consumer", "group.remote.assignor": "uniform"}),
}

BROKER = {
    "offsets.topic.replication.factor": 1,
    "group.initial.rebalance.delay.ms": 0,
    "group.coordinator.rebalance.protocols": "classic,consumer",
    "group.consumer.heartbeat.interval.ms": HEARTBEAT_MS,
    "group.consumer.min.heartbeat.interval.ms": HEARTBEAT_MS,
    "group.consumer.session.timeout.ms": SESSION_MS,
}


# --- child: N members of one protocol ---------------------------------------
def child(spec: dict) -> int:
    from confluent_kafka import Consumer, libversion

    if libversion()[0] != RDK_VERSION:
        raise SystemExit(f"librdkafka {libversion()[0]} loaded, {RDK_VERSION} needed "
                         f"(LD_LIBRARY_PATH={os.environ.get('LD_LIBRARY_PATH')})")
    n, parts = spec["members"], spec["partitions"]
    base = {"bootstrap.servers": spec["bootstrap"], "group.id": spec["group"],
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "enable.partition.eof": False, **spec["conf"]}
    consumers = []
    events: list[tuple[float, int, str, list]] = []  # (t, member, kind, partitions)
    dirty = [False]

    def callbacks(idx):
        def on_assign(c, ps):
            events.append((time.monotonic(), idx, "assign", [p.partition for p in ps]))
            dirty[0] = True

        def on_revoke(c, ps):
            events.append((time.monotonic(), idx, "revoke", [p.partition for p in ps]))
            dirty[0] = True

        def on_lost(c, ps):
            events.append((time.monotonic(), idx, "lost", [p.partition for p in ps]))
            dirty[0] = True
        return {"on_assign": on_assign, "on_revoke": on_revoke, "on_lost": on_lost}

    def settled(k: int) -> bool:
        lo, hi = parts // k, -(-parts // k)
        seen = set()
        total = 0
        for c in consumers:
            a = c.assignment()
            if not lo <= len(a) <= hi:
                return False
            total += len(a)
            seen.update(p.partition for p in a)
        return total == parts and len(seen) == parts

    joins = []
    cpu0 = os.times()
    for k in range(1, n + 1):
        mark = len(events)
        t0 = time.monotonic()
        c = Consumer({**base, "client.id": f"m{k}"})
        c.subscribe([TOPIC], **callbacks(k - 1))
        consumers.append(c)
        last_check = 0.0
        while True:
            dirty[0] = False
            for m in consumers:
                m.poll(0)
            now = time.monotonic()
            if dirty[0] or now - last_check >= 0.2:
                last_check = now
                if settled(k):
                    break
            elif not dirty[0]:
                time.sleep(IDLE_SLEEP_S)
            if now - t0 > JOIN_TIMEOUT_S:
                print(json.dumps({"error": f"join {k} not settled after {JOIN_TIMEOUT_S}s",
                                  "sizes": [len(m.assignment()) for m in consumers]}),
                      flush=True)
                os._exit(2)
        t1 = time.monotonic()
        # a gap of a few heartbeats (at random) before the next join, if asked
        gap_end = t1 + random.uniform(0, spec["gap_ms"] / 1000)
        while time.monotonic() < gap_end:
            for m in consumers:
                m.poll(0)
            time.sleep(IDLE_SLEEP_S)
        mine = events[mark:]
        # partition-seconds without an owner: from a revoke (or loss) to the
        # next assign of that partition, for the partitions that moved
        released: dict[int, float] = {}
        paused = 0.0
        for t, i, kind, ps in mine:
            for p in ps:
                if kind == "assign":
                    if p in released:
                        paused += t - released.pop(p)
                elif t <= t1:
                    released[p] = t
        new_assigned = [t for t, i, kind, np in mine if i == k - 1 and kind == "assign" and np and t <= t1]
        revokes = [t for t, i, kind, np in mine if i != k - 1 and kind == "revoke" and np and t <= t1]
        joins.append({
            "k": k, "s": t1 - t0,
            # when the newcomer was first handed partitions, and when the old
            # members' revoke callbacks ran (first, last), from t0
            "new_assigned": (new_assigned[0] - t0) if new_assigned else None,
            "first_revoke": (revokes[0] - t0) if revokes else None,
            "last_revoke": (revokes[-1] - t0) if revokes else None,
            "revokers": len({i for t, i, kind, np in mine
                             if i != k - 1 and kind == "revoke" and np and t <= t1}),
            "revoked": sum(len(np) for t, i, kind, np in mine
                           if i != k - 1 and kind == "revoke" and t <= t1),
            "paused_ps": paused,
        })
    cpu1 = os.times()
    print(json.dumps({"joins": joins,
                      "client_cpu_s": (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)}),
          flush=True)
    # No close(): N leaving members would be N more rebalances; the broker goes.
    os._exit(0)


# --- parent: a broker per protocol, the child, the summary -------------------
def proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_protocol(name: str, members: int, partitions: int, gap_ms: int, lib: Path,
                 rnd: int) -> dict:
    sys.path.insert(0, str(REPO / "tests" / "integration"))
    from samsa_harness import Broker

    broker = Broker(overrides=BROKER)
    broker.start()
    try:
        env = dict(os.environ, LD_LIBRARY_PATH=str(lib))
        create = subprocess.run(
            [PYTHON, "-c", CREATE_TOPIC, broker.bootstrap, TOPIC, str(partitions)],
            env=env, capture_output=True, text=True, timeout=120)
        if create.returncode != 0:
            raise RuntimeError(f"topic creation failed: {create.stdout}{create.stderr}")
        time.sleep(1)  # let the broker settle before the first join
        cpu0 = proc_cpu_s(broker.pid)
        spec = {"members": members, "partitions": partitions, "gap_ms": gap_ms,
                "bootstrap": broker.bootstrap,
                "group": f"bench-{name}-{rnd}-{os.getpid()}", "conf": PROTOCOLS[name][1]}
        out = subprocess.run([PYTHON, __file__, "--child", json.dumps(spec)], env=env,
                             capture_output=True, text=True,
                             timeout=members * JOIN_TIMEOUT_S + 60)
        broker_cpu = proc_cpu_s(broker.pid) - cpu0
        lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
        if out.returncode != 0 or not lines:
            raise RuntimeError(f"{name}: child exited {out.returncode}: {out.stdout[-2000:]}"
                               f"\n{out.stderr[-3000:]}")
        result = json.loads(lines[-1])
        if "error" in result:
            raise RuntimeError(f"{name}: {result}")
        result["broker_cpu_s"] = broker_cpu
        return result
    finally:
        broker.cleanup()


CREATE_TOPIC = r"""
import sys, time
from confluent_kafka.admin import AdminClient, NewTopic
bs, topic, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
a = AdminClient({"bootstrap.servers": bs})
for f in a.create_topics([NewTopic(topic, n, 1)], operation_timeout=60).values():
    f.result(90)
deadline = time.monotonic() + 60
while True:
    md = a.list_topics(topic, timeout=10).topics.get(topic)
    if md is not None and md.error is None and len(md.partitions) == n and \
            all(p.leader >= 0 for p in md.partitions.values()):
        break
    if time.monotonic() > deadline:
        raise SystemExit("topic not ready")
    time.sleep(0.1)
"""


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        return child(json.loads(sys.argv[2]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=100)
    ap.add_argument("--partitions", type=int, default=100)
    ap.add_argument("--protocols", default="classic-range,classic-cooperative,consumer",
                    help="comma-separated, of: " + ", ".join(PROTOCOLS))
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of every protocol, in alternating order")
    ap.add_argument("--gap-ms", type=int, default=0,
                    help="after a join settled, wait a random 0..GAP ms before the next "
                         "(0: the next member joins at once)")
    ap.add_argument("--per-join", action="store_true", help="print every join")
    args = ap.parse_args()
    names = [p for p in args.protocols.split(",") if p]
    for p in names:
        if p not in PROTOCOLS:
            ap.error(f"unknown protocol {p}")
    if args.partitions < args.members:
        ap.error("--partitions must be at least --members (every member holds one)")
    lib = Path(os.environ.get("RDKAFKA_LIB") or DEFAULT_LIB)
    if not (lib / "librdkafka.so.1").is_file():
        print(f"librdkafka {RDK_VERSION} not found at {lib}: "
              "scripts/setup-clients.sh build/clients (or set RDKAFKA_LIB)", file=sys.stderr)
        return 1

    runs: dict[str, list[dict]] = {p: [] for p in names}
    for rnd in range(args.rounds):
        order = names if rnd % 2 == 0 else names[::-1]
        for p in order:
            r = run_protocol(p, args.members, args.partitions, args.gap_ms, lib, rnd)
            runs[p].append(r)
            if args.per_join:
                for j in r["joins"]:
                    print(f"  {p} round {rnd + 1} join {j['k']:3}: {j['s']:.3f} s, newcomer "
                          f"assigned at {fmt(j['new_assigned'])}, {j['revoked']} partitions "
                          f"revoked by {j['revokers']} members at {fmt(j['first_revoke'])}.."
                          f"{fmt(j['last_revoke'])}, {j['paused_ps']:.2f} partition-s unowned",
                          flush=True)

    print(f"{args.members} members joining one by one, {args.partitions} partitions, "
          f"heartbeat {HEARTBEAT_MS} ms, gap {args.gap_ms} ms, {args.rounds} round(s)")
    summary = {}
    for p in names:
        joins = [j for r in runs[p] for j in r["joins"]]
        secs = [j["s"] for j in joins]
        total = statistics.median(sum(j["s"] for j in r["joins"]) for r in runs[p])
        summary[p] = {"total": total, "median": statistics.median(secs), "p95": p95(secs)}
        print(f"{PROTOCOLS[p][0]:29} total {total:7.2f} s, per join median "
              f"{summary[p]['median']:.3f} s, p95 {summary[p]['p95']:.3f} s, max {max(secs):.3f} s")
        print(f"{'':29} medians per join: newcomer assigned at "
              f"{fmt(med(j['new_assigned'] for j in joins))}, revokes at "
              f"{fmt(med(j['first_revoke'] for j in joins))}..{fmt(med(j['last_revoke'] for j in joins))}"
              f" by {med(j['revokers'] for j in joins):.0f} members, "
              f"{med(j['revoked'] for j in joins):.0f} partitions revoked, "
              f"{med(j['paused_ps'] for j in joins):.2f} partition-s unowned; CPU: broker "
              f"{statistics.median(r['broker_cpu_s'] for r in runs[p]):.1f} s, clients "
              f"{statistics.median(r['client_cpu_s'] for r in runs[p]):.1f} s", flush=True)
    if "consumer" in summary:
        c = summary["consumer"]
        for p in names:
            if p == "consumer":
                continue
            b = summary[p]
            print(f"ratio consumer / {PROTOCOLS[p][0]}: total {c['total'] / b['total']:.2f}, "
                  f"median {c['median'] / b['median']:.2f}, p95 {c['p95'] / b['p95']:.2f}")
    return 0


def fmt(x) -> str:
    return "-" if x is None or x != x else f"{x:.3f}"


if __name__ == "__main__":
    raise SystemExit(main())
