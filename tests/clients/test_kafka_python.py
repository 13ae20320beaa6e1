"""kafka-python (Debian's python3-kafka 2.0.2, pure Python, not librdkafka)
against real `samsa server` processes: produce with each available codec and
acks, the admin client, consumer groups with committed offsets, the default
partitioner, offset look-ups and seeks, the older protocol versions (and
message formats) kafka-python speaks when told an older broker version. The
SSL listener and client quotas are in test_kafka_python_security.py.

Every test that takes the `clients` fixture runs under a deadline (SIGALRM,
kafka_python_support.deadline) because kafka-python 2.0.2 has retry loops
without one; see that module. Tests using consumer groups run on a broker with
offsets.topic.replication.factor=1: with Kafka's default of 3 a one-node broker
cannot create __consumer_offsets, answers FindCoordinator with
COORDINATOR_NOT_AVAILABLE (as Apache Kafka does), and kafka-python retries that
forever inside poll(timeout_ms=...) -- the last test pins this down.
"""
import threading
import time

import kafka
import kafka.codec
import kafka.errors as Errors
import pytest
from kafka import TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic
from kafka.partitioner.default import murmur2

from kafka_python_support import (Hang, batch_attributes, by_partition, create_topic, deadline,
                                  no_more_records, poll_records, wait_topic_ready)
from samsa_harness import wait_until

# Codecs this kafka-python can produce with: gzip (zlib) always; the others
# only when their Python modules are installed.
CODEC_IDS = {None: 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
AVAILABLE_CODECS = [None, "gzip"] + [
    name for name, has in (("snappy", kafka.codec.has_snappy), ("lz4", kafka.codec.has_lz4),
                           ("zstd", getattr(kafka.codec, "has_zstd", lambda: False)))
    if has()]


def test_kafka_python_is_the_debian_one_with_gzip():
    assert kafka.__version__ == "2.0.2"
    assert kafka.codec.has_gzip()


def record_tuple(r):
    return (r.offset, r.key, r.value, list(r.headers), r.timestamp)


# --- 1. produce with each codec and acks, read back ------------------------------

@pytest.mark.parametrize("acks", ["all", 1], ids=["acks_all", "acks_1"])
@pytest.mark.parametrize("codec", AVAILABLE_CODECS, ids=lambda c: c or "none")
def test_produce_compressed_and_consume_back(broker, clients, codec, acks):
    topic = f"codec-{codec or 'none'}-acks-{acks}"
    admin = clients.admin(broker.bootstrap)
    create_topic(admin, topic, partitions=2)
    producer = clients.producer(broker.bootstrap, acks=acks, compression_type=codec,
                                linger_ms=20)
    base_ts = int(time.time() * 1000) - 60_000
    sent = []
    futures = []
    for i in range(40):
        key = f"key-{i:02d}".encode()
        value = (f"value {i} of {codec} " * (5 + i % 7)).encode()
        headers = [("seq", str(i).encode()), ("codec", (codec or "none").encode())]
        sent.append((i, key, value, headers, base_ts + i))
        futures.append(producer.send(topic, key=key, value=value, headers=headers,
                                     partition=1, timestamp_ms=base_ts + i))
        if i == 19:
            producer.flush(timeout=15)  # two rounds of batches at least
    producer.flush(timeout=15)
    metas = [f.get(timeout=15) for f in futures]
    assert [(m.topic, m.partition) for m in metas] == [(topic, 1)] * 40
    assert [m.offset for m in metas] == list(range(40))
    assert [m.timestamp for m in metas] == [base_ts + i for i in range(40)]  # CreateTime

    tp = TopicPartition(topic, 1)
    consumer = clients.consumer(broker.bootstrap, group_id=None)
    consumer.assign([tp])
    records = poll_records(consumer, 40)
    assert [record_tuple(r) for r in records] == sent
    assert {(r.topic, r.partition, r.timestamp_type) for r in records} == {(topic, 1, 0)}
    assert no_more_records(consumer) == []
    assert consumer.end_offsets([tp, TopicPartition(topic, 0)]) == {
        tp: 40, TopicPartition(topic, 0): 0}

    # The broker keeps the producer's batches as they came (compression.type
    # defaults to "producer"): every batch on disk carries the codec.
    segment = broker.data_dir / f"{topic}-1" / "00000000000000000000.log"
    attrs = wait_until(lambda: segment.exists() and batch_attributes(segment), 10,
                       f"record batches in {segment}")
    assert {a & 0x7 for a in attrs} == {CODEC_IDS[codec]}, attrs
    assert len(attrs) >= 2


# --- 2. admin client -------------------------------------------------------------

def topic_config(admin, topic, names=None):
    [response] = admin.describe_configs(
        [ConfigResource(ConfigResourceType.TOPIC, topic, configs=names)])
    [(error_code, error_message, resource_type, resource_name, entries)] = response.resources
    assert (error_code, resource_type, resource_name) == (0, ConfigResourceType.TOPIC.value,
                                                          topic), response
    return {e[0]: e for e in entries}


def test_admin_topic_lifecycle(broker, clients):
    admin = clients.admin(broker.bootstrap)
    topic = "admin-topic"
    create_topic(admin, topic, partitions=3, configs={"retention.ms": "3600000"})

    assert topic in admin.list_topics()
    [described] = admin.describe_topics([topic])
    assert (described["topic"], described["error_code"], described["is_internal"]) == (
        topic, 0, False)
    assert sorted((p["partition"], p["leader"], p["replicas"], p["isr"])
                  for p in described["partitions"]) == [(i, 1, [1], [1]) for i in range(3)]

    cluster = admin.describe_cluster()
    assert cluster["controller_id"] == 1
    assert [(b["node_id"], b["host"], b["port"]) for b in cluster["brokers"]] == [
        (1, "127.0.0.1", broker.port)]
    assert cluster["cluster_id"] == broker.meta_properties()["cluster.id"]

    # DescribeConfigs (v1+: config_source): the override is a dynamic topic
    # config (1), an untouched key is the default (5).
    configs = topic_config(admin, topic)  # v1+: (name, value, read_only, source, ...)
    assert configs["retention.ms"][1:4] == ("3600000", False, 1), configs["retention.ms"]
    assert configs["cleanup.policy"][1:4] == ("delete", False, 5), configs["cleanup.policy"]
    only = topic_config(admin, topic, {"retention.ms": None})
    assert list(only) == ["retention.ms"]

    # AlterConfigs replaces the topic's overrides.
    response = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic,
                                                   configs={"retention.ms": "7200000"})])
    assert [(r[0], r[3]) for r in response.resources] == [(0, topic)], response
    wait_until(lambda: topic_config(admin, topic, {"retention.ms": None})["retention.ms"][1]
               == "7200000", 10, "retention.ms altered to 7200000")

    # CreatePartitions 3 -> 5.
    response = admin.create_partitions({topic: NewPartitions(total_count=5)})
    assert [tuple(e[:2]) for e in response.topic_errors] == [(topic, 0)], response
    parts = wait_topic_ready(admin, topic, 5)
    assert sorted(p["partition"] for p in parts) == [0, 1, 2, 3, 4]

    # Errors kafka-python raises from the broker's error codes.
    with pytest.raises(Errors.TopicAlreadyExistsError):
        admin.create_topics([NewTopic(topic, 1, 1)])
    for bad in ("bad name!", "a/b", "..", "x" * 250):
        with pytest.raises(Errors.InvalidTopicError):
            admin.create_topics([NewTopic(bad, 1, 1)])
    with pytest.raises(Errors.InvalidPartitionsError):
        admin.create_partitions({topic: NewPartitions(total_count=2)})
    assert [t for t in admin.list_topics() if t != topic and not t.startswith("__")] == []

    # DeleteTopics; then it is gone from Metadata and deleting again fails.
    response = admin.delete_topics([topic])
    assert [tuple(e[:2]) for e in response.topic_error_codes] == [(topic, 0)], response
    wait_until(lambda: topic not in admin.list_topics(), 15, f"{topic} gone from Metadata")
    with pytest.raises(Errors.UnknownTopicOrPartitionError):
        admin.delete_topics([topic])


# --- 3. consumer groups ------------------------------------------------------------

class GroupMember(threading.Thread):
    """One KafkaConsumer in a group, polled in its own thread (a joining member
    blocks in JoinGroup until the others rejoin, so members cannot share one)."""

    def __init__(self, consumer):
        super().__init__(daemon=True)
        self.consumer = consumer
        self.records = []
        self.assignment = set()
        self.error = None
        self._lock = threading.Lock()
        self._stop_flag = threading.Event()
        self._commit_request = threading.Event()
        self.committed = threading.Event()

    def run(self):
        try:
            while not self._stop_flag.is_set():
                batch = self.consumer.poll(timeout_ms=100)
                with self._lock:
                    for tp in sorted(batch):
                        self.records.extend(batch[tp])
                    self.assignment = set(self.consumer.assignment())
                if self._commit_request.is_set() and not self.committed.is_set():
                    self.consumer.commit()
                    self.committed.set()
        except Exception as e:  # reported by the test
            self.error = e

    def snapshot(self):
        with self._lock:
            return set(self.assignment), list(self.records)

    def request_commit(self):
        self._commit_request.set()

    def stop(self, timeout=20.0):
        self._stop_flag.set()
        self.join(timeout)
        assert not self.is_alive(), "group member thread did not stop"
        assert self.error is None, repr(self.error)


def test_consumer_group_split_commit_and_resume(group_broker, clients):
    b = group_broker
    topic, group = "group-topic", "kp-group"
    admin = clients.admin(b.bootstrap)
    create_topic(admin, topic, partitions=4)
    all_tps = {TopicPartition(topic, p) for p in range(4)}
    producer = clients.producer(b.bootstrap, acks="all")

    members = [GroupMember(clients.consumer(b.bootstrap, topic, group_id=group))
               for _ in range(2)]
    for m in members:
        m.start()
    try:
        def split():
            (a1, _), (a2, _) = (m.snapshot() for m in members)
            for m in members:
                assert m.error is None, repr(m.error)
            return a1 and a2 and not (a1 & a2) and (a1 | a2) == all_tps and (a1, a2)
        a1, a2 = wait_until(split, 30, "two members splitting 4 partitions", interval=0.05)
        assert {len(a1), len(a2)} == {2}  # range assignor: 2 + 2

        # The group as the admin client sees it while both members are in.
        def stable_description():
            [d] = admin.describe_consumer_groups([group])
            return d.state == "Stable" and len(d.members) == 2 and d
        d = wait_until(stable_description, 15, f"{group} Stable with 2 members")
        assert (d.group, d.error_code, d.protocol_type, d.protocol) == (
            group, 0, "consumer", "range")
        described = [{TopicPartition(t, p) for t, ps in m.member_assignment.assignment
                      for p in ps} for m in d.members]
        assert sorted(map(sorted, described)) == sorted(map(sorted, [a1, a2]))
        for m in d.members:
            assert m.member_metadata.subscription == [topic]
            assert m.client_id.startswith("kafka-python")
        assert (group, "consumer") in admin.list_consumer_groups()

        first = []
        for i in range(40):
            k, v = f"k{i % 8}".encode(), f"first-{i}".encode()
            first.append((k, v))
            producer.send(topic, key=k, value=v)
        producer.flush(timeout=15)

        def consumed_first():
            got = [r for m in members for r in m.snapshot()[1]]
            return len(got) >= 40 and got
        got = wait_until(consumed_first, 30, "the two members consuming 40 records")
        assert sorted((r.key, r.value) for r in got) == sorted(first)
        for m in members:  # each member read only its own partitions
            assignment, records = m.snapshot()
            assert {TopicPartition(r.topic, r.partition) for r in records} <= assignment
        for m in members:
            m.request_commit()
        for m in members:
            assert m.committed.wait(20), "commit did not complete"
    finally:
        for m in members:
            m.stop()
    for m in members:
        clients.close(m.consumer)

    ends = {tp: o for tp, o in
            clients.consumer(b.bootstrap, group_id=None).end_offsets(list(all_tps)).items()}
    assert sum(ends.values()) == 40
    committed = admin.list_consumer_group_offsets(group)
    assert {tp: om.offset for tp, om in committed.items()} == ends

    # Both gone: the group is Empty, its offsets stay.
    def empty():
        [d] = admin.describe_consumer_groups([group])
        return d.state == "Empty" and d
    d = wait_until(empty, 15, f"{group} Empty after both members left")
    assert d.members == []

    second = [(f"k{i % 8}".encode(), f"second-{i}".encode()) for i in range(12)]
    for k, v in second:
        producer.send(topic, key=k, value=v)
    producer.flush(timeout=15)

    resumed = clients.consumer(b.bootstrap, topic, group_id=group)
    records = poll_records(resumed, 12, timeout=30)
    assert sorted((r.key, r.value) for r in records) == sorted(second)
    for r in records:  # resumed from the committed offsets, not from earliest
        assert r.offset >= ends[TopicPartition(r.topic, r.partition)]
    assert no_more_records(resumed) == []
    resumed.commit()
    committed = admin.list_consumer_group_offsets(group)
    assert sum(om.offset for om in committed.values()) == 52
    assert resumed.committed(TopicPartition(topic, 0)) == committed[TopicPartition(topic, 0)].offset


# --- 4. the default partitioner and per-partition order -------------------------------

def test_keys_stick_to_partitions_in_order(broker, clients):
    topic, partitions = "keyed", 4
    admin = clients.admin(broker.bootstrap)
    create_topic(admin, topic, partitions=partitions)
    producer = clients.producer(broker.bootstrap, acks="all", linger_ms=5,
                                max_in_flight_requests_per_connection=1)
    keys = [f"user-{n}".encode() for n in range(10)]
    sends = []
    for i in range(100):
        key = keys[(i * 7) % len(keys)]
        sends.append((key, f"{key.decode()}#{i}".encode(),
                      producer.send(topic, key=key, value=f"{key.decode()}#{i}".encode())))
    producer.flush(timeout=15)
    metas = [(k, v, f.get(timeout=15)) for k, v, f in sends]

    # Java's default partitioner: murmur2(key) & 0x7fffffff % partitions.
    for key, _, m in metas:
        assert m.partition == (murmur2(key) & 0x7FFFFFFF) % partitions, key
    assert len({m.partition for _, _, m in metas}) > 1
    for p in range(partitions):
        offsets = [m.offset for _, _, m in metas if m.partition == p]
        assert offsets == list(range(len(offsets)))  # in send order, no gaps

    consumer = clients.consumer(broker.bootstrap, group_id=None)
    consumer.assign([TopicPartition(topic, p) for p in range(partitions)])
    records = poll_records(consumer, 100)
    seen = by_partition(records)
    for p, recs in seen.items():
        expected = [(k, v) for k, v, m in metas if m.partition == p]
        assert [(r.key, r.value) for r in recs] == expected
        assert [r.offset for r in recs] == list(range(len(expected)))
    partition_of = {}
    for r in records:
        assert partition_of.setdefault(r.key, r.partition) == r.partition


# --- 5. offsets: beginning/end, offsets_for_times, seek, max_poll_records ----------------

def test_offset_lookups_seek_and_max_poll_records(broker, clients):
    topic = "offsets"
    admin = clients.admin(broker.bootstrap)
    create_topic(admin, topic, partitions=1)
    tp = TopicPartition(topic, 0)
    consumer = clients.consumer(broker.bootstrap, group_id=None, max_poll_records=3)
    consumer.assign([tp])
    assert consumer.beginning_offsets([tp]) == {tp: 0}
    assert consumer.end_offsets([tp]) == {tp: 0}
    assert consumer.offsets_for_times({tp: 0}) == {tp: None}

    producer = clients.producer(broker.bootstrap, acks="all")
    base = int(time.time() * 1000) - 3_600_000
    for i in range(10):
        producer.send(topic, value=f"v{i}".encode(), partition=0, timestamp_ms=base + 1000 * i)
    producer.flush(timeout=15)

    assert consumer.beginning_offsets([tp]) == {tp: 0}
    assert consumer.end_offsets([tp]) == {tp: 10}
    found = consumer.offsets_for_times({tp: base + 3500})
    assert (found[tp].offset, found[tp].timestamp) == (4, base + 4000)
    found = consumer.offsets_for_times({tp: base})
    assert (found[tp].offset, found[tp].timestamp) == (0, base)
    assert consumer.offsets_for_times({tp: base + 9001}) == {tp: None}

    # max_poll_records=3: the 10 records come in polls of at most 3.
    sizes, got = [], []
    deadline_at = time.monotonic() + 20
    while len(got) < 10 and time.monotonic() < deadline_at:
        batch = consumer.poll(timeout_ms=200).get(tp, [])
        if batch:
            sizes.append(len(batch))
            got.extend(batch)
    assert [r.value for r in got] == [f"v{i}".encode() for i in range(10)]
    assert max(sizes) <= 3 and len(sizes) >= 4, sizes
    assert consumer.position(tp) == 10

    consumer.seek(tp, 7)
    assert consumer.position(tp) == 7
    assert [(r.offset, r.value) for r in poll_records(consumer, 3)] == [
        (7, b"v7"), (8, b"v8"), (9, b"v9")]
    consumer.seek_to_beginning(tp)
    assert [r.offset for r in poll_records(consumer, 3)] == [0, 1, 2]
    consumer.seek_to_end(tp)
    assert consumer.position(tp) == 10
    assert no_more_records(consumer) == []


def test_producer_auto_creates_topic(broker, clients):
    """A producer's Metadata request for an unknown topic creates it
    (auto.create.topics.enable defaults to true) with num.partitions (1)."""
    producer = clients.producer(broker.bootstrap, acks="all")
    meta = producer.send("auto-created", key=b"k", value=b"v").get(timeout=20)
    assert (meta.topic, meta.partition, meta.offset) == ("auto-created", 0, 0)
    assert producer.partitions_for("auto-created") == {0}
    consumer = clients.consumer(broker.bootstrap, group_id=None)
    consumer.assign([TopicPartition("auto-created", 0)])
    assert [(r.key, r.value) for r in poll_records(consumer, 1)] == [(b"k", b"v")]


# --- 6. older protocol versions and message formats --------------------------------------

# api_version=(0, 9): Metadata v0, Produce v1 / Fetch v1 / ListOffsets v0,
# message format v0 (no timestamps). (0, 10, 2): Produce v2 / Fetch v3 /
# ListOffsets v1, message format v1 (timestamps). (1, 0, 0): Produce v4 /
# Fetch v4, record batches v2 (headers). No ApiVersions request is sent.
OLD_VERSIONS = [(0, 9), (0, 10, 2), (1, 0, 0)]


@pytest.mark.parametrize("codec", [None, "gzip"], ids=["none", "gzip"])
@pytest.mark.parametrize("api_version", OLD_VERSIONS, ids=lambda v: ".".join(map(str, v)))
def test_old_api_versions_produce_and_consume(broker, clients, api_version, codec):
    topic = f"old-{'-'.join(map(str, api_version))}-{codec or 'none'}"
    admin = clients.admin(broker.bootstrap)
    create_topic(admin, topic, partitions=1)
    tp = TopicPartition(topic, 0)
    magic = 0 if api_version < (0, 10) else 1 if api_version < (0, 11) else 2
    producer = clients.producer(broker.bootstrap, api_version=api_version, acks=1,
                                compression_type=codec, linger_ms=10)
    base = int(time.time() * 1000) - 10_000
    futures = []
    for i in range(20):
        kwargs = {"timestamp_ms": base + i} if magic >= 1 else {}
        if magic >= 2:
            kwargs["headers"] = [("i", str(i).encode())]
        futures.append(producer.send(topic, key=f"k{i}".encode(), value=f"v{i}".encode(),
                                     **kwargs))
    producer.flush(timeout=15)
    metas = [f.get(timeout=15) for f in futures]
    assert [m.offset for m in metas] == list(range(20))
    assert {m.partition for m in metas} == {0}

    def check(records):
        assert [(r.offset, r.key, r.value) for r in records] == [
            (i, f"k{i}".encode(), f"v{i}".encode()) for i in range(20)]
        # Magic 0 messages have no timestamp (-1 once up-converted, as in Kafka).
        assert [r.timestamp for r in records] == [base + i if magic >= 1 else -1
                                                  for i in range(20)]
        assert [list(r.headers) for r in records] == [
            [("i", str(i).encode())] if magic >= 2 else [] for i in range(20)]

    # Read back with the same old protocol, then with the current one.
    old = clients.consumer(broker.bootstrap, group_id=None, api_version=api_version)
    old.assign([tp])
    check(poll_records(old, 20))
    if api_version >= (0, 10, 1):  # kafka-python needs ListOffsets v1 for end_offsets
        assert old.end_offsets([tp]) == {tp: 20}
    new = clients.consumer(broker.bootstrap, group_id=None)
    new.assign([tp])
    check(poll_records(new, 20))
    assert new.end_offsets([tp]) == {tp: 20}


def test_current_records_read_with_old_fetch_versions(broker, clients):
    """Record batches v2 with headers, compressed, fetched by clients that ask
    with Fetch v1 / v3 (kafka-python parses whatever magic comes back)."""
    topic = "new-to-old"
    admin = clients.admin(broker.bootstrap)
    create_topic(admin, topic, partitions=1)
    tp = TopicPartition(topic, 0)
    producer = clients.producer(broker.bootstrap, acks="all", compression_type="gzip")
    for i in range(15):
        producer.send(topic, key=f"k{i}".encode(), value=f"v{i}".encode(),
                      headers=[("h", b"x")])
    producer.flush(timeout=15)
    for api_version in OLD_VERSIONS:
        c = clients.consumer(broker.bootstrap, group_id=None, api_version=api_version)
        c.assign([tp])
        records = poll_records(c, 15)
        assert [(r.offset, r.key, r.value) for r in records] == [
            (i, f"k{i}".encode(), f"v{i}".encode()) for i in range(15)], api_version
        clients.close(c)


# --- the hang guard itself -----------------------------------------------------------------

def test_group_consumer_without_offsets_topic_fails_instead_of_hanging(broker, clients):
    """With Kafka's default offsets.topic.replication.factor (3) a one-node
    broker cannot create __consumer_offsets and answers FindCoordinator with
    COORDINATOR_NOT_AVAILABLE, as Apache Kafka does; kafka-python 2.0.2 then
    retries forever inside poll(timeout_ms=...). The deadline turns that into a
    failure that names the loop."""
    admin = clients.admin(broker.bootstrap)
    create_topic(admin, "no-coordinator", partitions=1)
    consumer = clients.consumer(broker.bootstrap, group_id="stuck")
    consumer.assign([TopicPartition("no-coordinator", 0)])
    with pytest.raises(Hang) as hung:
        with deadline(2, "poll with a group and no coordinator"):
            consumer.poll(timeout_ms=500)
    assert "ensure_coordinator_ready" in str(hung.value)
    with pytest.raises(Errors.GroupCoordinatorNotAvailableError):
        admin.describe_consumer_groups(["stuck"])
    assert "internal_topic_create_failed topic=__consumer_offsets error=INVALID_REPLICATION_FACTOR" in broker.log_text()
