"""Helpers for the log compaction tests (test_compaction.py, and the kafkajs
test in tests/clients): broker and topic settings that make the cleaner run
within a second, a keyed producer that records the offset each record was
acknowledged at, a reader of a whole partition, the log a correct cleaner
leaves behind, and a wait for it.

What a cleaning leaves (Kafka's semantics): offsets never change and order is
kept; below the first uncleanable offset (here the active segment's base: one
node, no transactions, no compaction lag) only the latest record of each key
remains; the active segment is never touched; records keep their timestamps
and headers; a tombstone is kept until delete.retention.ms after the cleaning
that first covered it, and a later cleaning removes it.

Nothing here sleeps to synchronise: every wait polls against a deadline.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from samsa_harness import wait_until

CLEAN_DEADLINE_S = 60.0  # a loaded 2-core machine

# The cleaner looks for work every 200 ms instead of every 15 s.
CLEANER_BROKER = {
    "log.cleaner.backoff.ms": 200,
    "offsets.topic.replication.factor": 1,
    "group.initial.rebalance.delay.ms": 0,
}

SEGMENT_BYTES = 16384


def compacted_topic_config(**extra) -> dict:
    """cleanup.policy=compact with small segments and any dirty ratio worth a
    cleaning; `extra` adds or replaces keys (underscores for dots)."""
    conf = {
        "cleanup.policy": "compact",
        "segment.bytes": str(SEGMENT_BYTES),
        "min.cleanable.dirty.ratio": "0.01",
    }
    conf.update({k.replace("_", "."): str(v) for k, v in extra.items()})
    return conf


def create_topic(bootstrap: str, name: str, config: dict, partitions: int = 1) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fs = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1,
                                       config=config)])
    fs[name].result(timeout=30)

    def ready():
        md = admin.list_topics(timeout=5).topics
        return name in md and len(md[name].partitions) == partitions and \
            all(p.leader >= 0 for p in md[name].partitions.values())
    wait_until(ready, 30, f"topic {name} has leaders")


# --- records -------------------------------------------------------------------------
@dataclass(frozen=True)
class Rec:
    offset: int
    key: Optional[bytes]
    value: Optional[bytes]  # None: a tombstone
    headers: tuple  # ((name, bytes), ...) in order
    timestamp: int  # CreateTime, ms

    def brief(self) -> str:
        v = "<tombstone>" if self.value is None else self.value[:24]
        return f"{self.offset}:{self.key!r}={v!r}"


def _headers(h) -> tuple:
    return tuple((k, v) for k, v in (h or []))


def rec_of(msg) -> Rec:
    ts_type, ts = msg.timestamp()
    assert ts_type == 1, f"offset {msg.offset()}: timestamp type {ts_type}, expected CreateTime"
    return Rec(msg.offset(), msg.key(), msg.value(), _headers(msg.headers()), ts)


def produce_keyed(bootstrap: str, topic: str, records: Iterable[tuple], partition: int = 0,
                  **conf) -> list[Rec]:
    """Produces (key, value, headers, timestamp) tuples to one partition and
    flushes; returns them as Recs at the offsets their delivery reports gave,
    in offset order. batch.size stays well below segment.bytes."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "batch.size": 4096,
                  "message.timeout.ms": 60000, **conf})
    acked: list[Rec] = []
    errors = []

    def report(rec):
        def cb(err, msg):
            if err is not None:
                errors.append(err)
                return
            ts_type, ts = msg.timestamp()
            if ts != rec[3]:
                errors.append(f"offset {msg.offset()}: acknowledged timestamp {ts}, sent {rec[3]}")
            acked.append(Rec(msg.offset(), rec[0], rec[1], _headers(rec[2]), rec[3]))
        return cb

    for rec in records:
        key, value, headers, ts = rec
        while True:
            try:
                p.produce(topic, key=key, value=value, headers=headers or None, partition=partition,
                          timestamp=ts, on_delivery=report(rec))
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    remaining = p.flush(60)
    assert remaining == 0, f"{remaining} records not delivered"
    assert not errors, errors[:5]
    acked.sort(key=lambda r: r.offset)
    offsets = [r.offset for r in acked]
    assert len(set(offsets)) == len(offsets), "two records acknowledged at one offset"
    return acked


def now_ms() -> int:
    return int(time.time() * 1000)


# --- reading -------------------------------------------------------------------------
def reader(bootstrap: str, **conf) -> Consumer:
    """A consumer for assign()ed partitions; commits nothing."""
    return Consumer({"bootstrap.servers": bootstrap, "group.id": "compaction-reader",
                     "enable.auto.commit": False, "auto.offset.reset": "earliest",
                     "enable.partition.eof": True, "fetch.wait.max.ms": 100, **conf})


def watermarks(bootstrap: str, topic: str, partition: int = 0) -> tuple[int, int]:
    c = reader(bootstrap)
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
    finally:
        c.close()


def read_partition(bootstrap: str, topic: str, partition: int = 0, start: int = 0,
                   timeout: float = 30.0) -> list[Rec]:
    """Every record from `start` up to the high watermark (read once, at the start)."""
    c = reader(bootstrap)
    try:
        _, high = c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
        out: list[Rec] = []
        if high <= start:
            return out
        c.assign([TopicPartition(topic, partition, start)])
        deadline = time.monotonic() + timeout
        while True:
            for m in c.consume(num_messages=10000, timeout=0.5):
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        if m.offset() >= high:
                            return out
                        continue
                    raise AssertionError(f"reading {topic}-{partition}: {m.error()}")
                out.append(rec_of(m))
                if m.offset() >= high - 1:
                    return out
            if time.monotonic() >= deadline:
                raise AssertionError(f"reading {topic}-{partition}: {len(out)} records, not at "
                                     f"the high watermark {high} after {timeout}s")
    finally:
        c.close()


def first_record_from(bootstrap: str, topic: str, offset: int, partition: int = 0,
                      timeout: float = 30.0) -> Rec:
    """The first record a consumer assigned at `offset` is handed."""
    c = reader(bootstrap)
    try:
        c.assign([TopicPartition(topic, partition, offset)])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise AssertionError(f"fetch at {offset}: {m.error()}")
            return rec_of(m)
        raise AssertionError(f"no record from offset {offset} within {timeout}s")
    finally:
        c.close()


# --- the log on disk -----------------------------------------------------------------
SEGMENT_NAME = re.compile(r"^(\d{20})\.log$")


def partition_dir(data_dir: Path, topic: str, partition: int = 0) -> Path:
    return Path(data_dir) / f"{topic}-{partition}"


def segments(data_dir: Path, topic: str, partition: int = 0) -> list[tuple[int, int]]:
    """(base offset, size in bytes) of each segment's .log, by base offset
    (files being cleaned or deleted, .cleaned .swap .deleted, are not segments)."""
    out = []
    d = partition_dir(data_dir, topic, partition)
    for f in d.iterdir() if d.is_dir() else []:
        m = SEGMENT_NAME.match(f.name)
        if m:
            try:
                out.append((int(m.group(1)), f.stat().st_size))
            except FileNotFoundError:
                pass  # swapped away meanwhile
    return sorted(out)


def active_base(data_dir: Path, topic: str, partition: int = 0) -> int:
    segs = segments(data_dir, topic, partition)
    assert segs, f"no segment in {partition_dir(data_dir, topic, partition)}"
    return segs[-1][0]


# --- what a cleaning leaves ----------------------------------------------------------
def survivors(acked: list[Rec], boundary: int, drop_tombstones: bool = False) -> list[Rec]:
    """The log a correct cleaner leaves once it has cleaned everything below
    `boundary`: there, each key's latest record (without tombstones past their
    delete horizon if `drop_tombstones`); from `boundary` on, every record."""
    latest = {}
    for r in acked:
        if r.offset < boundary:
            latest[r.key] = r.offset
    out = []
    for r in acked:
        if r.offset >= boundary:
            out.append(r)
        elif latest[r.key] == r.offset and not (drop_tombstones and r.value is None):
            out.append(r)
    return out


def cleaned_lines(broker, topic: str, partition: int = 0) -> list[str]:
    pat = re.compile(rf"event=log_cleaned partition={re.escape(topic)}-{partition}(\s|$)")
    return [ln for ln in broker.log_text().splitlines() if pat.search(ln)]


def wait_for_cleaning(broker, topic: str, partition: int = 0, after: int = 0,
                      timeout: float = CLEAN_DEADLINE_S) -> list[str]:
    """Waits until the broker has logged more than `after` cleanings of the
    partition; returns those log lines."""
    def more():
        lines = cleaned_lines(broker, topic, partition)
        return lines if len(lines) > after else None
    try:
        return wait_until(more, timeout, f"event=log_cleaned partition={topic}-{partition} "
                          f"(more than {after})", interval=0.05)
    except TimeoutError as e:
        raise AssertionError(f"{e}\n--- broker log (tail) ---\n{broker.log_text()[-8000:]}") \
            from None


def describe_difference(got: list[Rec], want: list[Rec]) -> str:
    g = {r.offset: r for r in got}
    w = {r.offset: r for r in want}
    extra = [g[o].brief() for o in sorted(set(g) - set(w))]
    missing = [w[o].brief() for o in sorted(set(w) - set(g))]
    changed = [f"{o}: got {g[o]} want {w[o]}" for o in sorted(set(g) & set(w)) if g[o] != w[o]]
    return (f"{len(got)} records read, {len(want)} expected; {len(extra)} not expected "
            f"(first: {extra[:8]}), {len(missing)} missing (first: {missing[:8]}), "
            f"{len(changed)} changed (first: {changed[:3]})")


def wait_compacted(broker, topic: str, acked: list[Rec], partition: int = 0,
                   drop_tombstones=False, timeout: float = CLEAN_DEADLINE_S) -> list[Rec]:
    """Polls until reading the partition gives exactly what a cleaning of
    everything below the active segment leaves (survivors()); returns what was
    read. `drop_tombstones` may be True, False, or "either" (a tombstone whose
    delete horizon may or may not have passed). Fails with the difference, the
    segments and the broker's event=log_cleaned lines."""
    last = {}
    variants = [False, True] if drop_tombstones == "either" else [bool(drop_tombstones)]

    def done():
        boundary = active_base(broker.data_dir, topic, partition)
        got = read_partition(broker.bootstrap, topic, partition)
        # A roll or a swap while reading: read again.
        if active_base(broker.data_dir, topic, partition) != boundary:
            return None
        for drop in variants:
            want = survivors(acked, boundary, drop)
            last.update(boundary=boundary, got=got, want=want)
            if got == want:
                return got
        return None
    try:
        return wait_until(done, timeout, f"{topic}-{partition} cleaned below its active "
                          "segment", interval=0.3)
    except TimeoutError as e:
        detail = describe_difference(last.get("got", []), last.get("want", []))
        lines = "\n".join(cleaned_lines(broker, topic, partition)[-10:]) or "(none)"
        raise AssertionError(
            f"{e}\nactive segment base {last.get('boundary')}: {detail}\n"
            f"segments (base, bytes): {segments(broker.data_dir, topic, partition)}\n"
            f"--- event=log_cleaned lines (last 10) ---\n{lines}\n"
            f"--- broker log (tail) ---\n{broker.log_text()[-4000:]}") from None
