"""Compaction under kill -9: a broker killed while its cleaner rewrites and
swaps segments restarts with every acknowledged record that compaction may not
remove, at the offset it was acknowledged at, and the latest value of every
key (docs/compaction.md, "Crash safety")."""
import random
import re
import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from samsa_harness import wait_until

TOPIC = "compacted-kills"
KEYS = 150


def create_topic(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    fs = admin.create_topics([NewTopic(TOPIC, 1, 1, config={
        "cleanup.policy": "compact",
        "segment.bytes": "32768",
        "min.cleanable.dirty.ratio": "0.01",
        "delete.retention.ms": "100",
    })])
    fs[TOPIC].result(timeout=30)


def produce(broker, n, acked, rng, round_no, stop=None):
    """Writes `n` keyed records (5% tombstones); records what was acknowledged.
    Errors are expected once `stop` is set (the broker is being killed)."""
    p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all",
                  "enable.idempotence": True, "linger.ms": 2, "batch.size": 8000,
                  "message.timeout.ms": 3000})

    def on_delivery(err, msg):
        if err is None:
            acked[msg.offset()] = (msg.key(), msg.value())

    for i in range(n):
        if stop is not None and stop.is_set():
            break
        key = b"key-%03d" % rng.randrange(KEYS)
        value = None if rng.random() < 0.05 else b"r%d-%d-" % (round_no, i) + b"x" * 200
        while True:
            try:
                p.produce(TOPIC, key=key, value=value, on_delivery=on_delivery)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    p.flush(10)


def cleanings(broker):
    return len(re.findall(r"event=log_cleaned partition=" + TOPIC, broker.log_text()))


def read_all(broker, end):
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "reader",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  "fetch.max.bytes": 1 << 20})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    out = []
    deadline = time.monotonic() + 60
    last = -1
    while last < end - 1 and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        assert m.error() is None, m.error()
        out.append((m.offset(), m.key(), m.value()))
        last = m.offset()
    c.close()
    return out


def test_kills_while_cleaning_lose_no_latest_value(start_broker):
    # A throttled cleaner, so that a kill often lands in the middle of one.
    broker = start_broker(overrides={"log.cleaner.backoff.ms": 20,
                                     "log.cleaner.io.max.bytes.per.second": 2000000})
    create_topic(broker)
    rng = random.Random(7)
    acked = {}
    for round_no in range(4):
        before = cleanings(broker)
        stop = threading.Event()
        writer = threading.Thread(target=produce,
                                  args=(broker, 20000, acked, random.Random(round_no),
                                        round_no, stop))
        writer.start()
        # Kill while records are written and the cleaner is at work.
        wait_until(lambda: cleanings(broker) > before, 60, "a cleaning to finish")
        time.sleep(0.1 + rng.random() * 0.5)
        broker.kill()
        broker.wait()
        stop.set()
        writer.join(60)
        assert not writer.is_alive()
        broker.start()

    # One more cleaning after the last restart, then read everything.
    before = cleanings(broker)
    produce(broker, 500, acked, rng, 99)
    wait_until(lambda: cleanings(broker) > before, 60, "a cleaning after the restarts")
    end = max(acked) + 1
    records = read_all(broker, end)
    assert records, "nothing read back"

    latest = {}
    for offset in sorted(acked):
        key, value = acked[offset]
        latest[key] = (offset, value)
    seen = {}
    previous = -1
    for offset, key, value in records:
        assert offset > previous, f"offset {offset} after {previous}"
        previous = offset
        # Records in flight at a kill may be in the log unacknowledged.
        if offset in acked:
            assert acked[offset] == (key, value), f"offset {offset} holds another record"
        seen[key] = (offset, value)
    for key, (offset, value) in latest.items():
        got = seen.get(key)
        if got is not None and got[0] > offset:
            continue  # a later, unacknowledged write of the key
        if value is None:
            # A tombstone may be gone after delete.retention.ms, and its key with it.
            assert got is None or got == (offset, None), key
        else:
            assert got == (offset, value), f"{key}: latest value lost ({got} != {offset})"
    # Compaction did its job: far fewer records than were written.
    assert len(records) < len(acked) / 4
    # A kill leaves .cleaned / .swap files; a load removes or finishes them
    # (the cleaner is off for this start, so it writes no new ones).
    broker.kill()
    broker.wait()
    broker.overrides["log.cleaner.enable"] = "false"
    broker.start()
    part = broker.data_dir / f"{TOPIC}-0"
    assert not list(part.glob("*.swap")) and not list(part.glob("*.cleaned"))
    # Cleanings since the first read may have removed more, but no key's
    # latest record.
    again = {}
    for offset, key, value in read_all(broker, end):
        again[key] = (offset, value)
    assert {k: v for k, v in again.items() if v[1] is not None} == \
        {k: v for k, v in seen.items() if v[1] is not None}
