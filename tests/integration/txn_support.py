"""Helpers for test_transactions.py: broker settings for a one-node broker with
a transaction coordinator, topics, read_committed / read_uncommitted readers
with confluent-kafka, raw ListOffsets / Fetch requests that show what the
broker itself answers (last stable offset, aborted transactions, the batches
and control records in the log), and a decoder of Kafka's .txnindex files.

Nothing here sleeps to synchronise: every wait polls against a deadline.

Set SAMSA_TXN_DEBUG=DIR to have every client made here log librdkafka's
'eos,protocol,broker,msg' debug output to DIR/<name>.log.
"""
from __future__ import annotations

import logging
import os
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import kafka_wire as kw
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

API_FETCH = 1
API_LIST_OFFSETS = 2

READ_UNCOMMITTED = 0
READ_COMMITTED = 1

# Kafka error codes
INVALID_PRODUCER_EPOCH = 47
PRODUCER_FENCED = 90

# A one-node broker: Kafka's defaults (3 replicas, min ISR 2) need three brokers.
TXN_BROKER = {
    "offsets.topic.replication.factor": 1,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
}
# ... and few __transaction_state partitions, so that the coordinator loads fast.
TXN_BROKER_SMALL = {**TXN_BROKER, "transaction.state.log.num.partitions": 4}

INIT_TIMEOUT_S = 60.0  # init_transactions may create and load __transaction_state


def wait_for(cond, what, timeout=30.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


# --- clients -----------------------------------------------------------------------

_debug_seq = [0]


def _with_debug(conf: dict, name: str) -> dict:
    out_dir = os.environ.get("SAMSA_TXN_DEBUG")
    if not out_dir:
        return conf
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    _debug_seq[0] += 1
    logger = logging.getLogger(f"rdkafka.{name}.{_debug_seq[0]}")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    handler = logging.FileHandler(Path(out_dir) / f"{_debug_seq[0]:02d}-{name}.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger.addHandler(handler)
    return {**conf, "debug": "eos,protocol,broker,msg,fetch,cgrp", "logger": logger}


def txn_producer(bootstrap: str, transactional_id: str, **conf) -> Producer:
    return Producer(_with_debug({"bootstrap.servers": bootstrap,
                                 "transactional.id": transactional_id,
                                 "linger.ms": 5, **conf}, f"producer-{transactional_id}"))


def plain_producer(bootstrap: str, **conf) -> Producer:
    return Producer(_with_debug({"bootstrap.servers": bootstrap, "linger.ms": 5, **conf},
                                "producer"))


def consumer(bootstrap: str, isolation: str, group: str = "txn-readers", **conf) -> Consumer:
    """A consumer for assign()ed partitions (it commits nothing)."""
    return Consumer(_with_debug({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "isolation.level": isolation,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "enable.partition.eof": True,
        "fetch.wait.max.ms": 100,
        **conf}, f"consumer-{isolation}"))


def create_topic(bootstrap: str, name: str, partitions: int = 1, config=None) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fs = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1,
                                       config=config or {})])
    fs[name].result(timeout=30)

    def has_leaders():
        md = admin.list_topics(timeout=5)
        t = md.topics.get(name)
        return t is not None and t.error is None and len(t.partitions) == partitions and \
            all(p.leader >= 0 for p in t.partitions.values())
    wait_for(has_leaders, f"leaders of {name}")


def produce_values(p: Producer, topic: str, partition: int, values) -> None:
    for v in values:
        while True:
            try:
                p.produce(topic, value=v if isinstance(v, bytes) else v.encode(),
                          partition=partition)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)


def flush_ok(p: Producer, timeout: float = 30.0) -> None:
    remaining = p.flush(timeout)
    assert remaining == 0, f"{remaining} records still undelivered after {timeout}s"


@dataclass
class ReadResult:
    records: dict = field(default_factory=dict)   # (topic, partition) -> [(offset, value)]
    positions: dict = field(default_factory=dict)  # (topic, partition) -> position
    eof_at: dict = field(default_factory=dict)     # (topic, partition) -> last EOF offset

    def values(self, topic, partition):
        return [v for _, v in self.records.get((topic, partition), [])]

    def offsets(self, topic, partition):
        return [o for o, _ in self.records.get((topic, partition), [])]


def read_partitions(bootstrap: str, tps, isolation: str, ends: dict, timeout: float = 60.0,
                    c: Optional[Consumer] = None, assign: bool = True) -> ReadResult:
    """Reads every (topic, partition) in `tps` from the beginning until the
    consumer's position on each is its entry in `ends` (the log end offset or
    the LSO) and the consumer has reported reaching the end there
    (_PARTITION_EOF, which librdkafka raises at the high watermark for
    read_uncommitted and at the last stable offset for read_committed).
    Returns the records seen (decoded values), final positions and EOF offsets.
    With `c` and assign=False, goes on reading from where `c` is."""
    own = c is None
    if own:
        c = consumer(bootstrap, isolation)
    res = ReadResult()
    if assign:
        c.assign([TopicPartition(t, p, 0) for t, p in tps])
    for tp in tps:
        res.records[tp] = []
    deadline = time.monotonic() + timeout

    def done():
        if any(res.eof_at.get(tp) != ends[tp] for tp in tps):
            return False
        pos = c.position([TopicPartition(t, p) for t, p in tps])
        res.positions = {(x.topic, x.partition): x.offset for x in pos}
        return all(res.positions[tp] == ends[tp] for tp in tps)

    try:
        while not done():
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"{isolation} consumer did not reach {ends} within {timeout}s: positions "
                    f"{res.positions}, EOF at {res.eof_at}, "
                    f"records per partition { {k: len(v) for k, v in res.records.items()} }")
            for m in c.consume(num_messages=1000, timeout=0.2):
                tp = (m.topic(), m.partition())
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        res.eof_at[tp] = m.offset()
                        continue
                    raise AssertionError(f"consumer error: {m.error()}")
                res.records[tp].append((m.offset(), m.value().decode()))
                res.eof_at.pop(tp, None)
    finally:
        if own:
            c.close()
    return res


def query_end(bootstrap: str, topic: str, partition: int, isolation: str,
              c: Optional[Consumer] = None) -> tuple[int, int]:
    """(low, high) from librdkafka's query_watermark_offsets (ListOffsets with the
    consumer's isolation level): high is the LSO for read_committed. Uses `c`
    (made with that isolation level) if given."""
    own = c is None
    if own:
        c = consumer(bootstrap, isolation)
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10,
                                       cached=False)
    finally:
        if own:
            c.close()


# --- raw requests --------------------------------------------------------------------

def list_offsets(broker, topic: str, partition: int, isolation: int,
                 timestamp: int = -1, version: int = 2) -> tuple[int, int]:
    """ListOffsets v2-5 (key 2) for one partition; (error_code, offset).
    timestamp -1 = latest (the LSO under read_committed), -2 = earliest."""
    assert 2 <= version <= 5
    body = (kw.int32(-1) + kw.int8(isolation) +
            kw.array([kw.string(topic) +
                      kw.array([kw.int32(partition) +
                                (kw.int32(-1) if version >= 4 else b"") +
                                struct.pack(">q", timestamp)])]))
    with kw.KafkaConnection.to(broker) as conn:
        payload = conn.roundtrip(API_LIST_OFFSETS, version, body)
    r = kw.Reader(payload)
    r.int32()  # throttle
    assert r.int32() == 1 and r.string() == topic and r.int32() == 1
    assert r.int32() == partition
    error = r.int16()
    r.int64()  # timestamp
    offset = r.int64()
    if version >= 4:
        r.int32()  # leader epoch
    r.end()
    return error, offset


@dataclass
class Batch:
    base_offset: int
    last_offset: int
    producer_id: int
    producer_epoch: int
    transactional: bool
    control: bool
    control_type: Optional[int]  # 0 abort, 1 commit (control batches)
    count: int


@dataclass
class FetchResult:
    error: int
    high_watermark: int
    last_stable_offset: int
    aborted: Optional[list]  # [(producer_id, first_offset)] or None (null)
    batches: list


def _varint(r: kw.Reader) -> int:
    v = r.uvarint()
    return (v >> 1) ^ -(v & 1)


def parse_batches(data: bytes) -> list:
    out = []
    pos = 0
    while len(data) - pos >= 12:
        base_offset, length = struct.unpack_from(">qi", data, pos)
        if len(data) - pos - 12 < length:
            break  # a partial batch at the end of the fetch
        body = data[pos + 12:pos + 12 + length]
        _epoch, magic, _crc, attrs, last_delta = struct.unpack_from(">ibIhi", body, 0)
        assert magic == 2, f"magic {magic} at offset {base_offset}"
        pid, pepoch, _seq, count = struct.unpack_from(">qhii", body, 4 + 1 + 4 + 2 + 4 + 16)
        control = bool(attrs & 0x20)
        ctype = None
        if control:
            r = kw.Reader(body[4 + 1 + 4 + 2 + 4 + 16 + 8 + 2 + 4 + 4:])
            _varint(r)       # record length
            r.int8()         # attributes
            _varint(r)       # timestamp delta
            _varint(r)       # offset delta
            klen = _varint(r)
            key = r.raw(klen)
            version, ctype = struct.unpack(">hh", key[:4])
            assert version == 0, f"control record key version {version}"
        out.append(Batch(base_offset, base_offset + last_delta, pid, pepoch,
                         bool(attrs & 0x10), control, ctype, count))
        pos += 12 + length
    return out


def fetch(broker, topic: str, partition: int, offset: int, isolation: int,
          max_bytes: int = 1 << 20) -> FetchResult:
    """Fetch v4 (key 1) of one partition without waiting."""
    body = (kw.int32(-1) + kw.int32(0) + kw.int32(0) + kw.int32(max_bytes) + kw.int8(isolation) +
            kw.array([kw.string(topic) +
                      kw.array([kw.int32(partition) + struct.pack(">q", offset) +
                                kw.int32(max_bytes)])]))
    with kw.KafkaConnection.to(broker) as conn:
        payload = conn.roundtrip(API_FETCH, 4, body)
    r = kw.Reader(payload)
    r.int32()  # throttle
    assert r.int32() == 1 and r.string() == topic and r.int32() == 1
    assert r.int32() == partition
    error, hw, lso = r.int16(), r.int64(), r.int64()
    n = r.int32()
    aborted = None if n < 0 else [(r.int64(), r.int64()) for _ in range(n)]
    size = r.int32()
    data = b"" if size < 0 else r.raw(size)
    r.end()
    return FetchResult(error, hw, lso, aborted, parse_batches(data))


def fetch_all_batches(broker, topic: str, partition: int, end: int, isolation: int) -> FetchResult:
    """Fetch from 0 repeatedly until every batch below `end` was seen; the
    aborted transactions and offsets are those of the first response."""
    first = None
    batches = []
    offset = 0
    while offset < end:
        res = fetch(broker, topic, partition, offset, isolation)
        assert res.error == 0, f"Fetch {topic}-{partition}@{offset}: error {res.error}"
        if first is None:
            first = res
        assert res.batches, f"Fetch {topic}-{partition}@{offset}: no batches below {end}"
        batches += res.batches
        offset = res.batches[-1].last_offset + 1
    first.batches = batches
    return first


# --- .txnindex -----------------------------------------------------------------------

TXN_ENTRY = struct.Struct(">hqqqq")  # version, producer id, first, last, last stable offset


def read_txnindex(path: Path) -> list:
    data = Path(path).read_bytes()
    assert len(data) % TXN_ENTRY.size == 0, f"{path}: {len(data)} bytes, not 34-byte entries"
    out = []
    for i in range(0, len(data), TXN_ENTRY.size):
        version, pid, first, last, lso = TXN_ENTRY.unpack_from(data, i)
        assert version == 0, f"{path}: entry version {version}"
        out.append((pid, first, last, lso))
    return out


def txnindex_entries(broker, topic: str, partition: int) -> list:
    d = broker.data_dir / f"{topic}-{partition}"
    out = []
    for f in sorted(d.glob("*.txnindex")):
        out += read_txnindex(f)
    return out
