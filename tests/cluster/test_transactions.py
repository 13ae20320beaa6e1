"""Transactions over three brokers (RF 3 everywhere): the coordinator of a
transactional id writes its markers over the network to the leaders of every
partition of the transaction, partition leaders verify a producer's first
write with the coordinator on another broker (KIP-890), and a transaction
survives the loss of its coordinator."""
import socket
import struct
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from test_replication import FAST, create, partitions_of, settle

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
