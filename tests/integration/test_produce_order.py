"""Pipelined Produce requests on one connection append in the order they were
sent, partition by partition, as Kafka's one-request-at-a-time handling
guarantees (server/produce_sequencer.h). A producer without idempotence and
with several requests in flight (kafka-python's default) relies on it: a
request for one partition must not overtake an earlier request that visits
another partition's shard first."""
import time

import kafka_wire as kw
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from test_idempotence import API_PRODUCE, record_batch

PARTITIONS = 8


def produce_body(topic, batches, acks=1):
    """Produce v8, {partition: batch}."""
    parts = [kw.int32(p) + kw.int32(len(b)) + b for p, b in batches.items()]
    return (kw.string(None) + kw.int16(acks) + kw.int32(30_000) +
            kw.array([kw.string(topic) + kw.array(parts)]))


def parse_bases(frame, topic):
    r = kw.Reader(frame)
    r.int32()  # correlation id
    assert r.int32() == 1 and r.string() == topic
    out = {}
    for _ in range(r.int32()):
        p, error, base = r.int32(), r.int16(), r.int64()
        r.int64()  # log append time
        r.int64()  # log start offset
        for _ in range(r.int32()):  # record errors
            r.int32()
            r.string()
        r.string()  # error message
        assert error == 0, (p, error)
        out[p] = base
    return out


def test_pipelined_produce_requests_append_in_order(start_broker):
    b = start_broker(overrides={"num.io.threads": 2})
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic("ordered", PARTITIONS, 1)])["ordered"].result(timeout=30)
    big = [b"x" * 20_000] * 8
    small = [b"y"]
    last = {}
    # Connections go to the reactors in turn: one lands on each of the two,
    # and the reordering showed only on one whose own shard held the small
    # request's partition (appended at once while the large request still
    # waited on the other shard).
    for c in range(4):
        with kw.KafkaConnection.to(b, timeout=60) as conn:
            conn.metadata(12, ["ordered"])
            sent = []
            for i in range(240):
                if i % 2 == 0:
                    batches = {p: record_batch(-1, -1, -1, big) for p in range(PARTITIONS)}
                else:
                    batches = {(i // 2) % PARTITIONS: record_batch(-1, -1, -1, small)}
                conn.send_request(API_PRODUCE, 8, produce_body("ordered", batches))
                sent.append(sorted(batches))
            for i, parts in enumerate(sent):
                bases = parse_bases(conn.read_frame(timeout=60), "ordered")
                assert sorted(bases) == parts
                for p, base in bases.items():
                    assert base > last.get(p, -1), (
                        f"connection {c}, request {i}: partition {p} appended at {base}, "
                        f"before an earlier request's batch at {last[p]}")
                    last[p] = base


def test_pipelined_acks_0_produce_requests_append_in_order(start_broker):
    """acks=0 requests have no answer to wait for, so a client pipelines as
    many as its socket takes: they append in the order sent all the same."""
    b = start_broker(overrides={"num.io.threads": 2})
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic("ordered0", PARTITIONS, 1)])["ordered0"].result(timeout=30)
    sent = {p: [] for p in range(PARTITIONS)}
    with kw.KafkaConnection.to(b, timeout=60) as conn:
        conn.metadata(12, ["ordered0"])
        for i in range(240):
            value = b"%06d-" % i
            if i % 2 == 0:
                parts = range(PARTITIONS)
                value += b"x" * 20_000
            else:
                parts = [(i // 2) % PARTITIONS]
            batches = {p: record_batch(-1, -1, -1, [value]) for p in parts}
            conn.send_request(API_PRODUCE, 8, produce_body("ordered0", batches, acks=0))
            for p in parts:
                sent[p].append(b"%06d" % i)
        # An acks=1 request after them: answered once every earlier one appended.
        conn.send_request(API_PRODUCE, 8, produce_body(
            "ordered0", {0: record_batch(-1, -1, -1, [b"end"])}))
        parse_bases(conn.read_frame(timeout=60), "ordered0")
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "order-check",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition("ordered0", p, 0) for p in range(PARTITIONS)])
    got = {p: [] for p in range(PARTITIONS)}
    want = sum(len(v) for v in sent.values()) + 1
    deadline = time.monotonic() + 60
    while sum(len(v) for v in got.values()) < want and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got[m.partition()].append(m.value()[:6])
    c.close()
    assert got[0][-1] == b"end"
    got[0].pop()
    for p in range(PARTITIONS):
        assert got[p] == sent[p], f"partition {p}: {got[p][:10]}... != {sent[p][:10]}..."

