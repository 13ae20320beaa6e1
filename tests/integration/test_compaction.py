"""Log compaction (the log cleaner, storage/compaction/) with real clients:
confluent-kafka (librdkafka) and kcat against one broker whose cleaner looks
for work every 200 ms (log.cleaner.backoff.ms).

Topics use cleanup.policy=compact (or "compact,delete"), segment.bytes=16384
so that segments roll, and min.cleanable.dirty.ratio=0.01. After a cleaning
(the broker logs event=log_cleaned partition=<topic>-<partition>), the log
below the active segment holds exactly the latest record of each key, at the
offset it was acknowledged at, with its timestamp and headers; the active
segment is untouched; a fetch at a removed offset starts at the next record
that survived; tombstones stay for delete.retention.ms after the cleaning that
first covered them. __consumer_offsets is compacted as well, and the group's
committed offsets survive a restart on the cleaned log. log.cleaner.enable=false
cleans nothing; a dedupe buffer (log.cleaner.dedupe.buffer.size) too small for
the dirty part's keys takes several cleanings to the same result.

compaction_support.py holds the helpers. Nothing sleeps to synchronise: every
wait polls a condition with a deadline (60 s: a loaded 2-core machine).
"""
import random
import re

import pytest
from compaction_support import (CLEANER_BROKER, SEGMENT_BYTES, active_base, cleaned_lines,
                                compacted_topic_config, create_topic, first_record_from, now_ms,
                                produce_keyed, read_partition, segments, survivors,
                                wait_compacted, wait_for_cleaning, watermarks)
from confluent_kafka import Consumer, TopicPartition
from samsa_harness import Broker, run_kcat, wait_until

KEYS = [f"k{i}".encode() for i in range(10)]
PAD = 100  # random bytes in each value: zstd must not pack the records into few segments


def keyed_records(n, base_ts, seed, keys=KEYS, prefix="v"):
    """n records over `keys` in a seeded random order, values carrying the
    counter (and PAD random bytes), headers (one name twice, binary bytes) on
    every third."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        key = keys[rng.randrange(len(keys))]
        value = b"%s:%s-%06d:" % (key, prefix.encode(), i) + rng.randbytes(PAD)
        headers = [("seq", b"%d" % i), ("bin", bytes([i % 256, 0, 255])), ("seq", b"again")] \
            if i % 3 == 0 else []
        out.append((key, value, headers, base_ts + i * 10))
    return out


def fillers(n, base_ts, tag):
    """n records with keys of their own: more than a segment of them makes the
    segment holding what came before roll."""
    rng = random.Random(tag)
    return [(b"filler-%s-%d" % (tag.encode(), j), b"f%d:" % j + rng.randbytes(PAD), [],
             base_ts + j) for j in range(n)]


def last_by_key(acked):
    out = {}
    for r in acked:
        out[r.key] = r
    return out


# --- (a) and (b): one compacted partition, two variants ------------------------------
VARIANTS = {
    # codec, cleanup.policy, producer settings
    "plain": ("none", "compact", {}),
    "zstd-idempotent-compact-delete": ("zstd", "compact,delete", {"enable.idempotence": True}),
}


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def compacted(request, samsa_binary):
    """A broker with one compacted partition: 2000 records over k0..k9, then
    fillers enough to roll the segment holding the last of them, all cleaned
    below the active segment. Yields (broker, topic, acknowledged records,
    what was read back, the active segment's base)."""
    codec, policy, producer_conf = VARIANTS[request.param]
    broker = Broker(overrides=CLEANER_BROKER, binary=samsa_binary)
    try:
        broker.start()
        topic = f"compact-{request.param}"
        create_topic(broker.bootstrap, topic, compacted_topic_config(cleanup_policy=policy))
        base_ts = now_ms() - 600_000
        conf = {"compression.type": codec, **producer_conf}
        acked = produce_keyed(broker.bootstrap, topic, keyed_records(2000, base_ts, seed=1),
                              **conf)
        acked += produce_keyed(broker.bootstrap, topic,
                               fillers(2 * SEGMENT_BYTES // PAD, base_ts + 30_000, "a"),
                               **conf)
        wait_for_cleaning(broker, topic)
        got = wait_compacted(broker, topic, acked)
        yield broker, topic, acked, got, active_base(broker.data_dir, topic)
    finally:
        broker.cleanup()


def test_cleaning_keeps_the_latest_record_of_each_key_at_its_offset(compacted):
    broker, topic, acked, got, boundary = compacted
    assert boundary > acked[1999].offset, "the last keyed record is in the active segment"
    # Offsets never change and order is kept: strictly increasing, each the
    # offset the record was acknowledged at.
    offsets = [r.offset for r in got]
    assert offsets == sorted(set(offsets))
    by_offset = {r.offset: r for r in acked}
    for r in got:
        assert by_offset[r.offset] == r, f"offset {r.offset}: read {r}, wrote {by_offset[r.offset]}"
    # Below the active segment: exactly one record per key, its latest.
    cleaned = [r for r in got if r.offset < boundary]
    keys = [r.key for r in cleaned]
    assert len(keys) == len(set(keys)), "a key twice below the active segment"
    latest = last_by_key(acked)
    assert set(keys) == {r.key for r in acked if r.offset < boundary}
    for k in KEYS:
        assert latest[k].offset < boundary
        assert [r for r in cleaned if r.key == k] == [latest[k]], f"key {k!r}"
    # The active segment is untouched: every record written there is read back.
    assert [r for r in got if r.offset >= boundary] == [r for r in acked if r.offset >= boundary]
    # Timestamps and headers came through the rewrite (equality above; and some
    # of the survivors do carry headers).
    assert any(r.headers for r in cleaned)
    assert survivors(acked, boundary) == got
    # Compaction moves neither end of the log.
    assert watermarks(broker.bootstrap, topic) == (0, acked[-1].offset + 1)
    # The cleaned part takes a fraction of the space it did.
    below = sum(size for base, size in segments(broker.data_dir, topic) if base < boundary)
    assert below < 4 * SEGMENT_BYTES, segments(broker.data_dir, topic)


def test_fetch_at_a_removed_offset_starts_at_the_next_surviving_record(compacted):
    broker, topic, acked, got, boundary = compacted
    kept = [r.offset for r in got]
    removed = sorted({r.offset for r in acked} - set(kept))
    assert removed
    # The first, the last, and some in between; with one just before a survivor.
    picks = sorted({removed[0], removed[-1], *removed[:: max(1, len(removed) // 6)],
                    next(o for o in removed if o + 1 in set(kept))})
    expect = {o: next(r for r in got if r.offset > o) for o in picks}
    for o in picks:
        assert first_record_from(broker.bootstrap, topic, o) == expect[o], f"fetch at {o}"
    # kcat (another librdkafka consumer, started at an absolute offset).
    for o in picks[:3]:
        out = run_kcat("-C", "-b", broker.bootstrap, "-t", topic, "-p", "0", "-o", str(o),
                       "-c", "1", "-e", "-q", "-f", "%o %k\\n").stdout.split()
        assert out == [str(expect[o].offset), expect[o].key.decode()], f"kcat -o {o}"
    # ... and at a surviving offset, that record itself.
    assert first_record_from(broker.bootstrap, topic, kept[1]) == got[1]


# --- (c) tombstones ------------------------------------------------------------------
def test_tombstones_stay_for_delete_retention_ms_then_go(start_broker):
    """Two topics, the same writes: k3 and k7 deleted (tombstones) after their
    last values. With delete.retention.ms=3600000 the tombstones are read back
    after cleanings, with their timestamps; with delete.retention.ms=0 a later
    cleaning (the log made dirty again) removes them, and nothing of k3 and k7
    is left. Two cleaner threads (log.cleaner.threads=2) share the two logs."""
    broker = start_broker(overrides={**CLEANER_BROKER, "log.cleaner.threads": 2})
    keep, drop = "tombstones-kept", "tombstones-dropped"
    create_topic(broker.bootstrap, keep, compacted_topic_config(delete_retention_ms=3_600_000))
    create_topic(broker.bootstrap, drop, compacted_topic_config(delete_retention_ms=0))
    base_ts = now_ms() - 600_000
    deleted = [b"k3", b"k7"]
    phase1 = (keyed_records(400, base_ts, seed=2) +
              [(k, None, [("why", b"deleted")], base_ts + 5000 + i)
               for i, k in enumerate(deleted)] +
              fillers(2 * SEGMENT_BYTES // PAD, base_ts + 6000, "c1"))
    acked = {t: produce_keyed(broker.bootstrap, t, phase1) for t in (keep, drop)}
    for t in (keep, drop):
        wait_for_cleaning(broker, t)
    got = wait_compacted(broker, keep, acked[keep])
    tombstones = [r for r in got if r.value is None]
    assert [(r.key, r.timestamp, r.headers) for r in tombstones] == \
        [(k, base_ts + 5000 + i, (("why", b"deleted"),)) for i, k in enumerate(deleted)]
    # With delete.retention.ms=0 a tombstone may already be gone if a second
    # cleaning came after the one that first covered it.
    wait_compacted(broker, drop, acked[drop], drop_tombstones="either")
    rounds = {t: len(cleaned_lines(broker, t)) for t in (keep, drop)}

    # Dirty again: more of the other keys, and more fillers to roll the segment.
    others = [k for k in KEYS if k not in deleted]
    phase2 = (keyed_records(300, base_ts + 10_000, seed=3, keys=others, prefix="w") +
              fillers(2 * SEGMENT_BYTES // PAD, base_ts + 20_000, "c2"))
    for t in (keep, drop):
        acked[t] += produce_keyed(broker.bootstrap, t, phase2)
        wait_for_cleaning(broker, t, after=rounds[t])
    got_keep = wait_compacted(broker, keep, acked[keep])
    got_drop = wait_compacted(broker, drop, acked[drop], drop_tombstones=True)

    boundary = active_base(broker.data_dir, keep)
    assert [r.key for r in got_keep if r.value is None and r.offset < boundary] == deleted
    assert not any(r.key in deleted for r in got_drop), [r.brief() for r in got_drop
                                                         if r.key in deleted]
    # Everything else is as in the kept topic: the latest value of each key.
    latest = {k: r.value for k, r in last_by_key(acked[drop]).items() if k not in deleted}
    assert {r.key: r.value for r in got_drop} == latest
    assert [r.offset for r in got_drop] == [r.offset for r in got_keep
                                           if r.key not in deleted]


# --- (d) __consumer_offsets ------------------------------------------------------------
OFFSETS_BROKER = {
    **CLEANER_BROKER,
    "offsets.topic.num.partitions": 1,
    "offsets.topic.segment.bytes": 65536,
}
COMMITS = 20_000


def test_consumer_offsets_is_compacted_and_commits_survive_a_restart(start_broker):
    """One group commits offset 1..20000 of src-0 (and once, at the start,
    offset 77 of src-1). __consumer_offsets (segment.bytes 65536, cleanup.policy
    compact by default) is cleaned down to a few small segments, and after a
    restart the group's committed offsets are the last ones committed."""
    broker = start_broker(overrides=OFFSETS_BROKER)
    create_topic(broker.bootstrap, "src", {}, partitions=2)
    group = "compaction-g"
    conf = {"bootstrap.servers": broker.bootstrap, "group.id": group,
            "enable.auto.commit": False, "enable.partition.eof": False}
    errors = []
    c = Consumer({**conf, "on_commit": lambda err, parts: err and errors.append(err)})
    try:
        wait_until(lambda: _commits(c, [TopicPartition("src", 1, 77)]), 30,
                   "the first commit (the group's coordinator loaded)")
        for i in range(1, COMMITS + 1):
            tp = [TopicPartition("src", 0, i)]
            c.commit(offsets=tp, asynchronous=i % 1000 != 0)
            c.poll(0)
        c.commit(offsets=[TopicPartition("src", 0, COMMITS)], asynchronous=False)
        assert not errors, errors[:5]
    finally:
        c.close()

    offsets_topic = "__consumer_offsets"
    _, end = watermarks(broker.bootstrap, offsets_topic)
    assert end > COMMITS
    # At least a 61-byte batch header and a ~20-byte record for each commit.
    raw_min = end * 80
    wait_for_cleaning(broker, offsets_topic)

    # Below the active segment only the two keys' latest commits remain: a few
    # hundred bytes, in few segments that hold anything (a cleaning rewrites
    # each group of segments that fit segment.bytes into one, which may come
    # out empty: empty ones are merged by the next cleaning, as in Kafka).
    state = {}

    def small():
        segs = segments(broker.data_dir, offsets_topic)
        state["segs"] = segs
        cleaned = sum(size for _, size in segs[:-1])
        total = cleaned + segs[-1][1]
        return cleaned <= 4096 and len([s for s in segs if s[1]]) <= 3 and \
            total <= 65536 + 4096 and total * 20 < raw_min
    try:
        wait_until(small, 60, "__consumer_offsets-0 cleaned to a few small segments", 0.2)
    except TimeoutError as e:
        lines = "\n".join(cleaned_lines(broker, offsets_topic)[-10:]) or "(none)"
        raise AssertionError(f"{e}: segments (base, bytes) {state['segs']}, at least "
                             f"{raw_min} bytes written\n--- event=log_cleaned ---\n{lines}") \
            from None

    broker.restart()
    c = Consumer(conf)
    try:
        def committed():
            try:
                got = c.committed([TopicPartition("src", 0), TopicPartition("src", 1)],
                                  timeout=5)
            except Exception:
                return None  # COORDINATOR_LOAD_IN_PROGRESS right after the start
            return [tp.offset for tp in got]
        assert wait_until(committed, 60, "committed offsets readable") == [COMMITS, 77]
    finally:
        c.close()
    # Loading the cleaned log left it as it was.
    assert segments(broker.data_dir, offsets_topic) == state["segs"]


def _commits(c, offsets):
    try:
        c.commit(offsets=offsets, asynchronous=False)
        return True
    except Exception:
        return False


# --- log.cleaner.enable, log.cleaner.dedupe.buffer.size --------------------------------
def test_disabled_cleaner_then_a_dedupe_buffer_too_small_for_the_keys(start_broker):
    """With log.cleaner.enable=false nothing is cleaned. Restarted with the
    cleaner on and the smallest log.cleaner.dedupe.buffer.size (1 MiB: room for
    some 40,000 keys), the dirty part's 100,000 keys take several cleanings,
    each covering what its offset map holds, and the log ends up holding each
    key's latest record once."""
    broker = start_broker(overrides={**CLEANER_BROKER, "log.cleaner.enable": "false",
                                     "log.cleaner.threads": 1,
                                     "log.cleaner.dedupe.buffer.size": 1024 * 1024})
    topic = "small-map"
    create_topic(broker.bootstrap, topic, compacted_topic_config(segment_bytes=262144))
    n = 100_000
    base_ts = now_ms() - 600_000
    order = list(range(n))
    random.Random(5).shuffle(order)
    # Every key once in order, then every key again, shuffled.
    records = [(b"u%06d" % i, b"first-%d" % i, [], base_ts + i) for i in range(n)] + \
        [(b"u%06d" % k, b"second-%d" % k, [("pass", b"2")] if k % 10 == 0 else [],
          base_ts + n + j) for j, k in enumerate(order)]
    acked = produce_keyed(broker.bootstrap, topic, records, **{"batch.size": 65536})
    assert len(segments(broker.data_dir, topic)) > 10
    # Writing and reading back took many log.cleaner.backoff.ms: nothing was cleaned.
    assert read_partition(broker.bootstrap, topic) == acked
    assert cleaned_lines(broker, topic) == []

    broker.overrides["log.cleaner.enable"] = "true"
    broker.restart()
    wait_for_cleaning(broker, topic)
    got = wait_compacted(broker, topic, acked)
    boundary = active_base(broker.data_dir, topic)
    # Below the active segment: each key's second record, or its first where
    # the second is in the active segment.
    in_active = {r.key for r in acked[n:] if r.offset >= boundary}
    assert [r.offset for r in got if r.offset < boundary] == sorted(
        [r.offset for r in acked[:n] if r.key in in_active] +
        [r.offset for r in acked[n:] if r.offset < boundary])
    assert {r.key: r.value for r in got} == {r.key: r.value for r in acked[n:]}
    lines = cleaned_lines(broker, topic)
    entries = [int(re.search(r"\bmap_entries=(\d+)", ln).group(1)) for ln in lines]
    assert len(lines) >= 3 and max(entries) < n, lines
