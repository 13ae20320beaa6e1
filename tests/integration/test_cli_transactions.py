"""`samsa transactions describe-producers / find-hanging / abort` as
kafka-transactions.sh runs them (Kafka's TransactionsCommand): a partition's
producer states, hanging transactions (open on a partition whose coordinator
does not have that partition in the transaction, so no marker will ever come),
and aborting one with a marker written straight to the partition leader.

A hanging transaction is made the way one arises in Kafka: with partition
verification (KIP-890) off, a transactional batch is written to a partition the
producer never added to its transaction. helpers: txn_support.py, samsa_cli.py.
"""
import struct
import time

import kafka_wire as kw
from samsa_cli import on
from test_idempotence import crc32c, init_producer_id, varint
from txn_support import (INIT_TIMEOUT_S, READ_COMMITTED, READ_UNCOMMITTED, TXN_BROKER_SMALL,
                         create_topic, flush_ok, list_offsets, plain_producer, produce_values,
                         read_partitions, txn_producer, wait_for)

NO_VERIFY = {**TXN_BROKER_SMALL, "transaction.partition.verification.enable": False}
PRODUCERS_HEADER = ["ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence",
                    "LastTimestamp", "CurrentTransactionStartOffset"]
HANGING_HEADER = ["Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch",
                  "StartOffset", "LastTimestamp", "Duration(min)"]


def table(res, header):
    """The rows of a table the CLI printed, each a dict by column."""
    res.ok()
    lines = res.stdout.splitlines()
    assert lines and lines[0].split() == header, res.stdout
    return [dict(zip(header, l.split())) for l in lines[1:]]


def producers(b, topic, partition, *extra):
    return table(on(b, "transactions", "describe-producers", "--topic", topic,
                    "--partition", str(partition), *extra), PRODUCERS_HEADER)


def hanging(b, *extra):
    return table(on(b, "transactions", "find-hanging", *extra), HANGING_HEADER)


def producer_id_of(b, transactional_id):
    res = on(b, "transactions", "describe", "--transactional-id", transactional_id).ok()
    header, values = [l.split() for l in res.stdout.splitlines()[:2]]
    return int(dict(zip(header, values))["ProducerId"])


def raw_init(b, transactional_id):
    """InitProducerId v3 for `transactional_id`, retried until the coordinator
    answers; (producer_id, epoch). A real producer must have made
    __transaction_state first (FindCoordinator creates it)."""
    def ready():
        with kw.KafkaConnection.to(b) as conn:
            out = init_producer_id(conn, 3, transactional_id=transactional_id)
        return out if out[0] == 0 else None
    _, pid, epoch = wait_for(ready, f"InitProducerId for {transactional_id}", timeout=INIT_TIMEOUT_S)
    return pid, epoch


def raw_txn_write(b, transactional_id, topic, partition, pid, epoch, values):
    """A transactional batch (Produce v8) without AddPartitionsToTxn; the error code."""
    ts = int(time.time() * 1000) - 1000
    records = b""
    for i, v in enumerate(values):
        body = b"\x00" + varint(0) + varint(i) + varint(-1) + varint(len(v)) + v + varint(0)
        records += varint(len(body)) + body
    after_crc = (struct.pack(">hiqqqhii", 0x10, len(values) - 1, ts, ts, pid, epoch, 0,
                             len(values)) + records)
    batch = struct.pack(">qiibI", 0, 4 + 1 + 4 + len(after_crc), -1, 2,
                        crc32c(after_crc)) + after_crc
    body = (kw.string(transactional_id) + kw.int16(-1) + kw.int32(10_000) +
            kw.array([kw.string(topic) +
                      kw.array([kw.int32(partition) + kw.int32(len(batch)) + batch])]))
    with kw.KafkaConnection.to(b) as conn:
        cid = conn.send_request(0, 8, body)
        r = kw.Reader(conn.read_frame())
    assert r.int32() == cid
    assert r.int32() == 1 and r.string() == topic and r.int32() == 1
    assert r.int32() == partition
    return r.int16()


def end_offsets(b, topic, partition):
    """(high watermark, last stable offset) from ListOffsets."""
    hw = list_offsets(b, topic, partition, READ_UNCOMMITTED)
    lso = list_offsets(b, topic, partition, READ_COMMITTED)
    assert hw[0] == 0 and lso[0] == 0, (hw, lso)
    return hw[1], lso[1]


def test_describe_producers_shows_the_open_transaction(start_broker):
    """Each producer of the partition with its epoch, sequence and open
    transaction's first offset; None once it is committed, with the
    coordinator's epoch from the marker. Unknown partitions fail by name."""
    b = start_broker(overrides=TXN_BROKER_SMALL)
    create_topic(b.bootstrap, "dp", partitions=2)
    plain = plain_producer(b.bootstrap)
    produce_values(plain, "dp", 1, [b"a", b"b"])  # not idempotent: no producer state
    flush_ok(plain)
    p = txn_producer(b.bootstrap, "dp-txn", **{"transaction.timeout.ms": 600_000})
    p.init_transactions(INIT_TIMEOUT_S)
    p.begin_transaction()
    produce_values(p, "dp", 1, [b"t1", b"t2", b"t3"])
    flush_ok(p)
    pid = producer_id_of(b, "dp-txn")

    for extra in ((), ("--broker-id", "1")):
        rows = producers(b, "dp", 1, *extra)
        assert len(rows) == 1, rows
        row = rows[0]
        assert int(row["ProducerId"]) == pid
        assert row["ProducerEpoch"] == "0"
        assert row["LastSequence"] == "2"
        assert row["CurrentTransactionStartOffset"] == "2"
        assert row["LatestCoordinatorEpoch"] == "-1"  # no marker yet
        assert abs(int(row["LastTimestamp"]) - time.time() * 1000) < 300_000
    assert producers(b, "dp", 0) == []

    p.commit_transaction(INIT_TIMEOUT_S)
    row = producers(b, "dp", 1)[0]
    assert row["CurrentTransactionStartOffset"] == "None"
    assert int(row["LatestCoordinatorEpoch"]) >= 0

    missing = on(b, "transactions", "describe-producers", "--topic", "dp", "--partition", "7")
    assert "UNKNOWN_TOPIC_OR_PARTITION" in missing.failed().error
    assert missing.returncode == 1
    nobody = on(b, "transactions", "describe-producers", "--topic", "dp", "--partition", "0",
                "--broker-id", "9").failed()
    assert "broker 9" in nobody.error


def test_find_hanging_lists_only_transactions_nobody_will_end_and_abort_ends_one(start_broker):
    """find-hanging: the unverified write is hanging (its coordinator's
    transaction is Empty); the ongoing transaction its coordinator holds the
    partition for is not, and neither is listed under the default 15-minute
    timeout. abort --start-offset writes the ABORT marker: the LSO reaches the
    high watermark and read_committed readers get past it."""
    b = start_broker(overrides=NO_VERIFY)
    create_topic(b.bootstrap, "hang", partitions=2)
    ongoing = txn_producer(b.bootstrap, "hang-ongoing", **{"transaction.timeout.ms": 600_000})
    ongoing.init_transactions(INIT_TIMEOUT_S)
    ongoing.begin_transaction()
    produce_values(ongoing, "hang", 0, [b"pending"])
    flush_ok(ongoing)

    pid, epoch = raw_init(b, "hang-raw")
    assert raw_txn_write(b, "hang-raw", "hang", 1, pid, epoch, [b"x", b"y"]) == 0
    assert end_offsets(b, "hang", 1) == (2, 0), "the write left a transaction open"

    assert hanging(b, "--broker-id", "1") == [], "nothing is older than 15 minutes"
    rows = hanging(b, "--broker-id", "1", "--max-transaction-timeout", "0")
    assert len(rows) == 1, rows
    row = rows[0]
    assert (row["Topic"], row["Partition"]) == ("hang", "1")
    assert int(row["ProducerId"]) == pid and int(row["ProducerEpoch"]) == epoch
    assert row["CoordinatorEpoch"] == "-1" and row["StartOffset"] == "0"
    assert row["Duration(min)"] == "0"
    # Narrowed to a topic, or to the one partition, the same; the other partition: none.
    assert hanging(b, "--topic", "hang", "--max-transaction-timeout", "0") == rows
    assert hanging(b, "--topic", "hang", "--partition", "1",
                   "--max-transaction-timeout", "0") == rows
    assert hanging(b, "--topic", "hang", "--partition", "0",
                   "--max-transaction-timeout", "0") == []

    aborted = on(b, "transactions", "abort", "--topic", "hang", "--partition", "1",
                 "--start-offset", "0").ok()
    assert f"producerId={pid}" in aborted.stdout and "hang-1" in aborted.stdout, aborted.stdout
    assert end_offsets(b, "hang", 1) == (3, 3), "marker written, nothing left open"
    got = read_partitions(b.bootstrap, [("hang", 1)], "read_committed", {("hang", 1): 3})
    assert got.values("hang", 1) == [], "the aborted records stay hidden"
    assert producers(b, "hang", 1)[0]["CurrentTransactionStartOffset"] == "None"
    assert hanging(b, "--broker-id", "1", "--max-transaction-timeout", "0") == []

    # The producer the coordinator knows is untouched and still commits.
    ongoing.commit_transaction(INIT_TIMEOUT_S)
    got = read_partitions(b.bootstrap, [("hang", 0)], "read_committed", {("hang", 0): 2})
    assert got.values("hang", 0) == ["pending"]


def test_abort_by_producer_id_and_its_errors(start_broker):
    """abort --producer-id/--producer-epoch/--coordinator-epoch (a coordinator
    epoch of -1 becomes 0); an older producer epoch is INVALID_PRODUCER_EPOCH,
    an offset no transaction starts at and missing arguments fail with exit 1."""
    b = start_broker(overrides=NO_VERIFY)
    create_topic(b.bootstrap, "abrt", partitions=1)
    txn_producer(b.bootstrap, "abrt-warm").init_transactions(INIT_TIMEOUT_S)
    raw_init(b, "abrt-raw")
    pid, epoch = raw_init(b, "abrt-raw")  # a second InitProducerId: epoch 1
    assert epoch >= 1
    assert raw_txn_write(b, "abrt-raw", "abrt", 0, pid, epoch, [b"z"]) == 0
    assert end_offsets(b, "abrt", 0) == (1, 0)

    def abort(*extra):
        return on(b, "transactions", "abort", "--topic", "abrt", "--partition", "0", *extra)

    none = abort("--start-offset", "5").failed()
    assert none.returncode == 1
    assert "Could not find any open transactions starting at offset 5 on partition abrt-0" \
        in none.error
    assert "--start-offset" in abort().failed().error
    assert "--producer-epoch" in abort("--producer-id", str(pid)).failed().error
    assert "--coordinator-epoch" in abort("--producer-id", str(pid), "--producer-epoch",
                                          str(epoch)).failed().error
    old = abort("--producer-id", str(pid), "--producer-epoch", str(epoch - 1),
                "--coordinator-epoch", "0").failed()
    assert old.returncode == 1 and "INVALID_PRODUCER_EPOCH" in old.error, old.stderr
    assert end_offsets(b, "abrt", 0) == (1, 0), "a refused marker changes nothing"

    abort("--producer-id", str(pid), "--producer-epoch", str(epoch),
          "--coordinator-epoch", "-1").ok()
    assert end_offsets(b, "abrt", 0) == (2, 2)
    row = producers(b, "abrt", 0)[0]
    assert row["CurrentTransactionStartOffset"] == "None" and row["LatestCoordinatorEpoch"] == "0"

    unknown = on(b, "transactions", "abort", "--topic", "nope", "--partition", "0",
                 "--start-offset", "0").failed()
    assert "UNKNOWN_TOPIC_OR_PARTITION" in unknown.error
    scope = on(b, "transactions", "find-hanging").failed()
    assert "--topic or --broker-id" in scope.error
    assert "--partition argument requires --topic" in \
        on(b, "transactions", "find-hanging", "--broker-id", "1", "--partition", "0").failed().error
