"""Kafka transactions (KIP-98) with real clients against one broker: the
transaction coordinator over __transaction_state, commit and abort markers,
the last stable offset, read_committed fetch with aborted transactions,
consume-transform-produce with offsets committed in the transaction, zombie
fencing, transaction timeouts, restarts, .txnindex files, and kcat as a
second reader.

Every expectation is what Apache Kafka 4.x does. Offsets are counted with the
control records: each commit or abort writes one marker to each partition the
transaction touched, taking one offset; consumers never see the markers, but
their positions move past them.

Clients: confluent-kafka 1.7 on librdkafka 2.0.2 (whose default isolation.level
is read_committed, so read_uncommitted readers say so) and kcat. helpers:
txn_support.py.
"""
import collections
import struct
import time

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from samsa_harness import BrokerError, run_kcat
from txn_support import (INIT_TIMEOUT_S, INVALID_PRODUCER_EPOCH, PRODUCER_FENCED, READ_COMMITTED,
                         READ_UNCOMMITTED, TXN_BROKER, TXN_BROKER_SMALL, create_topic,
                         fetch, fetch_all_batches, flush_ok, list_offsets, plain_producer,
                         produce_values, query_end, read_partitions, txn_producer,
                         txnindex_entries, wait_for)
from txn_support import consumer as make_consumer

RC = "read_committed"
RU = "read_uncommitted"
ABORT, COMMIT = 0, 1
CLEANUP_KEY = "transaction.abort.timed.out.transaction.cleanup.interval.ms"
FENCED_CODES = {KafkaError._FENCED, PRODUCER_FENCED, INVALID_PRODUCER_EPOCH}


def start_txn_broker(start_broker, base=TXN_BROKER_SMALL, **extra):
    """A broker that checks for timed-out transactions every 500 ms, or, if it
    refuses that key, at Kafka's default of every 10 s."""
    try:
        return start_broker(overrides={**base, CLEANUP_KEY: 500, **extra})
    except BrokerError:
        return start_broker(overrides={**base, **extra})


def control_batches(batches):
    return [(b.base_offset, b.control_type) for b in batches if b.control]


def data_offsets(batches):
    return [o for b in batches if not b.control for o in range(b.base_offset, b.last_offset + 1)]


def fatal_state_error(e: KafkaException) -> KafkaError:
    return e.args[0]


# --- 1. commit, abort, commit ----------------------------------------------------------

def test_commit_abort_commit_across_three_topics(start_broker):
    """On Kafka's default of 50 __transaction_state partitions."""
    b = start_broker(overrides=TXN_BROKER)
    topics = ["txn-a", "txn-b", "txn-c"]
    nparts = 4
    tps = [(t, p) for t in topics for p in range(nparts)]
    for t in topics:
        create_topic(b.bootstrap, t, nparts)
    N, M, K = 5, 3, 4

    p = txn_producer(b.bootstrap, "multi-topic")
    p.init_transactions(INIT_TIMEOUT_S)

    def produce_round(tag, n):
        p.begin_transaction()
        for t, part in tps:
            produce_values(p, t, part, [f"{tag}-{t}-{part}-{i}" for i in range(n)])

    produce_round("c1", N)
    p.commit_transaction(30)
    produce_round("ab", M)
    flush_ok(p)  # in the log before the abort (abort_transaction purges what is unsent)
    p.abort_transaction(30)
    produce_round("c2", K)
    p.commit_transaction(30)

    # Per partition: c1 at 0..N-1, commit marker N, ab at N+1..N+M, abort
    # marker N+M+1, c2 at N+M+2..N+M+K+1, commit marker N+M+K+2.
    end = N + M + K + 3
    ends = {tp: end for tp in tps}
    committed_offsets = list(range(N)) + list(range(N + M + 2, N + M + K + 2))
    all_offsets = list(range(N)) + list(range(N + 1, N + M + 1)) + \
        list(range(N + M + 2, N + M + K + 2))

    rc = read_partitions(b.bootstrap, tps, RC, ends)
    ru = read_partitions(b.bootstrap, tps, RU, ends)
    for t, part in tps:
        c1 = [f"c1-{t}-{part}-{i}" for i in range(N)]
        ab = [f"ab-{t}-{part}-{i}" for i in range(M)]
        c2 = [f"c2-{t}-{part}-{i}" for i in range(K)]
        assert rc.values(t, part) == c1 + c2, (t, part)
        assert rc.offsets(t, part) == committed_offsets, (t, part)
        assert ru.values(t, part) == c1 + ab + c2, (t, part)
        assert ru.offsets(t, part) == all_offsets, (t, part)
        # positions move past the control records, to the end of the log
        assert rc.positions[(t, part)] == end and ru.positions[(t, part)] == end

    # What the broker answers: nothing is open, so LSO = high watermark; the
    # read_committed fetch names the aborted transaction (producer id, first
    # offset), read_uncommitted gets a null list.
    qc, qu = make_consumer(b.bootstrap, RC), make_consumer(b.bootstrap, RU)
    for t, part in tps:
        assert query_end(b.bootstrap, t, part, RC, c=qc) == (0, end), (t, part)
        assert query_end(b.bootstrap, t, part, RU, c=qu) == (0, end), (t, part)
        assert list_offsets(b, t, part, READ_COMMITTED) == (0, end), (t, part)
        fr = fetch_all_batches(b, t, part, end, READ_COMMITTED)
        assert (fr.high_watermark, fr.last_stable_offset) == (end, end), (t, part)
        pids = {x.producer_id for x in fr.batches}
        assert len(pids) == 1 and min(pids) >= 0, (t, part, fr.batches)
        pid = pids.pop()
        assert fr.aborted == [(pid, N + 1)], (t, part)
        assert control_batches(fr.batches) == \
            [(N, COMMIT), (N + M + 1, ABORT), (end - 1, COMMIT)], (t, part)
        assert all(x.transactional for x in fr.batches), (t, part, fr.batches)
        assert all(x.count == 1 for x in fr.batches if x.control)
        assert data_offsets(fr.batches) == all_offsets, (t, part)
        assert len({x.producer_epoch for x in fr.batches}) == 1, fr.batches
        fu = fetch_all_batches(b, t, part, end, READ_UNCOMMITTED)
        assert fu.aborted is None, (t, part, fu.aborted)
        assert (fu.high_watermark, fu.last_stable_offset) == (end, end)
    qc.close()
    qu.close()


# --- 2. the last stable offset -----------------------------------------------------------

def test_open_transaction_holds_back_read_committed_at_the_lso(start_broker):
    b = start_broker(overrides=TXN_BROKER_SMALL)
    topic = "lso"
    tp = (topic, 0)
    create_topic(b.bootstrap, topic)
    plain = plain_producer(b.bootstrap)
    produce_values(plain, topic, 0, ["p0", "p1", "p2"])      # 0-2
    flush_ok(plain)

    txn = txn_producer(b.bootstrap, "lso-txn")
    txn.init_transactions(INIT_TIMEOUT_S)
    txn.begin_transaction()
    produce_values(txn, topic, 0, [f"t{i}" for i in range(5)])  # 3-7, open
    flush_ok(txn)
    produce_values(plain, topic, 0, ["p3"])                  # 8, after the open transaction
    flush_ok(plain)

    # LSO = the first offset of the open transaction; a later non-transactional
    # record does not move it.
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 3)
    assert list_offsets(b, topic, 0, READ_UNCOMMITTED) == (0, 9)
    assert list_offsets(b, topic, 0, READ_COMMITTED, version=5) == (0, 3)
    assert query_end(b.bootstrap, topic, 0, RC) == (0, 3)
    assert query_end(b.bootstrap, topic, 0, RU) == (0, 9)
    fr = fetch_all_batches(b, topic, 0, 3, READ_COMMITTED)
    assert (fr.high_watermark, fr.last_stable_offset) == (9, 3)
    assert all(x.last_offset < 3 for x in fr.batches), fr.batches  # nothing past the LSO
    assert fr.aborted == []

    c = make_consumer(b.bootstrap, RC)  # stays open across the commit
    try:
        before = read_partitions(b.bootstrap, [tp], RC, {tp: 3}, c=c)
        assert before.values(*tp) == ["p0", "p1", "p2"]
        assert before.eof_at[tp] == 3 and before.positions[tp] == 3
        ru = read_partitions(b.bootstrap, [tp], RU, {tp: 9})
        assert ru.values(*tp) == ["p0", "p1", "p2"] + [f"t{i}" for i in range(5)] + ["p3"]

        txn.commit_transaction(30)  # commit marker at 9
        after = read_partitions(b.bootstrap, [tp], RC, {tp: 10}, c=c, assign=False)
        assert after.values(*tp) == [f"t{i}" for i in range(5)] + ["p3"]
        assert after.offsets(*tp) == [3, 4, 5, 6, 7, 8]
        assert after.positions[tp] == 10
    finally:
        c.close()
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 10)
    assert query_end(b.bootstrap, topic, 0, RC) == (0, 10)
    fr = fetch_all_batches(b, topic, 0, 10, READ_COMMITTED)
    assert (fr.high_watermark, fr.last_stable_offset, fr.aborted) == (10, 10, [])
    assert control_batches(fr.batches) == [(9, COMMIT)]


# --- 3. consume-transform-produce ------------------------------------------------------

def test_consume_transform_produce_exactly_once_with_an_aborted_round(start_broker):
    b = start_broker(overrides={**TXN_BROKER_SMALL, "group.min.session.timeout.ms": 500})
    src, dst, group = "ctp-in", "ctp-out", "ctp-group"
    n, nparts = 2000, 2
    create_topic(b.bootstrap, src, nparts)
    create_topic(b.bootstrap, dst, nparts)
    plain = plain_producer(b.bootstrap)
    for i in range(n):
        produce_values(plain, src, i % nparts, [str(i)])
    flush_ok(plain)
    src_end = {p: n // nparts for p in range(nparts)}

    p = txn_producer(b.bootstrap, "ctp-txn")
    p.init_transactions(INIT_TIMEOUT_S)

    def new_consumer():
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": group,
                      "isolation.level": RC, "enable.auto.commit": False,
                      "auto.offset.reset": "earliest", "session.timeout.ms": 6000,
                      "fetch.wait.max.ms": 100})
        c.subscribe([src])
        return c

    def committed_now(c):
        got = c.committed([TopicPartition(src, q) for q in range(nparts)], timeout=20)
        return {x.partition: x.offset for x in got}

    ABORTED_ROUND = 5
    c = new_consumer()
    rounds = 0
    last_committed = {}   # partition -> offset committed by the last committed round
    aborted_values = []
    deadline = time.monotonic() + 90
    try:
        while True:
            assert time.monotonic() < deadline, \
                f"consume-transform-produce stalled after {rounds} rounds, " \
                f"committed {last_committed}"
            msgs = c.consume(num_messages=100, timeout=0.5)
            for m in msgs:
                assert not m.error(), m.error()
            if not msgs:
                assignment = c.assignment()
                if len(assignment) == nparts:
                    pos = {x.partition: x.offset for x in c.position(assignment)}
                    if pos == src_end:
                        break
                continue
            p.begin_transaction()
            for m in msgs:
                v = f"{m.value().decode()}|{rounds}"
                produce_values(p, dst, m.partition(), [v])
                if rounds == ABORTED_ROUND:
                    aborted_values.append(v)
            offsets = [x for x in c.position(c.assignment()) if x.offset >= 0]
            p.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), 30)
            if rounds == ABORTED_ROUND:
                flush_ok(p)
                p.abort_transaction(30)
                # The aborted round's offsets were not committed: a new consumer
                # in the group starts where the last committed round ended.
                c.close()
                c = new_consumer()
                assert committed_now(c) == {q: last_committed.get(q, -1001)
                                            for q in range(nparts)}
            else:
                p.commit_transaction(30)
                last_committed.update({x.partition: x.offset for x in offsets})
            rounds += 1
        assert rounds > ABORTED_ROUND + 1, rounds
        assert last_committed == src_end
        assert committed_now(c) == src_end
    finally:
        c.close()
    # A consumer of the group that never joined it sees the same.
    other = Consumer({"bootstrap.servers": b.bootstrap, "group.id": group,
                      "isolation.level": RC, "enable.auto.commit": False})
    got = other.committed([TopicPartition(src, q) for q in range(nparts)], timeout=20)
    other.close()
    assert {x.partition: x.offset for x in got} == src_end

    # Every input record transformed exactly once among the committed output,
    # in input order per partition; the aborted round's output is in the log
    # but invisible to read_committed.
    tps = [(dst, q) for q in range(nparts)]
    ends = {}
    for q in range(nparts):
        err, hw = list_offsets(b, dst, q, READ_UNCOMMITTED)
        assert err == 0
        assert list_offsets(b, dst, q, READ_COMMITTED) == (0, hw)
        ends[(dst, q)] = hw
    rc = read_partitions(b.bootstrap, tps, RC, ends)
    ru = read_partitions(b.bootstrap, tps, RU, ends)
    seen = collections.Counter()
    for q in range(nparts):
        vals = rc.values(dst, q)
        inputs = [int(v.split("|")[0]) for v in vals]
        assert inputs == sorted(inputs), f"partition {q} out of order"
        assert all(i % nparts == q for i in inputs)
        assert not any(int(v.split("|")[1]) == ABORTED_ROUND for v in vals)
        seen.update(inputs)
    assert set(seen) == set(range(n))
    assert [i for i, k in seen.items() if k != 1] == []
    assert aborted_values
    all_ru = [v for q in range(nparts) for v in ru.values(dst, q)]
    assert sorted(all_ru) == sorted([v for q in range(nparts) for v in rc.values(dst, q)] +
                                    aborted_values)


# --- 4. zombie fencing ------------------------------------------------------------------

def test_new_producer_with_same_transactional_id_fences_the_old_one(start_broker):
    b = start_broker(overrides=TXN_BROKER_SMALL)
    topic = "fenced"
    create_topic(b.bootstrap, topic, 2)
    a = txn_producer(b.bootstrap, "zombie")
    a.init_transactions(INIT_TIMEOUT_S)
    a.begin_transaction()
    produce_values(a, topic, 0, [f"a{i}" for i in range(5)])   # 0-4
    flush_ok(a)
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 0)

    bp = txn_producer(b.bootstrap, "zombie")
    bp.init_transactions(INIT_TIMEOUT_S)
    # InitProducerId answered only once A's transaction is aborted: its marker
    # is at 5 and the LSO has moved past it.
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 6)
    assert list_offsets(b, topic, 0, READ_UNCOMMITTED) == (0, 6)

    # The zombie: a record to the partition it has (Produce with the old epoch:
    # Kafka answers INVALID_PRODUCER_EPOCH) and one to a new partition
    # (AddPartitionsToTxn: PRODUCER_FENCED). It ends in a fatal state.
    # (confluent-kafka raises a fatal error from flush() as soon as it is set.)
    reports = []
    errors = []
    for part, v in ((0, "a5"), (1, "a6")):
        a.produce(topic, value=v.encode(), partition=part,
                  on_delivery=lambda err, msg: reports.append(err))
    try:
        a.flush(15)
    except KafkaException as e:
        errors.append(fatal_state_error(e))
    assert all(e is not None for e in reports), reports  # nothing delivered
    with pytest.raises(KafkaException) as commit_err:
        a.commit_transaction(15)
    errors.append(fatal_state_error(commit_err.value))
    if not errors[-1].fatal():
        assert errors[-1].txn_requires_abort(), errors
        with pytest.raises(KafkaException) as abort_err:
            a.abort_transaction(15)
        errors.append(fatal_state_error(abort_err.value))
    assert errors[-1].fatal(), errors
    assert errors[0].code() in FENCED_CODES, errors

    bp.begin_transaction()
    produce_values(bp, topic, 0, ["b0", "b1", "b2"])   # 6-8, commit marker 9
    produce_values(bp, topic, 1, ["b3"])               # 0, commit marker 1
    bp.commit_transaction(30)
    ends = {(topic, 0): 10, (topic, 1): 2}
    rc = read_partitions(b.bootstrap, list(ends), RC, ends)
    assert rc.values(topic, 0) == ["b0", "b1", "b2"]
    assert rc.values(topic, 1) == ["b3"]
    ru = read_partitions(b.bootstrap, list(ends), RU, ends)
    assert ru.values(topic, 0) == [f"a{i}" for i in range(5)] + ["b0", "b1", "b2"]
    assert ru.values(topic, 1) == ["b3"]
    fr = fetch_all_batches(b, topic, 0, 10, READ_COMMITTED)
    assert control_batches(fr.batches) == [(5, ABORT), (9, COMMIT)]
    pid = fr.batches[0].producer_id
    assert {x.producer_id for x in fr.batches} == {pid}  # same id, newer epochs
    assert fr.aborted == [(pid, 0)]
    data_epochs = sorted({x.producer_epoch for x in fr.batches if not x.control})
    assert len(data_epochs) == 2 and data_epochs[0] < data_epochs[1], fr.batches
    assert [x.producer_epoch for x in fr.batches if x.control][0] > data_epochs[0]


# --- 5. transaction timeout -------------------------------------------------------------

def test_coordinator_aborts_a_transaction_past_its_timeout(start_broker):
    b = start_txn_broker(start_broker)
    topic = "txn-timeout"
    tp = (topic, 0)
    create_topic(b.bootstrap, topic)
    p = txn_producer(b.bootstrap, "slow-txn", **{"transaction.timeout.ms": 3000})
    p.init_transactions(INIT_TIMEOUT_S)
    p.begin_transaction()
    started = time.monotonic()
    produce_values(p, topic, 0, [f"s{i}" for i in range(5)])   # 0-4
    flush_ok(p)
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 0)
    # The coordinator aborts it (marker at 5) once it is older than 3 s, at its
    # next check (every 0.5 s here, or 10 s by default).
    wait_for(lambda: list_offsets(b, topic, 0, READ_COMMITTED) == (0, 6),
             "the timed-out transaction to be aborted", timeout=40)
    elapsed = time.monotonic() - started
    assert elapsed >= 2.9, f"aborted after {elapsed:.1f}s, before its 3 s timeout"
    rc = read_partitions(b.bootstrap, [tp], RC, {tp: 6})
    assert rc.values(*tp) == [] and rc.positions[tp] == 6
    ru = read_partitions(b.bootstrap, [tp], RU, {tp: 6})
    assert ru.values(*tp) == [f"s{i}" for i in range(5)]
    fr = fetch_all_batches(b, topic, 0, 6, READ_COMMITTED)
    assert control_batches(fr.batches) == [(5, ABORT)]
    data, marker = fr.batches[0], fr.batches[-1]
    assert fr.aborted == [(data.producer_id, 0)]
    # Kafka aborts a timed-out transaction under a bumped epoch (fencing the producer).
    assert marker.producer_id == data.producer_id
    assert marker.producer_epoch == data.producer_epoch + 1

    with pytest.raises(KafkaException) as e:
        p.commit_transaction(15)
    err = fatal_state_error(e.value)
    assert err.code() in FENCED_CODES, err
    assert list_offsets(b, topic, 0, READ_UNCOMMITTED) == (0, 6)  # no commit marker
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 6)


# --- 6. restarts and .txnindex -------------------------------------------------------------

def test_transactions_across_sigkill_and_txnindex(start_broker):
    b = start_txn_broker(start_broker)
    topic = "txn-restart"
    create_topic(b.bootstrap, topic, 2)
    a = txn_producer(b.bootstrap, "restart-a")
    a.init_transactions(INIT_TIMEOUT_S)
    a.begin_transaction()
    produce_values(a, topic, 0, [f"c{i}" for i in range(5)])   # 0-4, commit marker 5
    a.commit_transaction(30)
    a.begin_transaction()
    produce_values(a, topic, 0, ["x0", "x1", "x2"])            # 6-8, abort marker 9
    flush_ok(a)
    a.abort_transaction(30)

    fr = fetch_all_batches(b, topic, 0, 10, READ_COMMITTED)
    pid_a = fr.batches[0].producer_id
    assert fr.aborted == [(pid_a, 6)]
    # Kafka's .txnindex entry: producer id, first offset, last offset (the
    # marker), the LSO once it completed.
    assert txnindex_entries(b, topic, 0) == [(pid_a, 6, 9, 10)]
    assert txnindex_entries(b, topic, 1) == []

    a.begin_transaction()
    produce_values(a, topic, 0, ["o0", "o1", "o2"])            # 10-12, left open
    flush_ok(a)
    t = txn_producer(b.bootstrap, "restart-b", **{"transaction.timeout.ms": 3000})
    t.init_transactions(INIT_TIMEOUT_S)
    t.begin_transaction()
    produce_values(t, topic, 1, ["t0", "t1"])                   # p1: 0-1, left open
    flush_ok(t)
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 10)

    b.kill()
    b.wait()
    b.start()

    def lso(part):
        err, off = list_offsets(b, topic, part, READ_COMMITTED)
        return off if err == 0 else None
    # The committed records are back; the open transaction still holds the LSO.
    assert wait_for(lambda: lso(0), "partition 0 after the restart") == 10
    assert list_offsets(b, topic, 0, READ_UNCOMMITTED) == (0, 13)
    rc = read_partitions(b.bootstrap, [(topic, 0)], RC, {(topic, 0): 10})
    assert rc.values(topic, 0) == [f"c{i}" for i in range(5)]

    # restart-b's transaction times out on the reloaded coordinator: marker at 2.
    wait_for(lambda: lso(1) == 3, "restart-b's transaction aborted after the restart",
             timeout=40)
    assert list_offsets(b, topic, 1, READ_UNCOMMITTED) == (0, 3)
    assert txnindex_entries(b, topic, 1)[0][1:] == (0, 2, 3)

    # A new producer with restart-a's id fences and aborts the open transaction
    # (marker at 13), then commits its own.
    a2 = txn_producer(b.bootstrap, "restart-a")
    a2.init_transactions(INIT_TIMEOUT_S)
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 14)
    a2.begin_transaction()
    produce_values(a2, topic, 0, ["n0", "n1"])                  # 14-15, commit marker 16
    a2.commit_transaction(30)
    assert list_offsets(b, topic, 0, READ_COMMITTED) == (0, 17)
    ends = {(topic, 0): 17, (topic, 1): 3}
    rc = read_partitions(b.bootstrap, list(ends), RC, ends)
    assert rc.values(topic, 0) == [f"c{i}" for i in range(5)] + ["n0", "n1"], \
        ("read_committed lost committed records; the Fetch from 0 names aborted "
         f"transactions {fetch(b, topic, 0, 0, READ_COMMITTED).aborted}, .txnindex "
         f"{txnindex_entries(b, topic, 0)}")
    assert rc.values(topic, 1) == []
    fr = fetch_all_batches(b, topic, 0, 17, READ_COMMITTED)
    assert control_batches(fr.batches) == [(5, COMMIT), (9, ABORT), (13, ABORT), (16, COMMIT)]
    assert {x.producer_id for x in fr.batches} == {pid_a}
    assert fr.aborted == [(pid_a, 6), (pid_a, 10)]
    # Recovery after SIGKILL rebuilt the index of the unflushed segment: each
    # aborted transaction once, as Kafka's LogSegment.recover (txnIndex.reset,
    # then the entries again, with the same last stable offsets).
    assert txnindex_entries(b, topic, 0) == [(pid_a, 6, 9, 10), (pid_a, 10, 13, 14)]
    del a, t


# --- 7. kcat ---------------------------------------------------------------------------

def test_kcat_read_committed_sees_only_committed_records(start_broker):
    b = start_broker(overrides=TXN_BROKER_SMALL)
    topic = "kcat-txn"
    create_topic(b.bootstrap, topic)
    p = txn_producer(b.bootstrap, "kcat-txn")
    p.init_transactions(INIT_TIMEOUT_S)
    p.begin_transaction()
    produce_values(p, topic, 0, ["k0", "k1", "k2"])   # 0-2, commit 3
    p.commit_transaction(30)
    p.begin_transaction()
    produce_values(p, topic, 0, ["x0", "x1"])         # 4-5, abort 6
    flush_ok(p)
    p.abort_transaction(30)
    p.begin_transaction()
    produce_values(p, topic, 0, ["k3"])               # 7, commit 8
    p.commit_transaction(30)
    p.begin_transaction()
    produce_values(p, topic, 0, ["o0"])               # 9, open
    flush_ok(p)

    def kcat(isolation):
        out = run_kcat("-C", "-b", b.bootstrap, "-t", topic, "-p", "0", "-o", "beginning",
                       "-e", "-q", "-X", f"isolation.level={isolation}", "-f", "%o %s\\n")
        return out.stdout.splitlines()

    # read_committed stops at the LSO (9): -e exits there.
    assert kcat(RC) == ["0 k0", "1 k1", "2 k2", "7 k3"]
    assert kcat(RU) == ["0 k0", "1 k1", "2 k2", "4 x0", "5 x1", "7 k3", "9 o0"]
    p.commit_transaction(30)                          # commit 10
    assert kcat(RC) == ["0 k0", "1 k1", "2 k2", "7 k3", "9 o0"]


def test_cli_lists_and_describes_transactions(start_broker):
    """`samsa transactions list / describe` as kafka-transactions.sh: the open
    transaction with its coordinator, producer and partitions; a finished one
    as CompleteCommit; an unknown id fails with Kafka's error name."""
    from samsa_cli import on as samsa_on
    b = start_broker(overrides=TXN_BROKER_SMALL)
    create_topic(b.bootstrap, "cli-txn", partitions=2)
    p = txn_producer(b.bootstrap, "cli-open")
    p.init_transactions(INIT_TIMEOUT_S)
    p.begin_transaction()
    produce_values(p, "cli-txn", 1, [b"v"])
    flush_ok(p)
    listed = samsa_on(b, "transactions", "list")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["TransactionalId", "Coordinator", "ProducerId", "TransactionState"]
    row = [l.split() for l in lines[1:] if l.startswith("cli-open")]
    assert row and row[0][1] == "1" and row[0][3] == "Ongoing", listed.stdout
    described = samsa_on(b, "transactions", "describe", "--transactional-id", "cli-open")
    assert described.returncode == 0, described.stderr
    header, values = [l.split() for l in described.stdout.splitlines()[:2]]
    fields = dict(zip(header, values))
    assert fields["TransactionState"] == "Ongoing"
    assert fields["TopicPartitions"] == "cli-txn-1"
    assert fields["CoordinatorId"] == "1" and fields["TransactionTimeoutMs"] == "60000"
    p.commit_transaction(INIT_TIMEOUT_S)
    done = samsa_on(b, "transactions", "list", "--state", "CompleteCommit")
    assert any(l.split()[:1] == ["cli-open"] for l in done.stdout.splitlines()[1:]), done.stdout
    ongoing = samsa_on(b, "transactions", "list", "--state", "Ongoing")
    assert not any(l.startswith("cli-open") for l in ongoing.stdout.splitlines()[1:])
    missing = samsa_on(b, "transactions", "describe", "--transactional-id", "never-used")
    assert missing.returncode != 0 and "TRANSACTIONAL_ID_NOT_FOUND" in missing.stderr


def test_kip890_a_write_to_a_partition_not_in_the_transaction_is_refused(start_broker):
    """KIP-890 (transaction.partition.verification.enable, on by default): a
    transactional batch for a partition the producer never added to its
    transaction is refused with INVALID_TXN_STATE and never opens a
    transaction there, so the partition's last stable offset stays at its
    high watermark; with verification off the same write opens one."""
    import kafka_wire as kw
    from test_idempotence import crc32c, init_producer_id, varint

    def txn_batch(pid, epoch, values):
        ts = int(time.time() * 1000)
        records = b""
        for i, v in enumerate(values):
            body = b"\x00" + varint(0) + varint(i) + varint(-1) + varint(len(v)) + v + varint(0)
            records += varint(len(body)) + body
        # attributes 0x10: transactional
        after_crc = (struct.pack(">hiqqqhii", 0x10, len(values) - 1, ts, ts, pid, epoch, 0,
                                 len(values)) + records)
        return struct.pack(">qiibI", 0, 4 + 1 + 4 + len(after_crc), -1, 2,
                           crc32c(after_crc)) + after_crc

    def produce_txn(b, txn_id, topic, batch):
        body = (kw.string(txn_id) + kw.int16(-1) + kw.int32(10_000) +
                kw.array([kw.string(topic) +
                          kw.array([kw.int32(0) + kw.int32(len(batch)) + batch])]))
        with kw.KafkaConnection.to(b) as conn:
            cid = conn.send_request(0, 8, body)
            r = kw.Reader(conn.read_frame())
        assert r.int32() == cid
        assert r.int32() == 1 and r.string() == topic and r.int32() == 1
        assert r.int32() == 0
        return r.int16()

    def init(b, txn_id):
        def ready():
            with kw.KafkaConnection.to(b) as conn:
                out = init_producer_id(conn, 3, transactional_id=txn_id)
            return out if out[0] == 0 else None
        return wait_for(ready, f"InitProducerId for {txn_id}")

    for verify, expected in ((True, 48), (False, 0)):  # INVALID_TXN_STATE, NONE
        b = start_broker(overrides={**TXN_BROKER_SMALL,
                                    "transaction.partition.verification.enable": verify})
        create_topic(b.bootstrap, "kip890", partitions=1)
        # A real producer first: __transaction_state is made and loaded.
        warm = txn_producer(b.bootstrap, "kip890-warm")
        warm.init_transactions(INIT_TIMEOUT_S)
        _, pid, epoch = init(b, "kip890-raw")
        assert produce_txn(b, "kip890-raw", "kip890", txn_batch(pid, epoch, [b"late"])) == expected
        hw = list_offsets(b, "kip890", 0, READ_UNCOMMITTED)[1]
        lso = list_offsets(b, "kip890", 0, READ_COMMITTED)[1]
        if verify:
            assert (hw, lso) == (0, 0), "nothing written, nothing left open"
        else:
            assert (hw, lso) == (1, 0), "the unverified write opened a transaction"
    # The key is dynamic, as in Kafka: turned off for this broker, the same
    # write is taken.
    from confluent_kafka.admin import AdminClient, ConfigResource
    b = start_broker(overrides=TXN_BROKER_SMALL)
    create_topic(b.bootstrap, "kip890-dyn", partitions=1)
    warm = txn_producer(b.bootstrap, "kip890-warm")
    warm.init_transactions(INIT_TIMEOUT_S)
    _, pid, epoch = init(b, "kip890-dyn-raw")
    assert produce_txn(b, "kip890-dyn-raw", "kip890-dyn", txn_batch(pid, epoch, [b"a"])) == 48
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    res = ConfigResource(ConfigResource.Type.BROKER, "1",
                         set_config={"transaction.partition.verification.enable": "false"})
    admin.alter_configs([res])[res].result(30)
    wait_for(lambda: produce_txn(b, "kip890-dyn-raw", "kip890-dyn",
                                 txn_batch(pid, epoch, [b"b"])) == 0,
             "the dynamic key to take effect")
