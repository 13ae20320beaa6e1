"""Consumer groups against the group coordinator (coordinator/group/) with real
clients: librdkafka consumers (in-process and as separate processes, so they
can be SIGKILLed), kcat -G, confluent-kafka's AdminClient, and raw requests
where the 1.7 client has no API. Every wait polls a condition with a deadline.

Brokers run with offsets.topic.replication.factor=1 (a one-node cluster),
group.initial.rebalance.delay.ms=0 and short session timeouts."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import group_wire as gw
import kafka_wire as kw
import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from samsa_harness import run_kcat, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))

GROUP_BROKER = {
    "offsets.topic.replication.factor": 1,
    "group.initial.rebalance.delay.ms": 0,
    "group.min.session.timeout.ms": 500,
}
SESSION_MS = 2000


@pytest.fixture
def group_broker(start_broker):
    return start_broker(overrides=GROUP_BROKER)


def create_topics(bootstrap, topics):
    """topics: {name: partitions}; waits until every partition has a leader."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fs = admin.create_topics([NewTopic(n, num_partitions=p, replication_factor=1)
                              for n, p in topics.items()])
    for f in fs.values():
        f.result(timeout=15)

    def ready():
        md = admin.list_topics(timeout=5).topics
        return all(n in md and len(md[n].partitions) == p and
                   all(x.leader >= 0 for x in md[n].partitions.values())
                   for n, p in topics.items())
    wait_until(ready, 15, "topics have leaders")


def produce(bootstrap, topic, values, partition=None, spread=None):
    """To `partition`, or round-robin over `spread` partitions (librdkafka's
    sticky partitioner may put a whole small run into one partition)."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i, v in enumerate(values):
        if spread:
            p.produce(topic, value=v.encode(), partition=i % spread)
        elif partition is None:
            p.produce(topic, value=v.encode())
        else:
            p.produce(topic, value=v.encode(), partition=partition)
    assert p.flush(15) == 0


def consumer_conf(bootstrap, group, **extra):
    conf = {"bootstrap.servers": bootstrap, "group.id": group,
            "session.timeout.ms": SESSION_MS, "heartbeat.interval.ms": 200,
            "max.poll.interval.ms": 10000, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "enable.partition.eof": False}
    conf.update(extra)
    return conf


def tps(*names):
    """'t0p1' -> ('t0', 1)"""
    out = set()
    for n in names:
        t, p = n.rsplit("p", 1)
        out.add((t, int(p)))
    return out


def assignment_of(consumer):
    return {(tp.topic, tp.partition) for tp in consumer.assignment()}


def poll_all(consumers, until, what, timeout=30.0):
    """Polls every in-process consumer (rebalances happen inside poll) until
    `until()` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for c in consumers:
            c.poll(0.02)
        if until():
            return
    raise AssertionError(f"timed out after {timeout}s waiting for {what}: " +
                         str([sorted(assignment_of(c)) for c in consumers]))


class MemberProcess:
    """A group member in its own process (group_consumer.py), its reports
    collected by a reader thread."""

    def __init__(self, bootstrap, group, topics, client_id, commit_every=1, **conf):
        spec = {"conf": consumer_conf(bootstrap, group, **{"client.id": client_id, **conf}),
                "topics": topics, "commit_every": commit_every}
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "group_consumer.py"),
                                      json.dumps(spec)], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.events = []
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            with self.lock:
                self.events.append(json.loads(line))

    def assignment(self):
        with self.lock:
            for e in reversed(self.events):
                if e["event"] == "assigned":
                    return {tuple(x) for x in e["partitions"]}
        return set()

    def assignments(self):
        with self.lock:
            return [{tuple(x) for x in e["partitions"]} for e in self.events
                    if e["event"] == "assigned"]

    def records(self):
        with self.lock:
            return [e for e in self.events if e["event"] == "record"]

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=20)
        self.reader.join(timeout=5)

    def closed(self):
        with self.lock:
            return any(e["event"] == "closed" for e in self.events)


@pytest.fixture
def members():
    started = []
    yield started
    for m in started:
        m.stop(signal.SIGKILL)


def wait_assignments(ms, cond, what, timeout=30.0):
    wait_until(lambda: cond([m.assignment() for m in ms]), timeout,
               f"{what}: {[sorted(m.assignment()) for m in ms]}")


def all_of(topic, n):
    return {(topic, p) for p in range(n)}


# --- FindCoordinator ------------------------------------------------------------

def test_find_coordinator_creates_the_offsets_topic_and_names_its_leader(group_broker):
    with kw.KafkaConnection.to(group_broker) as conn:
        for version in range(0, 4):
            [c] = gw.find_coordinator(conn, version, ["my-group"])
            assert c["error_code"] == gw.NONE, c
            assert (c["node_id"], c["host"], c["port"]) == (1, "127.0.0.1", group_broker.port)
        got = gw.find_coordinator(conn, 4, ["a", "b", "c"])
        assert [c["key"] for c in got] == ["a", "b", "c"]
        assert all(c["error_code"] == gw.NONE and c["port"] == group_broker.port for c in got)
        # No transaction coordinator yet; unknown key types are invalid.
        [txn] = gw.find_coordinator(conn, 4, ["txn-1"], key_type=1)
        assert txn["error_code"] == gw.COORDINATOR_NOT_AVAILABLE
        assert (txn["node_id"], txn["port"]) == (-1, -1)
        [bad] = gw.find_coordinator(conn, 4, ["x"], key_type=7)
        assert bad["error_code"] == gw.INVALID_REQUEST
        md = conn.metadata(version=12, topics=["__consumer_offsets"])
    [topic] = md.topics
    assert topic.is_internal and len(topic.partitions) == 50


def test_find_coordinator_is_unavailable_while_the_offsets_topic_cannot_be_created(broker):
    # The default offsets.topic.replication.factor (3) exceeds the one broker.
    with kw.KafkaConnection.to(broker) as conn:
        [c] = gw.find_coordinator(conn, 2, ["g"])
        assert c["error_code"] == gw.COORDINATOR_NOT_AVAILABLE
        assert (c["node_id"], c["host"], c["port"]) == (-1, "", -1)


# --- assignors: the seeds' worked examples --------------------------------------

@pytest.mark.parametrize("strategy,partitions,expect_c0,expect_c1", [
    # Seed inventory ASG-03, ASG-04, ASG-06.
    ("range", 4, tps("t0p0", "t0p1", "t1p0", "t1p1"), tps("t0p2", "t0p3", "t1p2", "t1p3")),
    ("range", 3, tps("t0p0", "t0p1", "t1p0", "t1p1"), tps("t0p2", "t1p2")),
    ("roundrobin", 3, tps("t0p0", "t0p2", "t1p1"), tps("t0p1", "t1p0", "t1p2")),
])
def test_seed_assignor_examples(group_broker, strategy, partitions, expect_c0, expect_c1):
    bs = group_broker.bootstrap
    create_topics(bs, {"t0": partitions, "t1": partitions})
    group = f"seed-{strategy}-{partitions}"
    # Member ids start with the client id, and the assignors order members
    # by id: C0 sorts first.
    c0 = Consumer(consumer_conf(bs, group, **{"client.id": "C0",
                                              "partition.assignment.strategy": strategy}))
    c1 = Consumer(consumer_conf(bs, group, **{"client.id": "C1",
                                              "partition.assignment.strategy": strategy}))
    try:
        c0.subscribe(["t0", "t1"])
        poll_all([c0], lambda: len(assignment_of(c0)) == 2 * partitions, "C0 alone gets all")
        c1.subscribe(["t0", "t1"])
        poll_all([c0, c1], lambda: assignment_of(c0) == expect_c0 and
                 assignment_of(c1) == expect_c1, f"{strategy} assignment")
    finally:
        c0.close()
        c1.close()


# --- membership changes ---------------------------------------------------------

def test_members_split_partitions_rebalance_on_join_and_take_over_after_sigkill(
        group_broker, members):
    bs = group_broker.bootstrap
    create_topics(bs, {"six": 6})
    for i in range(3):
        members.append(MemberProcess(bs, "g6", ["six"], f"m{i}"))
    wait_assignments(members, lambda a: all(len(x) == 2 for x in a) and
                     set().union(*a) == all_of("six", 6), "three members get two each")

    members.append(MemberProcess(bs, "g6", ["six"], "m3"))
    wait_assignments(members, lambda a: all(1 <= len(x) <= 2 for x in a) and
                     sum(map(len, a)) == 6 and set().union(*a) == all_of("six", 6),
                     "a fourth member joins")

    victim = members[1]
    orphaned = victim.assignment()
    victim.stop(signal.SIGKILL)
    started = time.monotonic()
    rest = [m for m in members if m is not victim]
    wait_assignments(rest, lambda a: set().union(*a) == all_of("six", 6) and
                     sum(map(len, a)) == 6, "the killed member's partitions move", timeout=30)
    # Only its session timeout could have told the coordinator.
    assert time.monotonic() - started >= SESSION_MS / 1000 * 0.5
    assert orphaned <= set().union(*[m.assignment() for m in rest])


def test_cooperative_sticky_keeps_unaffected_partitions(group_broker, members):
    bs = group_broker.bootstrap
    create_topics(bs, {"coop": 6})
    for i in range(2):
        members.append(MemberProcess(bs, "gcoop", ["coop"], f"c{i}",
                                     **{"partition.assignment.strategy": "cooperative-sticky"}))
    wait_assignments(members, lambda a: [len(x) for x in a] == [3, 3], "two members, 3 each")
    before = [m.assignment() for m in members]
    members.append(MemberProcess(bs, "gcoop", ["coop"], "c2",
                                 **{"partition.assignment.strategy": "cooperative-sticky"}))
    wait_assignments(members, lambda a: [len(x) for x in a] == [2, 2, 2] and
                     set().union(*a) == all_of("coop", 6), "three members, 2 each")
    for m, old in zip(members[:2], before):
        # Sticky: each original member kept two of its three, and never held
        # anything it did not have before (no revoke-everything rebalance).
        assert m.assignment() <= old
        assert all(a <= old for a in m.assignments()[m.assignments().index(old):])


def test_clean_joins_and_leaves_consume_every_record_exactly_once(group_broker, members):
    bs = group_broker.bootstrap
    create_topics(bs, {"eo": 6})
    values = [f"v{i}" for i in range(600)]
    members.append(MemberProcess(bs, "geo", ["eo"], "a"))
    produce(bs, "eo", values[:200], spread=6)
    wait_until(lambda: len(members[0].records()) >= 50, 30, "the first member consumes")
    # Two more join while the first is consuming.
    members.append(MemberProcess(bs, "geo", ["eo"], "b"))
    members.append(MemberProcess(bs, "geo", ["eo"], "c"))
    wait_assignments(members, lambda a: [len(x) for x in a] == [2, 2, 2], "three members")
    produce(bs, "eo", values[200:400], spread=6)
    wait_until(lambda: all(m.records() for m in members[1:]), 30, "new members consume")
    members[1].stop()  # a clean leave: commits, LeaveGroup
    assert members[1].closed()
    rest = [members[0], members[2]]
    wait_assignments(rest, lambda a: [len(x) for x in a] == [3, 3], "the others take over")
    produce(bs, "eo", values[400:], spread=6)

    def consumed():
        return [r["value"] for m in members for r in m.records()]
    wait_until(lambda: len(set(consumed())) == len(values), 60, "every record consumed")
    for m in members:
        m.stop()
    got = consumed()
    assert sorted(got) == sorted(values), f"{len(got) - len(set(got))} duplicates"


def test_a_killed_member_causes_at_most_its_uncommitted_window_of_duplicates(
        group_broker, members):
    bs = group_broker.bootstrap
    create_topics(bs, {"alo": 4})
    values = [f"v{i}" for i in range(400)]
    window = 10
    for name in ("a", "b"):
        members.append(MemberProcess(bs, "galo", ["alo"], name, commit_every=window))
    wait_assignments(members, lambda a: [len(x) for x in a] == [2, 2], "two members")
    produce(bs, "alo", values[:200], spread=4)
    wait_until(lambda: all(len(m.records()) > window for m in members), 30, "both consume")
    victim = members[0]
    victim.stop(signal.SIGKILL)
    produce(bs, "alo", values[200:], spread=4)

    def consumed():
        return [r["value"] for m in members for r in m.records()]
    wait_until(lambda: set(consumed()) == set(values), 60, "every record consumed")
    dups = len(consumed()) - len(values)
    # What the victim read after its last completed commit, read again by
    # the member that took its partitions over: at most one commit window
    # (its commits cover every partition it owns).
    assert 0 <= dups <= window, dups


# --- committed offsets across restarts ------------------------------------------

@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_committed_offsets_survive_a_broker_restart(start_broker, how):
    b = start_broker(overrides=GROUP_BROKER)
    create_topics(b.bootstrap, {"keep": 2})
    produce(b.bootstrap, "keep", [f"a{i}" for i in range(10)], partition=0)
    produce(b.bootstrap, "keep", [f"b{i}" for i in range(10)], partition=1)
    c = Consumer(consumer_conf(b.bootstrap, "gkeep"))
    c.assign([TopicPartition("keep", 0), TopicPartition("keep", 1)])
    c.commit(offsets=[TopicPartition("keep", 0, 4), TopicPartition("keep", 1, 7)],
             asynchronous=False)
    c.close()

    if how == "SIGTERM":
        b.restart()
    else:
        b.kill(signal.SIGKILL)
        b.wait()
        b.start()

    c = Consumer(consumer_conf(b.bootstrap, "gkeep"))
    try:
        def committed():
            try:
                got = c.committed([TopicPartition("keep", 0), TopicPartition("keep", 1)],
                                  timeout=5)
            except Exception:
                return None  # e.g. COORDINATOR_LOAD_IN_PROGRESS right after start
            return [tp.offset for tp in got]
        assert wait_until(committed, 30, "committed offsets readable") == [4, 7]
        # A member resumes where the group committed.
        c.subscribe(["keep"])
        first = {}

        def first_records():
            msg = c.poll(0.05)
            if msg is not None and not msg.error():
                first.setdefault(msg.partition(), msg.value().decode())
            return len(first) == 2
        wait_until(first_records, 30, "one record from each partition")
        assert first == {0: "a4", 1: "b7"}
    finally:
        c.close()


def commit_simple(broker, group, offsets):
    """Commits as a simple consumer once the group's coordinator serves it."""
    with kw.KafkaConnection.to(broker) as conn:
        wait_until(lambda: gw.find_coordinator(conn, 2, [group])[0]["error_code"] == gw.NONE,
                   15, "a coordinator")
        wait_until(lambda: set(gw.offset_commit_v2(conn, group, offsets).values()) == {gw.NONE},
                   15, "the commit")


def test_group_state_survives_restart_without_a_rebalance(start_broker, members):
    b = start_broker(overrides=GROUP_BROKER)
    create_topics(b.bootstrap, {"stay": 2})
    # A session longer than the restart, or the client itself gives up on
    # the group (librdkafka's own session timer) and rejoins.
    m = MemberProcess(b.bootstrap, "gstay", ["stay"], "s",
                      **{"session.timeout.ms": 15000, "max.poll.interval.ms": 20000})
    members.append(m)
    wait_assignments([m], lambda a: a[0] == all_of("stay", 2), "assigned")
    b.restart()
    # The reloaded group keeps the member: its next heartbeats succeed and it
    # keeps consuming, without being told to rebalance.
    produce(b.bootstrap, "stay", ["after-restart"])
    wait_until(lambda: any(r["value"] == "after-restart" for r in m.records()), 30,
               "the member consumes after the restart")
    assert len(m.assignments()) == 1


# --- tools and admin ------------------------------------------------------------

def test_kcat_balanced_consumer_consumes_and_commits(group_broker):
    bs = group_broker.bootstrap
    create_topics(bs, {"kc": 1})
    produce(bs, "kc", [f"k{i}" for i in range(5)])
    res = run_kcat("-b", bs, "-G", "gkcat", "-c", "5", "-o", "beginning", "-f", "%s\n",
                   "-X", "session.timeout.ms=2000", "kc")
    assert res.stdout.split() == [f"k{i}" for i in range(5)]
    with kw.KafkaConnection.to(group_broker) as conn:
        offsets = gw.offset_fetch_groups(conn, {"gkcat": None})
    assert offsets["gkcat"] == (gw.NONE, {("kc", 0): 5})
    # A second run starts after the commit.
    produce(bs, "kc", ["k5"])
    res = run_kcat("-b", bs, "-G", "gkcat", "-c", "1", "-f", "%s\n", "kc")
    assert res.stdout.split() == ["k5"]


def test_admin_lists_describes_and_deletes_groups(group_broker):
    bs = group_broker.bootstrap
    create_topics(bs, {"adm": 2})
    c = Consumer(consumer_conf(bs, "gadmin", **{"client.id": "admin-test"}))
    c.subscribe(["adm"])
    poll_all([c], lambda: len(assignment_of(c)) == 2, "assigned")
    c.commit(offsets=[TopicPartition("adm", 0, 3), TopicPartition("adm", 1, 1)],
             asynchronous=False)
    commit_simple(group_broker, "simple-group", {("adm", 0): 9})

    admin = AdminClient({"bootstrap.servers": bs})
    groups = {g.id: g for g in admin.list_groups(timeout=10)}
    assert groups["gadmin"].state == "Stable"
    assert groups["gadmin"].protocol_type == "consumer"
    assert groups["gadmin"].protocol == "range"
    [member] = groups["gadmin"].members
    assert member.client_id == "admin-test" and member.client_host == "/127.0.0.1"
    assert groups["simple-group"].state == "Empty"

    with kw.KafkaConnection.to(group_broker) as conn:
        err, listed = gw.list_groups(conn, 4, states=["stable"])
        assert err == gw.NONE and [g["group_id"] for g in listed] == ["gadmin"]
        [d] = gw.describe_groups(conn, ["gadmin"])
        assert d["state"] == "Stable" and d["protocol"] == "range"
        assert d["authorized_operations"] != -2147483648
        [unknown] = gw.describe_groups(conn, ["no-such-group"])
        assert (unknown["error_code"], unknown["state"]) == (gw.NONE, "Dead")

        assert gw.delete_groups(conn, ["gadmin", "nope"]) == {
            "gadmin": gw.NON_EMPTY_GROUP, "nope": gw.GROUP_ID_NOT_FOUND}
        # Offsets of a topic the active group consumes cannot go.
        err, parts = gw.offset_delete(conn, "gadmin", {"adm": [0]})
        assert (err, parts) == (gw.NONE, {("adm", 0): gw.GROUP_SUBSCRIBED_TO_TOPIC})
        err, parts = gw.offset_delete(conn, "simple-group", {"adm": [0], "missing": [0]})
        assert err == gw.NONE
        assert parts == {("adm", 0): gw.NONE, ("missing", 0): 3}  # UNKNOWN_TOPIC_OR_PARTITION
        assert gw.offset_delete(conn, "nope", {"adm": [0]})[0] == gw.GROUP_ID_NOT_FOUND

    c.close()  # LeaveGroup: the group empties
    with kw.KafkaConnection.to(group_broker) as conn:
        wait_until(lambda: gw.describe_groups(conn, ["gadmin"])[0]["state"] == "Empty", 10,
                   "the group is empty")
        fetched = gw.offset_fetch_groups(conn, {"gadmin": None, "simple-group": None})
        assert fetched["gadmin"] == (gw.NONE, {("adm", 0): 3, ("adm", 1): 1})
        assert gw.delete_groups(conn, ["gadmin"]) == {"gadmin": gw.NONE}
        assert gw.describe_groups(conn, ["gadmin"])[0]["state"] == "Dead"
        assert gw.offset_fetch_groups(conn, {"gadmin": {"adm": [0]}}) == {
            "gadmin": (gw.NONE, {("adm", 0): -1})}
    assert "gadmin" not in {g.id for g in admin.list_groups(timeout=10)}


def test_deleting_a_topic_removes_its_committed_offsets(group_broker):
    bs = group_broker.bootstrap
    create_topics(bs, {"doomed": 1, "kept": 1})
    commit_simple(group_broker, "gdel", {("doomed", 0): 5, ("kept", 0): 6})
    admin = AdminClient({"bootstrap.servers": bs})
    admin.delete_topics(["doomed"])["doomed"].result(timeout=15)
    with kw.KafkaConnection.to(group_broker) as conn:
        wait_until(lambda: gw.offset_fetch_groups(conn, {"gdel": None})["gdel"] ==
                   (gw.NONE, {("kept", 0): 6}), 15, "the deleted topic's offsets go")


def test_static_member_restart_keeps_its_assignment_without_a_rebalance(group_broker, members):
    bs = group_broker.bootstrap
    create_topics(bs, {"st": 4})
    static = {"group.instance.id": "instance-1", "session.timeout.ms": 10000}
    a = MemberProcess(bs, "gstatic", ["st"], "a", **static)
    b = MemberProcess(bs, "gstatic", ["st"], "b")
    members.extend([a, b])
    wait_assignments(members, lambda x: [len(s) for s in x] == [2, 2], "two members")
    b_assignments = len(b.assignments())
    before = a.assignment()
    # librdkafka sends no LeaveGroup for a static member: a restart within
    # the session takes its place back and the other member sees nothing.
    a.stop()
    a2 = MemberProcess(bs, "gstatic", ["st"], "a", **static)
    members.append(a2)
    wait_assignments([a2], lambda x: x[0] == before, "the restarted member's partitions")
    assert len(b.assignments()) == b_assignments


def test_join_group_v0_and_member_id_required_v4(group_broker):
    with kw.KafkaConnection.to(group_broker) as conn:
        gw.find_coordinator(conn, 0, ["old-client"])
        r = wait_until(lambda: (lambda x: x if x["error_code"] == gw.NONE else None)(
            gw.join_group_v0(conn, "old-client", metadata=b"m")), 10, "JoinGroup v0")
        assert r["generation_id"] == 1 and r["leader"] == r["member_id"]
        assert r["member_id"].startswith("samsa-it-")
        assert r["members"] == [(r["member_id"], b"m")]


def test_offset_fetch_reports_group_errors_where_each_version_has_room(group_broker):
    with kw.KafkaConnection.to(group_broker) as conn:
        # Before __consumer_offsets exists nobody coordinates the group: v0-v1
        # carry the error on each partition, v2+ at the top.
        assert gw.offset_fetch(conn, "early", {"t": [0, 1]}, 1) == (
            None, {("t", 0): (-1, gw.NOT_COORDINATOR), ("t", 1): (-1, gw.NOT_COORDINATOR)})
        assert gw.offset_fetch(conn, "early", {"t": [0]}, 2) == (gw.NOT_COORDINATOR, {})
    create_topics(group_broker.bootstrap, {"t": 2})
    commit_simple(group_broker, "early", {("t", 0): 12})
    with kw.KafkaConnection.to(group_broker) as conn:
        assert gw.offset_fetch(conn, "early", {"t": [0, 1]}, 1) == (
            None, {("t", 0): (12, gw.NONE), ("t", 1): (-1, gw.NONE)})
        # v2+: null topics means every committed offset of the group.
        assert gw.offset_fetch(conn, "early", None, 5) == (gw.NONE, {("t", 0): (12, gw.NONE)})
