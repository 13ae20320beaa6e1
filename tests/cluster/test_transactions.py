"""Transactions over three brokers (RF 3 everywhere): the coordinator of a
transactional id writes its markers over the network to the leaders of every
partition of the transaction, partition leaders verify a producer's first
write with the coordinator on another broker (KIP-890), and a transaction
survives the loss of its coordinator."""
import collections
import logging
import os
import socket
import struct
import threading
import time

from confluent_kafka import (OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer,
                             TopicPartition)
from confluent_kafka.admin import AdminClient, ConfigResource

from samsa_harness import wait_until
from test_replication import FAST, create, explain, partitions_of, settle

TXN = dict(FAST, **{
    "transaction.state.log.replication.factor": 3,
    "transaction.state.log.min.isr": 2,
    "transaction.state.log.num.partitions": 3,
    "offsets.topic.num.partitions": 3,
})


def read_committed(c, topic, partitions, want, timeout=30):
    """Every record a read_committed consumer sees, once it has seen `want`."""
    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "rc-%f" % time.time(),
                     "isolation.level": "read_committed", "enable.auto.commit": False,
                     "auto.offset.reset": "earliest"})
    cons.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    got = []
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(got) < want:
            m = cons.poll(0.5)
            if m is not None and not m.error():
                got.append(m.value())
        # A little longer: nothing more may come.
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            m = cons.poll(0.3)
            if m is not None and not m.error():
                got.append(m.value())
    finally:
        cons.close()
    return got


def last_stable_offsets(c, topic, partitions):
    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "lso",
                     "isolation.level": "read_committed"})
    try:
        return [cons.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
                for p in range(partitions)]
    finally:
        cons.close()


def txn_producer(c, txn_id, **conf):
    p = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": txn_id,
                  "transaction.timeout.ms": 20000, "linger.ms": 5, **conf})
    p.init_transactions(60)
    return p


def test_commit_and_abort_markers_reach_every_leader(cluster):
    c = cluster(3, TXN)
    create(c, "orders", partitions=6)
    leaders = {l for l, _, _ in partitions_of(c, "orders").values()}
    assert len(leaders) == 3, "the partitions lead on every broker"
    p = txn_producer(c, "txn-markers")
    committed = []
    for round_ in range(4):
        p.begin_transaction()
        values = [b"r%d-%03d" % (round_, i) for i in range(60)]
        for i, v in enumerate(values):
            p.produce("orders", value=v, partition=i % 6)
        if round_ % 2 == 0:
            p.commit_transaction(60)
            committed += values
        else:
            p.flush(30)
            p.abort_transaction(60)
    got = read_committed(c, "orders", 6, len(committed))
    assert sorted(got) == sorted(committed)
    # Every marker is in: the last stable offsets reached the high watermarks.
    def stable():
        lso = last_stable_offsets(c, "orders", 6)
        cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "hw"})
        try:
            hw = [cons.get_watermark_offsets(TopicPartition("orders", i), timeout=10,
                                             cached=False)[1] for i in range(6)]
        finally:
            cons.close()
        return lso == hw and sum(hw) == 4 * 60 + 4 * 6
    settle(c, "orders", stable, 30, "last stable offset = high watermark everywhere")


def test_a_new_coordinator_finishes_and_fences_after_the_old_one_dies(cluster):
    c = cluster(3, TXN)
    create(c, "ledger", partitions=3)
    p = txn_producer(c, "txn-failover")
    p.begin_transaction()
    for i in range(30):
        p.produce("ledger", value=b"kept-%02d" % i, partition=i % 3)
    p.commit_transaction(60)
    # An open transaction, then the coordinator's broker dies.
    p.begin_transaction()
    for i in range(30):
        p.produce("ledger", value=b"open-%02d" % i, partition=i % 3)
    p.flush(30)
    assert partitions_of(c, "__transaction_state"), "__transaction_state exists"
    coordinator = find_txn_coordinator(c, "txn-failover")
    c.node(coordinator).kill()
    # A new producer with the same id: its init aborts the open transaction
    # on the new coordinator (fencing the old producer) and then succeeds.
    q = Producer({"bootstrap.servers": ",".join(b.bootstrap for b in c.running()),
                  "transactional.id": "txn-failover", "transaction.timeout.ms": 20000})
    deadline = time.monotonic() + 60
    while True:
        try:
            q.init_transactions(30)
            break
        except KafkaException as e:
            assert time.monotonic() < deadline and e.args[0].retriable(), e
    q.begin_transaction()
    for i in range(3):
        q.produce("ledger", value=b"after-%d" % i, partition=i)
    q.commit_transaction(60)
    want = [b"kept-%02d" % i for i in range(30)] + [b"after-%d" % i for i in range(3)]
    got = read_committed(c, "ledger", 3, len(want), timeout=60)
    assert sorted(got) == sorted(want)
    # The old producer is fenced.
    try:
        p.commit_transaction(10)
        raise AssertionError("the fenced producer committed")
    except KafkaException as e:
        assert e.args[0].fatal() or not e.args[0].retriable(), e
    c.node(coordinator).restart()


def find_txn_coordinator(c, txn_id):
    """The node FindCoordinator v1 (key type 1) names for the id."""
    body = struct.pack(">h", len(txn_id)) + txn_id.encode() + b"\x01"  # v1: key, key_type
    header = struct.pack(">hhih", 10, 1, 7, 4) + b"test"
    frame = struct.pack(">i", len(header) + len(body)) + header + body
    deadline = time.monotonic() + 30
    while True:
        for b in c.running():
            with socket.create_connection((b.host, b.port), timeout=5) as s:
                s.sendall(frame)
                size = struct.unpack(">i", recv_exact(s, 4))[0]
                data = recv_exact(s, size)
            # correlation id, throttle, error, message, node id
            err = struct.unpack(">h", data[8:10])[0]
            if err == 0:
                msg_len = struct.unpack(">h", data[10:12])[0]
                pos = 12 + max(0, msg_len)
                return struct.unpack(">i", data[pos:pos + 4])[0]
        assert time.monotonic() < deadline, "no transaction coordinator"
        time.sleep(0.2)


def recv_exact(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        assert chunk, "connection closed"
        out += chunk
    return out


# --- consume-transform-produce through broker failures ---------------------------------

EOS = dict(TXN, **{
    "min.insync.replicas": 2,              # __consumer_offsets too
    "group.initial.rebalance.delay.ms": 0,
})
# Input records over 3 partitions; the loop's time grows with the number of
# transactions (~0.5 s each here): 20,000 take about a minute, 100,000
# (SAMSA_EOS_RECORDS=100000) about three and a half.
EOS_RECORDS = int(os.environ.get("SAMSA_EOS_RECORDS", "20000"))
EOS_TXN_RECORDS = 200
EOS_INTERNAL = ("__consumer_offsets", "__transaction_state")


class Abortable(Exception):
    pass


def txn_call(what, fn, stats, timeout=120):
    """One call of the transactional API, the way librdkafka's EOS example
    makes it: a retriable error is retried, one that requires an abort raises
    Abortable, a fatal (or any other) error fails the test."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return fn()
        except KafkaException as e:
            err = e.args[0]
            if err.txn_requires_abort():
                stats[f"{what}: abortable {err.name()}"] += 1
                raise Abortable(f"{what}: {err}") from None
            if err.retriable() and not err.fatal() and time.monotonic() < deadline:
                stats[f"{what}: retried {err.name()}"] += 1
                continue
            raise AssertionError(f"{what}: {'fatal ' if err.fatal() else ''}error {err}") from None


def offsets_of(c, topic, partitions, isolation):
    """[(low, high)] per partition; high is the LSO for read_committed."""
    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "watermarks",
                     "isolation.level": isolation})
    try:
        return [cons.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)
                for p in range(partitions)]
    finally:
        cons.close()


def min_insync_replicas(c, topics):
    a = AdminClient({"bootstrap.servers": c.bootstrap})
    out = []
    for t in topics:
        res = ConfigResource(ConfigResource.Type.TOPIC, t)
        out.append(int(a.describe_configs([res])[res].result(30)["min.insync.replicas"].value))
    return out


def read_to_end(c, topic, partitions, timeout=60, isolation="read_committed"):
    """{partition: [values]} from offset 0 up to the end (EOF)."""
    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "verify-%f" % time.time(),
                     "isolation.level": isolation, "enable.auto.commit": False,
                     "enable.partition.eof": True})
    cons.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out = {p: [] for p in range(partitions)}
    done = set()
    deadline = time.monotonic() + timeout
    try:
        while len(done) < partitions:
            assert time.monotonic() < deadline, \
                f"{topic}: no end of partition for {set(range(partitions)) - done}"
            for m in cons.consume(1000, 0.5):
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        done.add(m.partition())
                    continue
                done.discard(m.partition())
                out[m.partition()].append(m.value())
    finally:
        cons.close()
    return out


def kept_log(name, lines, dump):
    """A logger for a librdkafka client that keeps its last `lines` lines,
    and all of them in `dump`/<name>.log when `dump` is set: (logger, the
    kept lines, the dump file or None)."""
    kept = collections.deque(maxlen=lines)
    dump_file = open(os.path.join(dump, f"{name}.log"), "w") if dump else None

    class Keep(logging.Handler):
        def emit(self, record):
            line = f"{time.time():.3f} {record.getMessage()}"
            kept.append(line)
            if dump_file:
                dump_file.write(line + "\n")

    logger = logging.getLogger(name)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    for h in list(logger.handlers):
        logger.removeHandler(h)
    logger.addHandler(Keep())
    return logger, kept, dump_file


def test_consume_transform_produce_exactly_once_through_two_broker_kills(cluster):
    """The standard EOS loop (a read_committed group consumer, a transactional
    producer, ~200 records per transaction with the consumer's positions sent
    to the transaction; an abortable error aborts and rewinds the consumer to
    the group's committed offsets, a retriable one retries, a fatal one fails)
    over EOS_RECORDS records on 3 brokers, RF 3 and min.insync.replicas 2
    everywhere. One transaction is aborted on purpose; with a transaction open,
    the leader of an input/output partition is killed (SIGKILL) and restarted,
    later the transaction coordinator's broker. Then the output, read
    read_committed, holds every input record's transform exactly once in input
    order, the group's committed offsets are the input's end offsets, and
    every last stable offset is its high watermark."""
    started = time.monotonic()
    c = cluster(3, EOS)
    src, dst, group, txn_id, parts = "eos-in", "eos-out", "eos-group", "eos-ctp", 3
    for t in (src, dst):
        create(c, t, partitions=parts, config={"min.insync.replicas": "2"})
    servers = ",".join(b.bootstrap for b in c.nodes)

    # The input: EOS_RECORDS records, round robin over the partitions.
    values = {p: [b"in-%d-%06d" % (p, i) for i in range(p, EOS_RECORDS, parts)]
              for p in range(parts)}
    loader = Producer({"bootstrap.servers": servers, "acks": "all", "enable.idempotence": True,
                       "linger.ms": 20})
    failed = []
    for p, vs in values.items():
        for v in vs:
            while True:
                try:
                    loader.produce(src, value=v, partition=p,
                                   on_delivery=lambda err, m: err and failed.append(err))
                    break
                except BufferError:
                    loader.poll(0.1)
    assert loader.flush(60) == 0 and not failed, failed
    ends = {p: len(vs) for p, vs in values.items()}
    loaded = time.monotonic()

    def transform(v):
        return b"out(" + v + b")"

    stats = collections.Counter()
    timing = collections.Counter()   # seconds the loop spent in each step
    slowest = [0.0]                  # the longest transaction, begin to committed
    failures = []
    progress = {"records": 0, "txns": 0}      # committed by the loop
    committed_at = {}                          # partition -> offset the last commit sent
    in_aborted = set()                         # values produced in aborted transactions
    abort_on_purpose = 3                       # the 4th transaction
    # Past a gate's share of the input the loop waits (between transactions)
    # until the test is ready to kill, opens a transaction, writes its records
    # (for the second kill, flushed: its partitions registered with the
    # coordinator) and waits, the transaction open, until the test has killed.
    gates = [dict(at=0.3, flush=False, armed=threading.Event(), ready=threading.Event(),
                  killed=threading.Event()),
             dict(at=0.6, flush=True, armed=threading.Event(), ready=threading.Event(),
                  killed=threading.Event())]
    finished = threading.Event()
    stop = threading.Event()

    dump = os.environ.get("SAMSA_DUMP_DIR")
    if dump:
        os.makedirs(dump, exist_ok=True)
    # The producer's EOS log, and the consumer's own account of where it
    # fetches from (seeks, offset fetches and resets): their last lines go
    # into a failure message, all of them to $SAMSA_DUMP_DIR.
    logger, eos_log, dump_file = kept_log("eos-ctp-producer", 300, dump)
    consumer_logger, consumer_log, consumer_dump = kept_log("eos-ctp-consumer", 2000, dump)
    at_first_failure = []   # the consumer's log when the first failure was seen

    def fail(what):
        if not failures:
            at_first_failure.extend(list(consumer_log)[-150:])
        failures.append(what)

    def run():
        rebalances = [0]

        def on_assign(consumer, partitions):
            rebalances[0] += 1
            stats["assigned"] += 1

        def on_revoke(consumer, partitions):
            rebalances[0] += 1
            stats["revoked"] += 1

        consumer = Consumer({"bootstrap.servers": servers, "group.id": group,
                             "isolation.level": "read_committed", "enable.auto.commit": False,
                             "auto.offset.reset": "earliest", "session.timeout.ms": 10000,
                             "fetch.wait.max.ms": 100,
                             "debug": "cgrp,topic,fetch" if dump else "cgrp,topic"},
                            logger=consumer_logger)
        consumer.subscribe([src], on_assign=on_assign, on_revoke=on_revoke)
        producer = Producer({"bootstrap.servers": servers, "transactional.id": txn_id,
                             "transaction.timeout.ms": 60000, "linger.ms": 5,
                             "debug": "eos,protocol,broker" if dump else "eos"}, logger=logger)
        delivery_errors = collections.Counter()

        def delivered(err, msg):
            if err:
                delivery_errors[err.name()] += 1

        def rewind(why):
            """Back to the group's committed offsets: those of the last
            committed transaction, which the loop remembers too."""
            assignment = consumer.assignment()
            got = txn_call("committed", lambda: consumer.committed(assignment, timeout=30), stats)
            for tp in got:
                mine = committed_at.get(tp.partition, -1001)
                if tp.offset != mine:
                    fail(f"after {why}: the group's committed offset of partition "
                                    f"{tp.partition} is {tp.offset}, the last commit sent {mine}")
                consumer.seek(TopicPartition(src, tp.partition,
                                             tp.offset if tp.offset >= 0 else OFFSET_BEGINNING))
            stats[f"rewound after {why}"] += 1

        try:
            txn_call("init_transactions", lambda: producer.init_transactions(30), stats)
            while not stop.is_set():
                before = rebalances[0]
                t0 = time.monotonic()
                msgs = consumer.consume(EOS_TXN_RECORDS, 0.5)
                timing["consume"] += time.monotonic() - t0
                for m in msgs:
                    if m.error():
                        assert not m.error().fatal(), m.error()
                        stats[f"consumer error {m.error().name()}"] += 1
                msgs = [m for m in msgs if not m.error()]
                if rebalances[0] != before:
                    # What was read across a change of assignment is read
                    # again from the committed offsets.
                    rewind("a rebalance")
                    continue
                if not msgs:
                    if committed_at == ends:
                        break
                    continue
                last = {}
                for m in msgs:
                    if m.partition() not in last and m.offset() != committed_at.get(m.partition(), 0):
                        fail(f"partition {m.partition()}: a transaction's first record "
                                        f"at {m.offset()}, the last commit sent "
                                        f"{committed_at.get(m.partition(), 0)}")
                    last[m.partition()] = m.offset() + 1
                gate = next((g for g in gates if not g["killed"].is_set()
                             and progress["records"] >= g["at"] * EOS_RECORDS), None)
                if gate:
                    assert gate["armed"].wait(180), "the test never got ready to kill"
                t0 = time.monotonic()
                txn_call("begin_transaction", producer.begin_transaction, stats)
                produced = []
                try:
                    for m in msgs:
                        v = transform(m.value())
                        produced.append(v)
                        while True:
                            try:
                                producer.produce(dst, value=v, partition=m.partition(),
                                                 on_delivery=delivered)
                                break
                            except BufferError:
                                producer.poll(0.05)
                    producer.poll(0)
                    if gate:
                        if gate["flush"]:
                            assert producer.flush(60) == 0, "records left unsent"
                        gate["ready"].set()
                        t1 = time.monotonic()
                        assert gate["killed"].wait(60), "the test never killed"
                        t0 += time.monotonic() - t1
                    positions = consumer.position([TopicPartition(src, p) for p in last])
                    if {tp.partition: tp.offset for tp in positions} != last:
                        fail(f"positions {positions} after reading up to {last}")
                    t1 = time.monotonic()
                    timing["produce"] += t1 - t0
                    txn_call("send_offsets_to_transaction",
                             lambda: producer.send_offsets_to_transaction(
                                 positions, consumer.consumer_group_metadata(), 30), stats)
                    t2 = time.monotonic()
                    timing["send_offsets"] += t2 - t1
                    if progress["txns"] == abort_on_purpose and not stats["aborted on purpose"]:
                        assert producer.flush(60) == 0, "records left unsent"
                        stats["aborted on purpose"] += 1
                        raise Abortable("on purpose")
                    txn_call("commit_transaction", lambda: producer.commit_transaction(30), stats)
                    t3 = time.monotonic()
                    timing["commit"] += t3 - t2
                    slowest[0] = max(slowest[0], t3 - t0)
                except Abortable:
                    in_aborted.update(produced)
                    txn_call("abort_transaction", lambda: producer.abort_transaction(30), stats)
                    stats["aborted"] += 1
                    rewind("an abort")
                    continue
                committed_at.update(last)
                progress["records"] += len(msgs)
                progress["txns"] += 1
            stats.update({f"delivery error {k}": v for k, v in delivery_errors.items()})
        except BaseException as e:  # noqa: B902 - reported by the test's thread
            fail(f"the loop failed: {e!r}")
        finally:
            finished.set()
            try:
                producer.flush(5)
                consumer.close()
            except Exception as e:  # noqa: BLE001
                fail(f"closing: {e!r}")

    def report():
        return (f"progress {progress}, committed {committed_at} of {ends}, stats {dict(stats)}, "
                f"failures {failures[:5]}\n{explain(c, dst)}\n--- producer (eos)\n"
                + "\n".join(list(eos_log)[-80:]) + "\n--- consumer (cgrp, topic)\n"
                + "\n".join(at_first_failure or list(consumer_log)[-120:]))

    def waited(condition, timeout, what):
        try:
            wait_until(condition, timeout, what)
        except TimeoutError as e:
            raise AssertionError(f"{e}: {report()}") from None

    def whole_isr():
        for t in (src, dst) + EOS_INTERNAL:
            ps = partitions_of(c, t)
            if not ps or any(isr != [1, 2, 3] or leader < 0 for leader, _, isr in ps.values()):
                return False
        return True

    def kill_and_restart(victim, gate, what):
        victim.kill()
        victim.wait()
        gate["killed"].set()
        settle(c, dst, lambda: all(l not in (-1, victim.node_id)
                                   for t in (src, dst) + EOS_INTERNAL
                                   for l, _, _ in partitions_of(c, t).values()),
               30, f"{what}: leadership moved off node {victim.node_id}")
        victim.restart()
        settle(c, dst, whole_isr, 60, f"{what}: node {victim.node_id} back in every ISR")

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    kills = []
    try:
        def at_gate(g):
            return lambda: finished.is_set() or g["ready"].is_set()
        # Kill 1: the leader of an input/output partition (not the
        # transaction coordinator's node, when the leaders allow).
        gates[0]["armed"].set()
        waited(at_gate(gates[0]), 120, "the loop at the first kill")
        assert not finished.is_set(), report()
        for t in EOS_INTERNAL:
            ps = partitions_of(c, t)
            assert ps and all(len(r) == 3 for _, r, _ in ps.values()), (t, ps)
        assert min_insync_replicas(c, (src, dst) + EOS_INTERNAL) == [2] * 4
        coordinator = find_txn_coordinator(c, txn_id)
        leaders = sorted({l for t in (src, dst) for l, _, _ in partitions_of(c, t).values()})
        victim = next((l for l in leaders if l != coordinator), leaders[0])
        kills.append(f"node {victim} (partition leader; coordinator {coordinator})")
        kill_and_restart(c.node(victim), gates[0], "kill 1 (partition leader)")
        # Kill 2: the transaction coordinator's node.
        gates[1]["armed"].set()
        waited(at_gate(gates[1]), 120, "the loop at the second kill")
        assert not finished.is_set(), report()
        coordinator = find_txn_coordinator(c, txn_id)
        kills.append(f"node {coordinator} (transaction coordinator)")
        kill_and_restart(c.node(coordinator), gates[1], "kill 2 (transaction coordinator)")
        waited(finished.is_set, 300, "the loop to finish")
    finally:
        stop.set()
        for g in gates:
            g["armed"].set()
            g["killed"].set()
        worker.join(60)
        if dump_file:
            dump_file.close()
            consumer_dump.close()
            for b in c.nodes:
                with open(os.path.join(dump, f"eos-ctp-node{b.node_id}.log"), "w") as f:
                    f.write(b.log_text())
    assert not failures, report()
    assert stats["aborted on purpose"] == 1, report()
    transformed = time.monotonic()

    # Nothing hangs: every last stable offset reached its high watermark.
    def stable():
        for t in (src, dst, "__consumer_offsets"):
            n = len(partitions_of(c, t))
            if offsets_of(c, t, n, "read_committed") != offsets_of(c, t, n, "read_uncommitted"):
                return False
        return True
    settle(c, dst, stable, 60, "last stable offset = high watermark everywhere")

    # Each input record's transform exactly once, in input order.
    out = read_to_end(c, dst, parts)
    for p in range(parts):
        want = [transform(v) for v in values[p]]
        got = out[p]
        if got != want:
            counts = collections.Counter(got)
            dups = [v for v, k in counts.items() if k > 1]
            lost = [v for v in want if v not in counts]
            raise AssertionError(f"partition {p}: {len(got)} read, {len(want)} wanted, "
                                 f"{len(dups)} duplicated (e.g. {dups[:3]}), {len(lost)} lost "
                                 f"(e.g. {lost[:3]}), in order: {sorted(got) == got}\n{report()}")
    # The log besides holds only records of aborted transactions.
    everything = read_to_end(c, dst, parts, isolation="read_uncommitted")
    extra = collections.Counter(v for vs in everything.values() for v in vs)
    extra.subtract(v for vs in out.values() for v in vs)
    assert min(extra.values()) >= 0
    extra = {v for v, k in extra.items() if k > 0}
    assert extra and extra <= in_aborted, (len(extra), len(in_aborted))

    # The group's committed offsets are the input's end offsets.
    check = Consumer({"bootstrap.servers": c.bootstrap, "group.id": group,
                      "isolation.level": "read_committed", "enable.auto.commit": False})
    try:
        got = check.committed([TopicPartition(src, p) for p in range(parts)], timeout=30)
    finally:
        check.close()
    assert {tp.partition: tp.offset for tp in got} == ends, (got, ends)
    print(f"\nEOS {EOS_RECORDS} records: load {loaded - started:.1f}s, transform "
          f"{transformed - loaded:.1f}s in {progress['txns']} transactions (slowest "
          f"{slowest[0]:.1f}s), total {time.monotonic() - started:.1f}s; killed {kills}; "
          f"{dict(stats)}; seconds in {({k: round(v, 1) for k, v in timing.items()})}")


def test_a_follower_describes_the_producers_of_its_replica(cluster):
    """DescribeProducers is answered by any replica that has the log (Kafka's
    Partition.activeProducerState), so `samsa transactions describe-producers
    --broker-id <follower>` shows an open transaction as the leader does."""
    from samsa_cli import cli
    c = cluster(3, TXN)
    create(c, "described", partitions=1)
    leader, replicas, _ = partitions_of(c, "described")[0]
    follower = next(r for r in replicas if r != leader)
    p = txn_producer(c, "txn-described")
    p.begin_transaction()
    p.produce("described", value=b"open", partition=0)
    p.flush(30)

    def described_by(node):
        r = cli("transactions", "--bootstrap-server", c.bootstrap, "describe-producers",
                "--topic", "described", "--partition", "0", "--broker-id", str(node))
        rows = [l.split() for l in r.stdout.splitlines()[1:] if l.strip()]
        return r.returncode == 0 and rows and rows[0][-1] == "0" and rows

    on_leader = settle(c, "described", lambda: described_by(leader), 30, "the leader's answer")
    on_follower = settle(c, "described", lambda: described_by(follower), 30,
                         "the follower's answer (it replicates the batch first)")
    assert on_follower[0][0] == on_leader[0][0]  # the same producer id
    p.abort_transaction(30)
