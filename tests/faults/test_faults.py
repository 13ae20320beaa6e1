"""The quick fault runs (docs/faults.md): one short seeded run per nemesis on a
three-node cluster in network namespaces, each checked for anomalies
(test_separate_roles.py runs with the controllers apart); and two runs that
lose acknowledged writes on purpose, which the checker must report as lost: a
one-replica partition's data deleted, and acks=1 records that only the leader
had when a follower took over.

Needs root (network namespaces, nftables): without it every test here fails
with the reason, so that a run that cannot test faults is not taken for one
that passed. SAMSA_FAULTS_SEED replaces the fixed seeds (replay a report's
run with its seed)."""
import os
import shutil
import signal
import threading

import pytest

import checker
import kafka_wire as kw
import nemesis as nem
import netns
import run as runner
import workload
from samsa_harness import wait_until

# Fixed seeds, so that `make test` runs the same timelines every time.
QUICK_SEEDS = {kind: 1000 + i for i, kind in enumerate(nem.KINDS)}


@pytest.fixture(scope="module")
def harness():
    why = netns.can_create_namespaces()
    if why:
        pytest.fail(f"tests/faults cannot run: {why}", pytrace=False)
    try:
        h = runner.Harness(3)
    except RuntimeError as e:
        pytest.fail(f"tests/faults cannot run: {e}", pytrace=False)
    h.open()
    yield h
    h.close()


def _seed(kind: str) -> int:
    env = os.environ.get("SAMSA_FAULTS_SEED")
    return int(env) if env else QUICK_SEEDS[kind]


@pytest.mark.parametrize("kind", nem.KINDS)
def test_quick_run(harness, kind):
    seed = _seed(kind)
    rr = runner.run_one(harness, [kind], seed, runner.QUICK_DURATION, f"{kind}-{seed}")
    check_run(rr, kind, seed)


def check_run(rr, what: str, seed: int) -> None:
    print(rr.line())
    text = (rr.dir / "report.txt").read_text()
    assert not rr.result.anomalies, f"anomalies under {what} (seed {seed}):\n{text}"
    assert not rr.result.errors and not rr.errors, f"run {what} (seed {seed}) failed:\n{text}"


def test_checker_reports_acknowledged_writes_deleted_on_purpose(harness):
    """A partition with one replica (node 1): acknowledged values, then node 1
    killed, the partition's directory deleted and the node restarted. The
    data is gone, and the checker must say so: every acked value lost."""
    c = harness.cluster
    c.wait_healthy(timeout=120)
    topic = "faults-injected-loss"
    workload.create_topic(c.bootstrap, topic, 1, 1, 1, replica_assignment=[[1]])
    history = workload.History()
    stop = threading.Event()
    w = workload.ProducerWorker("p0", c.bootstrap, topic, 1, history, stop, rate=200.0,
                                limit=100)
    w.start()
    w.join(timeout=workload.MESSAGE_TIMEOUT_MS / 1000 + 60)
    acked = [e for e in history.snapshot() if e["type"] == "ack"]
    assert len(acked) == 100, f"only {len(acked)} of 100 sends acknowledged: {w.errors}"
    # The test's own deletion: kill -9, remove the partition's data, restart.
    node = c.node(1)
    node.killed = True
    node.kill(signal.SIGKILL)
    node.wait(timeout=20)
    history.add(type="nemesis", phase="start", fault="wipe", detail=f"node 1: {topic}-0 deleted")
    dirs = [d for d in node.data_dir.iterdir() if d.name == f"{topic}-0"]
    assert dirs, f"no directory {topic}-0 in {node.data_dir}: {sorted(os.listdir(node.data_dir))}"
    for d in dirs:
        shutil.rmtree(d)
    node.start(wait_ready=False)
    node.killed = False
    history.add(type="nemesis", phase="heal", fault="wipe", detail="node 1 restarted")
    c.wait_healthy(timeout=120)
    workload.wait_settled(c.bootstrap, topic, 1, history, timeout=30, stable_for=3)
    workload.final_read(c.bootstrap, topic, 1, history, timeout=60)
    events = history.snapshot()
    result = checker.check(events)
    text = checker.summary(result, events, limit=3)
    lost = [a for a in result.anomalies if a.kind == "lost"]
    assert len(lost) == 100, text
    assert not result.errors, text


def _leader_of(nodes, topic):
    """Partition 0's leader as the first of `nodes` that answers says, or None."""
    for b in nodes:
        try:
            with kw.KafkaConnection(b.host, b.port, timeout=3) as conn:
                md = conn.metadata(9, [topic], allow_auto_topic_creation=False)
        except (OSError, AssertionError):
            continue
        for t in md.topics:
            if t.name == topic and t.error_code == 0 and t.partitions:
                return t.partitions[0]["leader_id"]
    return None


def test_checker_reports_acks1_writes_lost_to_a_leader_change(harness):
    """Kafka's own way to lose acknowledged writes, no bug needed: acks=1
    records the leader acknowledged while its followers were paused,
    then the leader killed and the followers resumed; a follower becomes
    leader without them. The checker must report them lost."""
    c = harness.cluster
    c.wait_healthy(timeout=120)
    topic = "faults-acks1-loss"
    workload.create_topic(c.bootstrap, topic, 1, 3, 1, replica_assignment=[[1, 2, 3]])
    history = workload.History()
    # Node 1 leads it (first in the list), unless it was not there to take it.
    leader_id = _leader_of(c.nodes, topic)
    assert leader_id in (1, 2, 3), f"no leader for {topic}"
    leader = c.node(leader_id)
    followers = [b for b in c.nodes if b is not leader]
    for b in followers:
        b.paused = True
        b.kill(signal.SIGSTOP)
    history.add(type="nemesis", phase="start", fault="pause",
                detail=f"followers {[b.node_id for b in followers]}")
    try:
        w = workload.ProducerWorker("p0", leader.bootstrap, topic, 1, history, threading.Event(),
                                    rate=200.0, limit=50, acks="1", idempotent=False)
        w.start()
        w.join(timeout=workload.MESSAGE_TIMEOUT_MS / 1000 + 60)
        acked = [e for e in history.snapshot() if e["type"] == "ack"]
        assert len(acked) == 50, f"only {len(acked)} of 50 acks=1 sends acknowledged"
        leader.killed = True
        leader.kill(signal.SIGKILL)
        leader.wait(timeout=20)
        history.add(type="nemesis", phase="start", fault="kill", detail=f"leader {leader_id}")
    finally:
        for b in followers:
            b.kill(signal.SIGCONT)
            b.paused = False
        history.add(type="nemesis", phase="heal", fault="pause", detail="followers resumed")

    def new_leader():
        got = _leader_of(followers, topic)
        return got if got not in (None, -1, leader_id) else None
    wait_until(new_leader, 90, f"a new leader of the partition other than node {leader_id}")
    leader.start(wait_ready=False)
    leader.killed = False
    history.add(type="nemesis", phase="heal", fault="kill", detail=f"node {leader_id} restarted")
    c.wait_healthy(timeout=120)
    workload.wait_settled(c.bootstrap, topic, 1, history, timeout=30, stable_for=3)
    workload.final_read(c.bootstrap, topic, 1, history, timeout=60)
    events = history.snapshot()
    result = checker.check(events)
    text = checker.summary(result, events, limit=3)
    # The followers may still hold what the leader sent them before they
    # stopped: the response to the fetch each had in flight sits in its
    # socket buffer and is appended once it resumes, before it notices that
    # the leader is gone. At most a fetch's worth survives; every other acked
    # value must be reported lost, and nothing else.
    survived = {e["value"] for e in events if e["type"] == "read" and e["consumer"] == checker.FINAL}
    acked_values = {e["value"] for e in events if e["type"] == "ack"}
    lost = {events[a.events[-1]]["value"] for a in result.anomalies if a.kind == "lost"}
    assert lost == acked_values - survived, text
    assert len(lost) >= 25, text
    assert len(lost) == len(result.anomalies), text
