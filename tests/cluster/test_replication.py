"""Partition data replicated over three brokers (RF 3): followers fetch from the
leader, the high watermark moves over the ISR, acks=all waits for it, the ISR
shrinks and expands (AlterPartition), and acknowledged records survive the
loss of leaders."""
import collections
import glob
import logging
import os
import re
import struct
import subprocess
import signal
import threading
import time

import pytest

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from metrics_support import scrape
from samsa_harness import wait_until

FAST = {
    "controller.quorum.election.timeout.ms": 500,
    "controller.quorum.fetch.timeout.ms": 1000,
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "offsets.topic.replication.factor": 3,
    "replica.fetch.wait.max.ms": 100,
}


def create(c, name, partitions=3, rf=3, config=None, assignment=None):
    """Creates the topic through any node, retrying while the controller
    moves; `assignment`: explicit replica lists instead of a factor."""
    a = AdminClient({"bootstrap.servers": c.bootstrap})
    deadline = time.monotonic() + 45
    while True:
        if assignment:
            t = NewTopic(name, num_partitions=len(assignment), replica_assignment=assignment,
                         config=config or {})
        else:
            t = NewTopic(name, num_partitions=partitions, replication_factor=rf,
                         config=config or {})
        f = a.create_topics([t], request_timeout=15)[name]
        try:
            f.result(timeout=20)
            break
        except KafkaException as e:
            if "already exists" in str(e).lower():
                break
            assert time.monotonic() < deadline, f"{e}\n{explain(c, name)}"
            time.sleep(0.2)
        except TimeoutError:
            assert time.monotonic() < deadline, f"create {name} timed out\n{explain(c, name)}"
    n = len(assignment) if assignment else partitions
    wait_until(lambda: all_leaders(c, name, n), 15, f"leaders for {name}")


def partitions_of(c, name, via=None):
    """{partition: (leader, replicas, isr)} as a running node sees it."""
    for b in ([via] if via else c.running()):
        try:
            md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(name, timeout=5)
        except KafkaException:
            continue
        t = md.topics.get(name)
        if t is not None and t.error is None:
            return {p.id: (p.leader, sorted(p.replicas), sorted(p.isrs))
                    for p in t.partitions.values()}
    return {}


def explain(c, topic):
    """What each node sees and logged about replication: for failure messages."""
    lines = []
    dump = os.environ.get("SAMSA_DUMP_DIR")
    for b in c.nodes:
        if dump:
            # Whole node logs for a post-mortem of a failure.
            os.makedirs(dump, exist_ok=True)
            with open(os.path.join(dump, f"{topic}-node{b.node_id}.log"), "w") as f:
                f.write(b.log_text())
            if b.is_running():
                # Every thread's stack, for a node that stopped making progress.
                with open(os.path.join(dump, f"{topic}-node{b.node_id}.stacks"), "w") as f:
                    subprocess.run(["gdb", "-p", str(b.proc.pid), "-batch", "-ex",
                                    "thread apply all bt"], stdout=f, stderr=subprocess.STDOUT,
                                   timeout=60, check=False)
        lines.append(f"--- node {b.node_id} running={b.is_running()} "
                     f"sees {partitions_of(c, topic, via=b) if b.is_running() else '-'}")
        logged = b.log_text().splitlines()
        lines += [l for l in logged
                  if any(k in l for k in ("isr_change", "session_expired", "truncation",
                                          "fenced", "unfenced", "harness"))][-15:]
        lines += [l for l in logged if " warn" in l or " error" in l or "critical" in l][-15:]
    return "\n".join(lines)


def settle(c, topic, condition, timeout, what):
    try:
        return wait_until(condition, timeout, what)
    except TimeoutError as e:
        raise AssertionError(f"{e}\n{explain(c, topic)}") from None


def all_leaders(c, name, n):
    ps = partitions_of(c, name)
    return len(ps) == n and all(leader >= 0 for leader, _, _ in ps.values())


def produce(bootstrap, topic, values, **conf):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, **conf})
    acked, errors = [], []

    def cb(err, msg):
        (errors if err else acked).append(err or (msg.partition(), msg.offset(), msg.value()))

    for i, v in enumerate(values):
        p.produce(topic, value=v, key=str(i % 17).encode(), on_delivery=cb)
        p.poll(0)
    p.flush(60)
    return acked, errors


def read_all(bootstrap, topic, partitions, timeout=30):
    """Every record of `topic`, {partition: [values in offset order]}."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{time.time()}",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  "enable.partition.eof": True})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out = {p: [] for p in range(partitions)}
    done = set()
    deadline = time.monotonic() + timeout
    while len(done) < partitions and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                done.add(m.partition())
            continue
        out[m.partition()].append(m.value())
    c.close()
    return out


def segment_bytes(node, topic):
    out = {}
    for d in glob.glob(str(node.data_dir / f"{topic}-*")):
        if d.endswith("-delete"):
            continue
        part = d.rsplit("-", 1)[1]
        out[part] = b"".join(open(f, "rb").read() for f in sorted(glob.glob(d + "/*.log")))
    return out


@pytest.mark.parametrize("fetchers", [1, 2])
def test_acks_all_reaches_every_replica_byte_for_byte(cluster, fetchers):
    c = cluster(3, dict(FAST, **{"num.replica.fetchers": fetchers}))
    create(c, "mirror", partitions=3)
    # 1 KiB values in batches of up to 1 MiB: fetch answers end inside a batch
    # (cut at the byte limit), which followers must leave for the next fetch.
    values = [b"value-%06d-" % i + b"x" * 1000 for i in range(20000)]
    acked, errors = produce(c.bootstrap, "mirror", values,
                            **{"enable.idempotence": True, "batch.size": 1048576,
                               "linger.ms": 20})
    assert not errors and len(acked) == 20000
    got = read_all(c.bootstrap, "mirror", 3)
    assert sorted(v for vs in got.values() for v in vs) == sorted(values)
    # Followers hold what the leader wrote, batch for batch.
    def identical():
        copies = [segment_bytes(b, "mirror") for b in c.nodes]
        return copies[0] == copies[1] == copies[2] and sum(map(len, copies[0].values())) > 0
    wait_until(identical, 15, "the three replicas' segments identical")


def test_isr_shrinks_for_a_paused_follower_and_expands_after(cluster):
    # The ISR check, not the session, notices the pause: lag 1.5 s < session 20 s.
    # One controller (node 1) and two brokers only, so that pausing two nodes
    # leaves the controller a quorum; node 1 leads the partition.
    conf = dict(FAST, **{"replica.lag.time.max.ms": 1500, "broker.session.timeout.ms": 20000})
    c = cluster(3, conf, voters=[1])
    create(c, "isr", assignment=[[1, 2, 3]], config={"min.insync.replicas": "2"})
    leader, replicas, isr = partitions_of(c, "isr")[0]
    assert leader == 1
    assert isr == [1, 2, 3]
    f1, f2 = [b for b in c.nodes if b.node_id != leader]
    lead = c.node(leader)
    f1.kill(signal.SIGSTOP)
    try:
        wait_until(lambda: partitions_of(c, "isr", via=lead)[0][2] == sorted([leader, f2.node_id]),
                   15, "the paused follower dropped from the ISR")
        # The leader's metrics follow its ISR (Kafka's ReplicaManager gauges).
        m = scrape(lead)
        assert m.value("kafka_server_replicamanager_underreplicatedpartitions") == 1
        assert m.value("kafka_server_replicamanager_atminisrpartitioncount") == 1
        assert m.value("kafka_server_replicamanager_isrshrinks_total") >= 1
        acked, errors = produce(lead.bootstrap, "isr", [b"a", b"b"])
        assert len(acked) == 2 and not errors  # ISR 2 >= min.insync.replicas 2
        f2.kill(signal.SIGSTOP)
        wait_until(lambda: partitions_of(c, "isr", via=lead)[0][2] == [leader], 15,
                   "the ISR down to the leader")
        assert scrape(lead).value("kafka_server_replicamanager_underminisrpartitioncount") == 1
        acked, errors = produce(lead.bootstrap, "isr", [b"c"], **{"message.timeout.ms": 3000,
                                                                  "retries": 0})
        assert not acked and errors
        assert errors[0].code() == KafkaError.NOT_ENOUGH_REPLICAS, errors[0]
        f2.kill(signal.SIGCONT)
        wait_until(lambda: partitions_of(c, "isr", via=lead)[0][2] == sorted([leader, f2.node_id]),
                   15, "the resumed follower back in the ISR")
        acked, errors = produce(lead.bootstrap, "isr", [b"d"])
        assert len(acked) == 1 and not errors
    finally:
        f1.kill(signal.SIGCONT)
        f2.kill(signal.SIGCONT)
    wait_until(lambda: partitions_of(c, "isr", via=lead)[0][2] == [1, 2, 3], 15,
               "the whole ISR back")
    m = scrape(lead)
    assert m.value("kafka_server_replicamanager_underreplicatedpartitions") == 0
    assert m.value("kafka_server_replicamanager_isrexpands_total") >= 2
    # What the followers fetched of it, as each side counts it.
    assert m.value("kafka_server_brokertopicmetrics_replicationbytesout_total") > 0
    assert scrape(f2).value("kafka_server_brokertopicmetrics_replicationbytesin_total") > 0


@pytest.mark.parametrize("idempotent", [True, False], ids=["idempotent", "at-least-once"])
def test_acknowledged_records_survive_killing_leaders(cluster, idempotent):
    """An acks=all producer at full speed while the leader of each partition
    in turn is killed with SIGKILL and restarted, ten times; a consumer group
    reads throughout. Then every acknowledged record is there at the offset it
    was acknowledged with, exactly once when the producer is idempotent (at
    least once when not), in order per partition, identical on every replica,
    and the group has seen every one of them (at least once)."""
    c = cluster(3, FAST)
    create(c, "durable", partitions=3)
    stop = threading.Event()
    acked, errors, consumed = [], [], set()
    lock = threading.Lock()
    servers = ",".join(b.bootstrap for b in c.nodes)

    # The producer's log (idempotence, topic and leader updates): the last
    # lines go into a failure message, all of them to $SAMSA_DUMP_DIR.
    eos_log = collections.deque(maxlen=40)
    dump = os.environ.get("SAMSA_DUMP_DIR")
    if dump:
        os.makedirs(dump, exist_ok=True)
    dump_file = (open(os.path.join(dump, f"producer-{'idempotent' if idempotent else 'alo'}.log"),
                      "w") if dump else None)

    # librdkafka 2.0.x can strand a partition on a broker that no longer
    # leads it when metadata answers from different brokers name different
    # leaders in quick succession (librdkafka issue #4976): every metadata
    # refresh logs "leader N unchanged, not migrating away from preferred
    # replica N" while produce requests go to another broker and come back
    # NOT_LEADER_OR_FOLLOWER, until the messages time out. Only a partition
    # stalled in exactly that state gets a fresh producer; any other stall
    # fails the test.
    stall_s = 20
    port_to_node = {b.port: b.node_id for b in c.nodes}
    told_leader = {}    # partition -> leader the client's metadata names
    wrong_broker = {}   # partition -> monotonic time it last heard NOT_LEADER from a non-leader
    last_ack = {}       # partition -> monotonic time of its last acknowledgement
    fresh_producers = []
    given_up = set()    # values purged with a stranded producer: at most once in the log
    stuck_re = re.compile(r"durable \[(\d+)\]: leader (\d+) unchanged, not migrating away")
    refused_re = re.compile(r"\[thrd:[\d.]+:(\d+)/[^\]]*\]: durable \[(\d+)\]: broker "
                            r"unavailable: produce: Broker: Not leader for partition")

    class Keep(logging.Handler):
        def emit(self, record):
            line = record.getMessage()
            eos_log.append(line)
            if m := stuck_re.search(line):
                told_leader[int(m.group(1))] = int(m.group(2))
            elif m := refused_re.search(line):
                part, node = int(m.group(2)), port_to_node.get(int(m.group(1)))
                if part in told_leader and node != told_leader[part]:
                    wrong_broker[part] = time.monotonic()
            if dump_file:
                dump_file.write(f"{time.time():.3f} {line}\n")

    eos_logger = logging.getLogger(f"durable-producer-{idempotent}")
    eos_logger.setLevel(logging.DEBUG)
    eos_logger.propagate = False
    for h in list(eos_logger.handlers):
        eos_logger.removeHandler(h)
    eos_logger.addHandler(Keep())

    def cb(err, msg):
        with lock:
            if err and err.code() in (KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT):
                given_up.add(msg.value())
            elif err:
                errors.append((msg.partition(), err))
            else:
                acked.append((msg.partition(), msg.offset(), msg.value()))
                last_ack[msg.partition()] = time.monotonic()

    def new_producer():
        now = time.monotonic()
        for q in range(3):
            last_ack[q] = now
        told_leader.clear()
        wrong_broker.clear()
        # Without idempotence one request in flight keeps retries in order.
        ordering = {} if idempotent else {"max.in.flight.requests.per.connection": 1}
        return Producer({"bootstrap.servers": servers, "acks": "all",
                         "enable.idempotence": idempotent, "linger.ms": 2,
                         "message.timeout.ms": 120000, **ordering,
                         "debug": "eos,msg,topic" if dump else "eos,topic"},
                        logger=eos_logger)

    def replace_if_stranded(p):
        """A fresh producer when a partition stalled in the client's stranded
        state; `p` otherwise (a stall without it is left to time out)."""
        now = time.monotonic()
        stalled = [q for q in range(3) if now - last_ack[q] > stall_s]
        if not stalled or not all(now - wrong_broker.get(q, -1e9) < 5 for q in stalled):
            return p
        fresh_producers.append(stalled)
        p.purge(in_queue=True, in_flight=True, blocking=True)
        p.flush(10)
        return new_producer()

    def run_producer():
        p = new_producer()
        i = 0
        next_check = time.monotonic() + 1
        while not stop.is_set():
            try:
                p.produce("durable", value=b"r%08d" % i, key=b"%d" % (i % 31), on_delivery=cb)
                i += 1
            except BufferError:
                p.poll(0.05)
                continue
            if i % 100 == 0:
                p.poll(0.01)
            if time.monotonic() >= next_check:
                next_check = time.monotonic() + 1
                p = replace_if_stranded(p)
        deadline = time.monotonic() + 120
        while len(p) > 0 and time.monotonic() < deadline:
            p.poll(0.5)
            p = replace_if_stranded(p)
        p.flush(1)

    consumer_stop = threading.Event()

    def run_consumer():
        cons = Consumer({"bootstrap.servers": servers, "group.id": "through-failover",
                         "auto.offset.reset": "earliest", "session.timeout.ms": 6000})
        cons.subscribe(["durable"])
        while not consumer_stop.is_set():
            m = cons.poll(0.2)
            if m is not None and not m.error():
                with lock:
                    consumed.add(m.value())
        cons.close()

    producer = threading.Thread(target=run_producer, daemon=True)
    consumer = threading.Thread(target=run_consumer, daemon=True)
    producer.start()
    consumer.start()
    try:
        for round_ in range(10):
            wait_until(lambda: len(acked) > (round_ + 1) * 300, 60, "records acknowledged")
            leader = partitions_of(c, "durable")[round_ % 3][0]
            victim = c.node(leader)
            victim.kill(signal.SIGKILL)
            victim.wait()
            settle(c, "durable", lambda: all(l != leader and l >= 0
                                             for l, _, _ in partitions_of(c, "durable").values()),
                   20, f"round {round_}: leadership moved off {leader}")
            victim.start()
            settle(c, "durable", lambda: all(isr == [1, 2, 3] for _, _, isr in
                                             partitions_of(c, "durable").values()),
                   30, f"round {round_}: the restarted broker back in every ISR")
    except BaseException:
        consumer_stop.set()
        raise
    finally:
        stop.set()
        producer.join(180)
    if errors:
        consumer_stop.set()
    if dump:
        with open(os.path.join(dump, "producers-replaced.txt"), "a") as f:
            f.write(f"idempotent={idempotent} stalled partitions: {fresh_producers}\n")
    failed_by_partition = collections.Counter(p for p, _ in errors)
    assert not errors, (f"{len(errors)} failed, by partition {dict(failed_by_partition)}, "
                        f"e.g. {errors[:3]}, producers replaced for {fresh_producers}\n"
                        f"{explain(c, 'durable')}\n--- producer\n" + "\n".join(eos_log))
    got = read_all(c.bootstrap, "durable", 3, timeout=60)
    acked_values = {v for _, _, v in acked}
    # Each acknowledged record is where it was acknowledged (the log starts at
    # offset 0 and keeps everything, so offset = position).
    moved = [(p, o, v) for p, o, v in acked if o >= len(got[p]) or got[p][o] != v]
    assert not moved, f"{len(moved)} acknowledged records not at their offsets, e.g. {moved[:3]}"
    for part in range(3):
        mine = [v for p, _, v in sorted(acked) if p == part]
        # In order; when idempotent nothing twice, and besides the acknowledged
        # records at most ones the test gave up on with a stranded producer.
        if idempotent:
            assert len(got[part]) == len(set(got[part])), f"duplicates in partition {part}"
            assert [v for v in got[part] if v in acked_values] == mine, \
                f"partition {part}: {len(got[part])} read, {len(mine)} acked"
        strangers = [v for v in got[part] if v not in acked_values and v not in given_up]
        assert not strangers, f"partition {part} holds records never produced: {strangers[:3]}"
    # The group kept consuming through the failovers and caught up.
    wanted = {v for _, _, v in acked}
    try:
        wait_until(lambda: wanted <= consumed, 60, "the group consumed every record")
    finally:
        consumer_stop.set()
        consumer.join(30)
    # Every replica holds the same bytes.
    settle(c, "durable", lambda: segment_bytes(c.node(1), "durable") ==
           segment_bytes(c.node(2), "durable") == segment_bytes(c.node(3), "durable"),
           30, "the three replicas identical")


def test_divergent_log_is_truncated_to_the_new_leader(cluster):
    c = cluster(3, FAST)
    create(c, "diverge", partitions=1)
    leader_id = partitions_of(c, "diverge")[0][0]
    old = c.node(leader_id)
    followers = [b for b in c.nodes if b is not old]
    acked, _ = produce(old.bootstrap, "diverge", [b"both-%d" % i for i in range(10)])
    assert len(acked) == 10
    # Writes only the old leader gets (acks=1 while its followers are paused).
    for f in followers:
        f.kill(signal.SIGSTOP)
    try:
        lost, _ = produce(old.bootstrap, "diverge", [b"lost-%d" % i for i in range(5)],
                          acks=1)
        assert len(lost) == 5
        old.kill(signal.SIGKILL)
        old.wait()
    finally:
        for f in followers:
            f.kill(signal.SIGCONT)
    wait_until(lambda: partitions_of(c, "diverge").get(0, (-1,))[0] not in (-1, leader_id), 20,
               "a follower elected")
    new_values = [b"new-%d" % i for i in range(7)]
    acked, errors = produce(c.bootstrap, "diverge", new_values)
    assert len(acked) == 7 and not errors
    old.start()
    both = [b"both-%d" % i for i in range(10)]
    lost_values = [b"lost-%d" % i for i in range(5)]
    log = read_all(c.bootstrap, "diverge", 1, timeout=10)[0]
    # acks=1 promises nothing about the lost writes: a follower whose fetch was
    # answered just before it was paused may hold them and carry them into its
    # leadership. Whatever the new leader has, every acks=all record is there
    # once, in order, and the old leader converges to it.
    assert log[:10] == both and log[-7:] == new_values, log
    middle = log[10:-7]
    assert middle == lost_values[:len(middle)], log
    new_leader = c.node(partitions_of(c, "diverge")[0][0])
    settle(c, "diverge",
           lambda: segment_bytes(old, "diverge") == segment_bytes(new_leader, "diverge"), 20,
           "the old leader's log equal to the new leader's")
    if not middle:
        # Its unacknowledged suffix was not on the new leader: it truncated it.
        assert "event=follower_truncation" in old.log_text()


def preferred_view(c, name):
    """{partition: (leader, preferred replica)} as a running node sees it."""
    for b in c.running():
        try:
            md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(name, timeout=5)
        except KafkaException:
            continue
        t = md.topics.get(name)
        if t is not None and t.error is None:
            return {p.id: (p.leader, p.replicas[0]) for p in t.partitions.values()}
    return {}


def elect_preferred_leaders(node):
    """ElectLeaders v1 (PREFERRED) for every partition, on the wire; the
    partitions it elected."""
    import kafka_wire as kw
    body = kw.int8(0) + kw.int32(-1) + kw.int32(30000)  # type, null partitions, timeout
    with kw.KafkaConnection.to(node) as conn:
        data = conn.roundtrip(43, 1, body)
    r = kw.Reader(data)
    r.int32()
    assert r.int16() == 0
    elected = []
    for _ in range(r.int32()):
        topic = r.string()
        for _ in range(r.int32()):
            p, err = r.int32(), r.int16()
            r.string()
            assert err == 0, (topic, p, err)
            elected.append((topic, p))
    return elected


def restart_the_leader_of_partition_0(c, name):
    leader = partitions_of(c, name)[0][0]
    victim = c.node(leader)
    victim.kill(signal.SIGKILL)
    victim.wait()
    settle(c, name, lambda: all(l not in (-1, leader) for l, _, _ in
                                partitions_of(c, name).values()), 20, f"leaders moved off {leader}")
    victim.start()
    settle(c, name, lambda: all(isr == [1, 2, 3] for _, _, isr in partitions_of(c, name).values()),
           30, "the restarted broker back in every ISR")
    return leader


def test_preferred_leader_election_restores_the_leaders_after_a_restart(cluster):
    c = cluster(3, dict(FAST, **{"leader.imbalance.check.interval.seconds": 1}))
    create(c, "prefer", partitions=6)
    assert all(l == pref for l, pref in preferred_view(c, "prefer").values())
    victim = restart_the_leader_of_partition_0(c, "prefer")
    # The automatic rebalance gives the restarted broker its partitions back.
    settle(c, "prefer", lambda: all(l == pref for l, pref in preferred_view(c, "prefer").values()),
           20, f"broker {victim} leading its preferred partitions again")
    leaders = [l for l, _ in preferred_view(c, "prefer").values()]
    assert sorted(leaders.count(b) for b in (1, 2, 3)) == [2, 2, 2], leaders


def test_elect_leaders_api_runs_a_preferred_election(cluster):
    c = cluster(3, dict(FAST, **{"auto.leader.rebalance.enable": "false"}))
    create(c, "elect", partitions=3)
    victim = restart_the_leader_of_partition_0(c, "elect")
    view = preferred_view(c, "elect")
    moved = [p for p, (l, pref) in view.items() if l != pref]
    assert moved, view  # without the rebalance the leaders stay where they went
    elected = elect_preferred_leaders(c.node(1))
    assert sorted(p for _, p in elected) == sorted(moved)
    settle(c, "elect", lambda: all(l == pref for l, pref in preferred_view(c, "elect").values()),
           10, f"broker {victim} leading its preferred partitions")


def fetch_v11(node, topic, partition, offset, leader_epoch, rack):
    """A consumer's Fetch v11 (KIP-392 fields) on the wire: (error code,
    preferred read replica, record bytes)."""
    import kafka_wire as kw
    body = (kw.int32(-1) + kw.int32(0) + kw.int32(0) + kw.int32(1 << 20) + kw.int8(0)
            + kw.int32(0) + kw.int32(-1)
            + kw.int32(1) + kw.string(topic) + kw.int32(1)
            + kw.int32(partition) + kw.int32(leader_epoch) + struct.pack(">q", offset)
            + struct.pack(">q", -1) + kw.int32(1 << 20)
            + kw.int32(0) + kw.string(rack))
    with kw.KafkaConnection.to(node) as conn:
        data = conn.roundtrip(1, 11, body)
    r = kw.Reader(data)
    r.int32()
    assert r.int16() == 0
    r.int32()
    assert r.int32() == 1
    assert r.string() == topic
    assert r.int32() == 1
    r.int32()
    err = r.int16()
    r.int64(), r.int64(), r.int64()
    aborted = r.int32()
    for _ in range(max(aborted, 0)):
        r.int64(), r.int64()
    preferred = r.int32()
    n = r.int32()
    records = r.raw(n) if n > 0 else b""
    return err, preferred, records


def test_a_consumer_in_a_rack_fetches_from_the_replica_there(cluster):
    conf = dict(FAST, **{"replica.selector.class":
                         "org.apache.kafka.common.replica.RackAwareReplicaSelector"})
    c = cluster(3, conf, racks=True)
    create(c, "racked", assignment=[[1, 2, 3]])
    acked, errors = produce(c.bootstrap, "racked", [b"m%d" % i for i in range(50)])
    assert len(acked) == 50 and not errors
    epoch = -1  # confluent-kafka 1.7 does not show leader epochs; -1 skips the check
    # The leader (rack r1) points a consumer in rack r2 to broker 2 ...
    err, preferred, records = fetch_v11(c.node(1), "racked", 0, 0, epoch, "r2")
    assert (err, preferred, records) == (0, 2, b"")
    # ... keeps one in its own rack, or in a rack without a replica ...
    assert fetch_v11(c.node(1), "racked", 0, 0, epoch, "r1")[1] == -1
    assert fetch_v11(c.node(1), "racked", 0, 0, epoch, "r9")[1] == -1
    # ... and broker 2, a follower, serves the consumer up to its high watermark.
    def served():
        e, p, recs = fetch_v11(c.node(2), "racked", 0, 0, epoch, "r2")
        return e == 0 and p == -1 and recs.count(b"m49") == 1
    wait_until(served, 10, "the follower serving the records")
    # A real client with client.rack reads everything through that path.
    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "racked",
                     "client.rack": "r2", "auto.offset.reset": "earliest"})
    cons.subscribe(["racked"])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 50 and time.monotonic() < deadline:
        m = cons.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value())
    cons.close()
    assert got == [b"m%d" % i for i in range(50)]
