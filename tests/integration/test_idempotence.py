"""The idempotent producer (issue 7) with real clients and raw requests:
InitProducerId, sequence checks on Produce, DescribeProducers, and librdkafka
producing through broker kills and dropped connections without a duplicate."""
import signal
import struct
import threading
import time

import kafka_wire as kw
import pytest
from chaos_proxy import ChaosProxy
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

API_PRODUCE = 0
API_INIT_PRODUCER_ID = 22
API_DESCRIBE_PRODUCERS = 61

COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
INVALID_REQUEST = 42
OUT_OF_ORDER_SEQUENCE_NUMBER = 45
INVALID_PRODUCER_EPOCH = 47


# --- helpers -------------------------------------------------------------------

def wait_for(cond, what, timeout=30.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def create_topic(bootstrap, name, partitions=1, config=None):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fs = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1,
                                       config=config or {})])
    fs[name].result(timeout=15)

    def has_leaders():
        md = admin.list_topics(timeout=5)
        t = md.topics.get(name)
        return t is not None and t.error is None and len(t.partitions) == partitions and \
            all(p.leader >= 0 for p in t.partitions.values())
    wait_for(has_leaders, f"leaders of {name}")


def consume_all(bootstrap, topic, count, timeout=60):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "idempotence-check",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, 0, 0)])
    out = []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        for m in c.consume(num_messages=10000, timeout=1.0):
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise AssertionError(m.error())
            out.append(m)
    # Anything beyond `count` would be a duplicate: read until caught up.
    for m in c.consume(num_messages=10000, timeout=1.0):
        if not m.error():
            out.append(m)
    c.close()
    return out


_CRC32C_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC32C_TABLE.append(_c)


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC32C_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def varint(v: int) -> bytes:
    v = (v << 1) ^ (v >> 63)  # zigzag
    out = bytearray()
    while v & ~0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def record_batch(producer_id, epoch, base_sequence, values, timestamp=None):
    """A record batch v2 as an idempotent producer sends it (base offset 0)."""
    ts = int(time.time() * 1000) if timestamp is None else timestamp
    records = b""
    for i, v in enumerate(values):
        body = (b"\x00" + varint(0) + varint(i) + varint(-1) + varint(len(v)) + v + varint(0))
        records += varint(len(body)) + body
    after_crc = (struct.pack(">hiqqqhii", 0, len(values) - 1, ts, ts, producer_id, epoch,
                             base_sequence, len(values)) + records)
    crc = crc32c(after_crc)
    batch_length = 4 + 1 + 4 + len(after_crc)  # leader epoch, magic, crc, rest
    return struct.pack(">qiibI", 0, batch_length, -1, 2, crc) + after_crc


def produce_raw(conn, topic, batch, version=8):
    """Produce v3-8 of one batch to partition 0; (error_code, base_offset, log_append_time)."""
    body = (kw.string(None) + kw.int16(-1) + kw.int32(10_000) +
            kw.array([kw.string(topic) +
                      kw.array([kw.int32(0) + kw.int32(len(batch)) + batch])]))
    cid = conn.send_request(API_PRODUCE, version, body)
    r = kw.Reader(conn.read_frame())
    assert r.int32() == cid
    assert r.int32() == 1 and r.string() == topic and r.int32() == 1
    assert r.int32() == 0
    error, base, append_time = r.int16(), r.int64(), r.int64()
    return error, base, append_time


def init_producer_id(conn, version, transactional_id=None, producer_id=-1, epoch=-1):
    """InitProducerId (key 22); (error_code, producer_id, epoch)."""
    flexible = version >= 2
    body = (kw.compact_string(transactional_id) if flexible else kw.string(transactional_id))
    body += kw.int32(60_000)
    if version >= 3:
        body += struct.pack(">qh", producer_id, epoch)
    if flexible:
        body += kw.EMPTY_TAGS
    cid = conn.send_request(API_INIT_PRODUCER_ID, version, body,
                            header_version=2 if flexible else 1)
    r = kw.Reader(conn.read_frame())
    assert r.int32() == cid
    if flexible:
        r.tagged_fields()
    r.int32()  # throttle
    out = (r.int16(), r.int64(), r.int16())
    if flexible:
        r.tagged_fields()
    r.end()
    return out


def describe_producers(conn, topic, partitions=(0,)):
    """DescribeProducers v0; {partition: (error_code, [(id, epoch, last_seq, ts, coord, txn)])}."""
    body = (kw.compact_array([kw.compact_string(topic) +
                              kw.compact_array([kw.int32(p) for p in partitions]) +
                              kw.EMPTY_TAGS]) + kw.EMPTY_TAGS)
    cid = conn.send_request(API_DESCRIBE_PRODUCERS, 0, body, header_version=2)
    r = kw.Reader(conn.read_frame())
    assert r.int32() == cid
    r.tagged_fields()
    r.int32()  # throttle
    out = {}
    for _ in range(r.uvarint() - 1):
        assert r.compact_string() == topic
        for _ in range(r.uvarint() - 1):
            index, error = r.int32(), r.int16()
            r.compact_string()  # error message
            producers = []
            for _ in range(r.uvarint() - 1):
                producers.append(struct.unpack(">qiiqiq", r.raw(36)))
                r.tagged_fields()
            r.tagged_fields()
            out[index] = (error, producers)
        r.tagged_fields()
    r.tagged_fields()
    r.end()
    return out


# --- InitProducerId --------------------------------------------------------------

def test_init_producer_id_every_version_and_ids_never_reused(start_broker):
    b = start_broker()
    seen = []
    with kw.KafkaConnection.to(b) as conn:
        for v in range(6):
            err, pid, epoch = init_producer_id(conn, v)
            assert (err, epoch) == (0, 0), v
            seen.append(pid)
        # KIP-360 from an idempotent producer (no transactional id): Kafka hands
        # out a fresh id with epoch 0.
        err, pid, epoch = init_producer_id(conn, 4, producer_id=seen[-1], epoch=0)
        assert (err, epoch) == (0, 0)
        assert pid not in seen
        seen.append(pid)
    assert seen == sorted(seen) and len(set(seen)) == len(seen)
    # Neither a clean restart nor SIGKILL hands out an id twice: ids come from
    # blocks recorded in the metadata log.
    b.restart()
    with kw.KafkaConnection.to(b) as conn:
        after_restart = init_producer_id(conn, 3)[1]
    assert after_restart > max(seen)
    b.kill(signal.SIGKILL)
    b.wait()
    b.start()
    with kw.KafkaConnection.to(b) as conn:
        after_kill = init_producer_id(conn, 5)[1]
    assert after_kill > after_restart


def test_init_producer_id_errors(broker):
    with kw.KafkaConnection.to(broker) as conn:
        # A producer id without an epoch, or the reverse: malformed (KafkaApis).
        assert init_producer_id(conn, 3, producer_id=5, epoch=-1) == (INVALID_REQUEST, -1, -1)
        assert init_producer_id(conn, 3, producer_id=-1, epoch=2) == (INVALID_REQUEST, -1, -1)
        assert init_producer_id(conn, 2, transactional_id="")[0] == INVALID_REQUEST
        # __transaction_state cannot exist (replication factor 3 on one node):
        # no broker coordinates the id, and Kafka's coordinator answers
        # NOT_COORDINATOR for an id whose partition it does not own.
        for v in (0, 2, 5):
            assert init_producer_id(conn, v, transactional_id="tx-1") == \
                (NOT_COORDINATOR, -1, -1)
        assert init_producer_id(conn, 5)[0] == 0


def test_transactional_producer_fails_cleanly_without_a_coordinator(broker):
    # FindCoordinator answers COORDINATOR_NOT_AVAILABLE while __transaction_state
    # cannot be created (its replication factor 3 on one node), as Kafka does.
    p = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": "tx-unsupported"})
    start = time.monotonic()
    with pytest.raises(KafkaException):
        p.init_transactions(3)
    assert time.monotonic() - start < 15
    del p  # no threads left retrying against the broker


# --- Produce checks ------------------------------------------------------------------

def test_produce_retries_duplicates_gaps_and_epochs(start_broker):
    b = start_broker()
    create_topic(b.bootstrap, "raw-idem")
    with kw.KafkaConnection.to(b) as conn:
        pid = init_producer_id(conn, 4)[1]
        first = record_batch(pid, 0, 0, [b"a", b"b", b"c"])
        assert produce_raw(conn, "raw-idem", first)[:2] == (0, 0)
        second = record_batch(pid, 0, 3, [b"d", b"e"])
        assert produce_raw(conn, "raw-idem", second)[:2] == (0, 3)
        # Retries of either are answered with their original offsets.
        assert produce_raw(conn, "raw-idem", first)[:2] == (0, 0)
        assert produce_raw(conn, "raw-idem", second)[:2] == (0, 3)
        # A gap, an old epoch.
        assert produce_raw(conn, "raw-idem", record_batch(pid, 0, 9, [b"x"]))[0] == \
            OUT_OF_ORDER_SEQUENCE_NUMBER
        assert produce_raw(conn, "raw-idem", record_batch(pid, 1, 0, [b"f"]))[:2] == (0, 5)
        assert produce_raw(conn, "raw-idem", record_batch(pid, 0, 5, [b"x"]))[0] == \
            INVALID_PRODUCER_EPOCH
        # A new epoch must start at 0.
        assert produce_raw(conn, "raw-idem", record_batch(pid, 2, 1, [b"x"]))[0] == \
            OUT_OF_ORDER_SEQUENCE_NUMBER
        last = record_batch(pid, 1, 1, [b"g", b"h"])
        assert produce_raw(conn, "raw-idem", last)[:2] == (0, 6)
    # After SIGKILL the rebuilt state still recognises the retry.
    b.kill(signal.SIGKILL)
    b.wait()
    b.start()
    with kw.KafkaConnection.to(b) as conn:
        assert wait_for(lambda: produce_raw(conn, "raw-idem", last)[:2] == (0, 6),
                        "the partition back after the restart")
        assert produce_raw(conn, "raw-idem", record_batch(pid, 1, 3, [b"i"]))[:2] == (0, 8)
        assert describe_producers(conn, "raw-idem")[0] == (0, [(pid, 1, 3, pytest.approx(
            int(time.time() * 1000), abs=120_000), -1, -1)])
    got = consume_all(b.bootstrap, "raw-idem", 9)
    assert [m.value() for m in got] == [b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h", b"i"]


def test_describe_producers_unknown_partitions(broker):
    create_topic(broker.bootstrap, "described")
    with kw.KafkaConnection.to(broker) as conn:
        assert describe_producers(conn, "described", (0, 7)) == {0: (0, []), 7: (3, [])}
        assert describe_producers(conn, "no-such-topic") == {0: (3, [])}


# --- real clients ----------------------------------------------------------------------

def test_python_client_with_idempotence(broker):
    create_topic(broker.bootstrap, "py-idem")
    p = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True,
                  "linger.ms": 5})
    errors = []
    offsets = []
    n = 5000

    def cb(err, msg):
        if err:
            errors.append(err)
        else:
            offsets.append(msg.offset())
    for i in range(n):
        p.produce("py-idem", key=b"k", value=str(i).encode(), on_delivery=cb)
        if i % 1000 == 0:
            p.poll(0)
    assert p.flush(30) == 0
    assert not errors, errors[:3]
    assert sorted(offsets) == list(range(n))
    got = consume_all(broker.bootstrap, "py-idem", n)
    assert [int(m.value()) for m in got] == list(range(n))
    with kw.KafkaConnection.to(broker) as conn:
        err, producers = describe_producers(conn, "py-idem")[0]
    assert err == 0 and len(producers) == 1
    pid, epoch, last_seq = producers[0][:3]
    assert pid >= 0 and epoch == 0 and last_seq == n - 1


N_RECORDS = 200_000
N_KEYS = 16
N_KILLS = 6
RATE = 15_000  # records per second


def test_idempotent_producer_survives_kills_and_dropped_connections(start_broker):
    """librdkafka produces 200k records through a proxy that cuts connections at
    random while the broker is SIGKILLed and restarted several times; the
    partition then holds every record exactly once, in the order sent."""
    with ChaosProxy() as proxy:
        b = start_broker(overrides={"advertised.listeners": f"PLAINTEXT://{proxy.address}"})
        proxy.set_upstream(b.host, b.port)
        print(f"\n[chaos] proxy {proxy.address} -> broker {b.bootstrap}")
        create_topic(proxy.address, "chaos")

        delivered = []  # (key, seq, offset), in delivery order
        errors = []
        lock = threading.Lock()

        def on_delivery(err, msg):
            with lock:
                if err:
                    errors.append(err)
                else:
                    key = msg.key().decode()
                    delivered.append((key, int(msg.value().split(b":")[1]), msg.offset()))

        p = Producer({
            "bootstrap.servers": proxy.address,
            "enable.idempotence": True,
            "linger.ms": 2,
            "batch.num.messages": 500,
            "message.timeout.ms": 300_000,
            "retry.backoff.ms": 20,
            "reconnect.backoff.ms": 10,
            "reconnect.backoff.max.ms": 200,
            "socket.connection.setup.timeout.ms": 5000,
            "log_level": 4,  # warnings: the cut connections would fill the output
        })

        kills = []
        killer_failed = []

        def killer():
            # Kill when the run has made progress, so every kill lands mid-run.
            try:
                for k in range(N_KILLS):
                    target = (k + 1) * N_RECORDS // (N_KILLS + 1)
                    wait_for(lambda: len(delivered) >= target or errors,
                             f"{target} deliveries", timeout=60)
                    if errors:
                        return
                    b.kill(signal.SIGKILL)
                    b.wait()
                    kills.append(len(delivered))
                    b.start()
            except Exception as e:  # reported by the main thread
                killer_failed.append(e)

        def context():
            return (f"\n{len(delivered)} delivered, {len(kills)} kills at {kills}, "
                    f"{proxy.drops} cuts, killer: {killer_failed}"
                    f"\n--- broker log (tail) ---\n{b.log_text()[-6000:]}")

        deadline = time.monotonic() + 150

        def check_progress():
            assert not errors, f"{len(errors)} delivery errors, first: {errors[0]}{context()}"
            assert not killer_failed and time.monotonic() < deadline, \
                f"the run stalled{context()}"

        proxy.start_chaos(min_life=0.01, max_life=0.3, response_loss=0.03)
        t = threading.Thread(target=killer, daemon=True)
        t.start()
        seq = [0] * N_KEYS
        started = time.monotonic()
        for i in range(N_RECORDS):
            if i % 1000 == 0:
                # Paced, so that the cuts and kills spread over ~15 s of traffic
                # rather than the second librdkafka would need on loopback.
                while time.monotonic() - started < i / RATE:
                    p.poll(0.01)
                check_progress()
            k = i % N_KEYS
            while True:
                try:
                    p.produce("chaos", key=f"k{k}".encode(), value=f"k{k}:{seq[k]}".encode(),
                              on_delivery=on_delivery)
                    break
                except BufferError:
                    p.poll(0.05)
                    check_progress()
            seq[k] += 1
            if i % 500 == 0:
                p.poll(0)
        while len(p) > 0:
            p.poll(0.1)
            check_progress()
        t.join(timeout=60)
        proxy.stop_chaos()
        check_progress()
        assert len(kills) == N_KILLS, f"only {len(kills)} kills happened{context()}"
        print(f"[chaos] {len(kills)} SIGKILLs at deliveries {kills}, "
              f"{proxy.drops} connections cut, {proxy.responses_lost} responses lost, "
              f"{proxy.connections} accepted, "
              f"{proxy.refused} refused while the broker was down")

        got = consume_all(proxy.address, "chaos", N_RECORDS, timeout=90)
        by_offset = {}
        per_key = {}
        for m in got:
            key, s = m.value().decode().split(":")
            assert m.key().decode() == key
            by_offset[m.offset()] = (key, int(s))
            per_key.setdefault(key, []).append(int(s))
        duplicates = len(got) - len({(k, s) for k, s in by_offset.values()})
        print(f"[chaos] {len(got)} records in the partition, {duplicates} duplicates")
        assert duplicates == 0
        assert len(got) == N_RECORDS
        # Exactly once and in the order sent, per key.
        for k in range(N_KEYS):
            assert per_key[f"k{k}"] == list(range(seq[k])), f"k{k} out of order or missing"
        # Every acknowledgement names the offset where its record is.
        assert len(delivered) == N_RECORDS
        for key, s, offset in delivered:
            assert by_offset[offset] == (key, s)
