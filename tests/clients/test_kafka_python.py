"""kafka-python (Debian's python3-kafka 2.0.2, pure Python, not librdkafka)
against real `samsa server` processes: produce with each available codec and
acks, the admin client, consumer groups with committed offsets, the default
partitioner, offset look-ups and seeks, the older protocol versions (and
message formats) kafka-python speaks when told an older broker version, and the
SSL listener (security_protocol="SSL": produce, consume and commit with and
without a client certificate, refusals, ssl_check_hostname against the SAN),
and client quotas (a throttled producer and consumer held to their byte rate,
with the throttle time in their metrics, beside unthrottled ones).

Every test that takes the `clients` fixture runs under a deadline (SIGALRM,
kafka_python_support.deadline) because kafka-python 2.0.2 has retry loops
without one; see that module. Tests using consumer groups run on a broker with
offsets.topic.replication.factor=1: with Kafka's default of 3 a one-node broker
cannot create __consumer_offsets, answers FindCoordinator with
COORDINATOR_NOT_AVAILABLE (as Apache Kafka does), and kafka-python retries that
forever inside poll(timeout_ms=...) -- the last test pins this down.
"""
import logging
import os
import ssl
import subprocess
import threading
import time

import kafka
import kafka.codec
import kafka.errors as Errors
import pytest
from kafka import TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic
from kafka.partitioner.default import murmur2

from kafka_python_support import (GROUP_BROKER_OVERRIDES, Clients, Hang, KafkaDebugLog,
                                  last_lines, batch_attributes, by_partition, create_topic,
                                  deadline, no_more_records, poll_records, wait_topic_ready)
from quota_support import FETCH_SHARE, PRODUCE_SHARE, assert_share, steady_rate
from samsa_cli import on
from samsa_harness import Broker, wait_until

TEST_DEADLINE_S = 60.0
TEARDOWN_DEADLINE_S = 30.0

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


# --- fixtures ----------------------------------------------------------------

@pytest.fixture
def clients(request, tmp_path):
    """kafka-python clients for one test, all closed at teardown; the whole test
    runs under TEST_DEADLINE_S (Hang names where it was blocked)."""
    with KafkaDebugLog(tmp_path / "kafka-python.log") as debug_log:
        print(f"kafka-python DEBUG log: {debug_log.path}")

        def diagnostics():
            brokers = [v for v in request.node.funcargs.values() if isinstance(v, Broker)]
            text = f"--- kafka-python log tail ({debug_log.path}) ---\n{debug_log.tail()}\n"
            for b in brokers:
                text += f"--- broker log tail ({b.log_path}) ---\n{last_lines(b.log_text(), 30)}\n"
            return text

        made = Clients()
        try:
            with deadline(TEST_DEADLINE_S, request.node.name, diagnostics):
                yield made
        finally:
            with deadline(TEARDOWN_DEADLINE_S, f"closing clients of {request.node.name}",
                          diagnostics):
                problems = made.close_all()
            assert not problems, problems


@pytest.fixture
def group_broker(start_broker):
    return start_broker(overrides=GROUP_BROKER_OVERRIDES)


@pytest.fixture
def quota_broker(start_broker):
    """A broker with two one-second quota samples (the client quota tests)."""
    return start_broker(overrides=QUOTA_BROKER)


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


# --- 7. TLS ------------------------------------------------------------------------------

# Over TLS the version probe (ApiVersions at construction) is a handshake more:
# give it longer than kafka-python's 2 s on a loaded machine.
TLS_PROBE_MS = 10000


def ssl_config(certs, client_cert=None, probe_ms=TLS_PROBE_MS, **extra):
    """kafka-python's settings for the SSL listener: trust the test CA, check the
    host name (kafka-python's default, stated), present `client_cert` ("client":
    signed by the CA, "rogue": self-signed) if given."""
    conf = {"security_protocol": "SSL", "ssl_cafile": str(certs.ca),
            "ssl_check_hostname": True, "api_version_auto_timeout_ms": probe_ms}
    if client_cert == "client":
        conf.update(ssl_certfile=str(certs.client_cert), ssl_keyfile=str(certs.client_key))
    elif client_cert == "rogue":
        conf.update(ssl_certfile=str(certs.rogue_cert), ssl_keyfile=str(certs.rogue_key))
    conf.update(extra)
    return conf


def tls_round_trip(clients, broker, conf, topic):
    """Admin, producer (acks=all, gzip; 3 KB values and two 300 KiB random ones,
    each many TLS records long) and a group consumer, all over the SSL
    listener: every record back in order, the commit seen by the admin client."""
    bs = broker.ssl_bootstrap
    admin = clients.admin(bs, **conf)
    create_topic(admin, topic, partitions=2)
    cluster = admin.describe_cluster()
    # Metadata through the SSL listener names the SSL listener.
    assert [(b["node_id"], b["host"], b["port"]) for b in cluster["brokers"]] == [
        (1, "127.0.0.1", broker.ssl_port)]
    producer = clients.producer(bs, acks="all", compression_type="gzip", linger_ms=5, **conf)
    big = [os.urandom(300 * 1024) for _ in range(2)]
    sent, futures = [], []
    for i in range(120):
        key = f"k{i}".encode()
        value = big[i // 60] if i in (7, 67) else (f"tls record {i} " * 200).encode()
        sent.append((i % 2, key, value, [("i", str(i).encode())]))
        futures.append(producer.send(topic, key=key, value=value, partition=i % 2,
                                     headers=[("i", str(i).encode())]))
    producer.flush(timeout=20)
    metas = [f.get(timeout=20) for f in futures]
    for p in (0, 1):
        # One connection, retries=0: each partition's batches are appended in
        # the order their Produce requests were sent (Kafka handles a
        # connection's requests in order), so offsets follow the sends.
        offsets = [m.offset for m in metas if m.partition == p]
        assert offsets == list(range(60)), f"partition {p}: offsets in send order {offsets}"

    group = f"{topic}-readers"
    consumer = clients.consumer(bs, topic, group_id=group, **conf)
    records = poll_records(consumer, 120, timeout=30)
    got = by_partition(records)
    for p in (0, 1):
        assert [(r.offset, r.key, r.value, list(r.headers)) for r in got[p]] == [
            (n, k, v, h) for n, (_, k, v, h) in enumerate(x for x in sent if x[0] == p)]
    assert no_more_records(consumer) == []
    consumer.commit()
    committed = admin.list_consumer_group_offsets(group)
    assert {tp: om.offset for tp, om in committed.items()} == {
        TopicPartition(topic, 0): 60, TopicPartition(topic, 1): 60}


def refused(clients, bs, conf):
    """kafka-python cannot get going through `conf`: the admin client's version
    probe (it runs at construction) fails. Returns the error: kafka-python 2.0.2
    raises a failed certificate check (ssl.SSLCertVerificationError) and an EOF
    on a connection the broker closed after the handshake (ssl.SSLEOFError) to
    its caller as they are, other failures as NoBrokersAvailable."""
    with pytest.raises((Errors.NoBrokersAvailable, Errors.UnrecognizedBrokerVersion,
                        ssl.SSLError)) as e:
        clients.admin(bs, **conf)
    return e.value


def test_produce_and_consume_over_tls(start_tls_broker, tls_certs, clients):
    b = start_tls_broker(overrides=GROUP_BROKER_OVERRIDES)
    tls_round_trip(clients, b, ssl_config(tls_certs), "over-tls")
    # A CA that did not sign the broker's certificate: refused by the client.
    e = refused(clients, b.ssl_bootstrap,
                ssl_config(tls_certs, ssl_cafile=str(tls_certs.rogue_cert), probe_ms=3000))
    assert isinstance(e, ssl.SSLCertVerificationError), repr(e)
    assert "unable to get local issuer certificate" in str(e)


def test_required_client_certificates_over_tls(start_tls_broker, tls_certs, clients):
    """ssl.client.auth=required: with the CA-signed client certificate
    kafka-python produces, consumes and commits; without one, or with a
    self-signed one, the broker refuses the handshake."""
    b = start_tls_broker(overrides=GROUP_BROKER_OVERRIDES, settings={
        "ssl.client.auth": "required", "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(tls_certs.ca)})
    tls_round_trip(clients, b, ssl_config(tls_certs, "client"), "mtls")
    assert "TLS handshake failed" not in b.log_text()
    refused(clients, b.ssl_bootstrap, ssl_config(tls_certs, probe_ms=3000))
    b.wait_for_log("TLS handshake failed: peer did not return a certificate")
    refused(clients, b.ssl_bootstrap, ssl_config(tls_certs, "rogue", probe_ms=3000))
    b.wait_for_log("TLS handshake failed: certificate verify failed")


def test_ssl_check_hostname_checks_the_san(start_tls_broker, tls_certs, clients):
    """kafka-python 2.0.2 on Python 3.11 checks the host name (here an IP
    address, matched against the certificate's IP SANs): a broker certificate
    the CA signed for another name is refused with ssl_check_hostname=True and
    accepted with False; make_certs' certificate (SAN IP:127.0.0.1) passes."""
    d = tls_certs.dir
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    "other.key", "-out", "other.csr", "-subj", "/CN=elsewhere.example"],
                   cwd=d, check=True, capture_output=True)
    (d / "other.ext").write_text("subjectAltName=DNS:elsewhere.example\n")
    subprocess.run(["openssl", "x509", "-req", "-in", "other.csr", "-CA", "ca.pem", "-CAkey",
                    "ca.key", "-CAcreateserial", "-out", "other.pem", "-days", "30",
                    "-extfile", "other.ext"], cwd=d, check=True, capture_output=True)
    keystore = d / "other-keystore.pem"
    keystore.write_text((d / "other.key").read_text() + (d / "other.pem").read_text())
    b = start_tls_broker(keystore=False, settings={"ssl.keystore.type": "PEM",
                                                   "ssl.keystore.location": str(keystore)})
    e = refused(clients, b.ssl_bootstrap, ssl_config(tls_certs, probe_ms=3000))
    assert isinstance(e, ssl.SSLCertVerificationError), repr(e)
    assert "IP address mismatch" in str(e)
    admin = clients.admin(b.ssl_bootstrap, **ssl_config(tls_certs, ssl_check_hostname=False))
    create_topic(admin, "no-hostname-check", partitions=1)
    producer = clients.producer(b.ssl_bootstrap,
                                **ssl_config(tls_certs, ssl_check_hostname=False))
    assert producer.send("no-hostname-check", b"v").get(timeout=15).offset == 0


# --- 8. client quotas ---------------------------------------------------------------------
# As tests/integration/test_client_quotas.py does for librdkafka: a 1 MiB/s quota
# on one client id, and the rate acknowledged (or polled) from 3 s to 15 s into
# the run, measured over whole waves (quota_support.py: a greedy client moves in
# waves of a few seconds, which a fixed window cuts anywhere) and held to the
# shares quota_support.py gives. kafka-python is pure Python (its
# CRC32C too, without the crc32c module): the unthrottled client need only go
# at twice the quota. kafka-python reports the broker's throttle_time_ms only
# in its metrics (produce-throttle-time-avg/max, fetch-throttle-time-avg/max,
# over two 30 s samples); it never waits one out itself (Produce v7 is a
# KIP-219 version: the broker mutes the connection and kafka-python's next
# requests wait in the socket; its Fetch v4 is older, so the broker delays the
# response instead).
QUOTA = 1048576
QUOTA_RECORD = 10 * 1024
# Four one-second samples, and consumers fetching at most 256 KiB: a throttled
# fetch is answered empty and fetched again, as from Kafka, so a fetch that is
# a large part of what the bound allows goes through only when the windows
# are nearly empty (with two samples a consumer reads at 0.6 of its quota).
QUOTA_BROKER = {"quota.window.num": 4, "quota.window.size.seconds": 1}
MEASURED_FROM, MEASURED_TO = 3.0, 15.0


def set_client_quota(broker, client_id, key):
    on(broker, "configs", "--entity-type", "clients", "--entity-name", client_id, "--alter",
       "--add-config", f"{key}={QUOTA}").ok()


def measured_rate(events):
    """Bytes per second of (seconds since the start, bytes) events in the measured
    part of the run, over whole waves (quota_support.py)."""
    return steady_rate(events, MEASURED_FROM, MEASURED_TO)


@pytest.fixture
def quiet_sends():
    """KafkaProducer.send logs each record's value at DEBUG: 10 KiB a line here,
    some hundred megabytes a run. Only those lines are left out of the log."""
    log = logging.getLogger("kafka.producer.kafka")
    saved = log.level
    log.setLevel(logging.INFO)
    yield
    log.setLevel(saved)


def run_threads(targets):
    """Runs each (name, callable) in a thread of its own; returns {name: result},
    raising the first exception one of them raised."""
    results, errors = {}, []

    def run(name, fn):
        try:
            results[name] = fn()
        except BaseException as e:  # reported in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=t, daemon=True) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_quota_holds_a_producer_to_its_byte_rate_and_not_another(quota_broker, clients,
                                                                  quiet_sends):
    """Two kafka-python producers (2 MiB of buffer, 128 KiB batches, 10 KiB
    records) sending as fast as they can for 15 s; one's client id has
    producer_byte_rate=1 MiB/s. It is acknowledged within 15% of that, and its
    metrics show the broker's throttle time; the other goes at more than twice
    the quota and was never throttled."""
    broker = quota_broker
    topic = "quota-produce"
    create_topic(clients.admin(broker.bootstrap), topic)
    slow_id, fast_id = "kp-slow-producer", "kp-fast-producer"
    set_client_quota(broker, slow_id, "producer_byte_rate")
    producers = {name: clients.producer(broker.bootstrap, client_id=name, acks=1, linger_ms=5,
                                        batch_size=128 * 1024, buffer_memory=2 * 1048576)
                 for name in (slow_id, fast_id)}
    value = b"x" * QUOTA_RECORD
    start = time.monotonic()

    def produce(producer):
        events, failed = [], []

        def delivered(_):
            events.append((time.monotonic() - start, QUOTA_RECORD))

        while time.monotonic() - start < MEASURED_TO:
            producer.send(topic, value=value).add_callback(delivered).add_errback(failed.append)
        producer.flush(timeout=30)
        assert not failed, failed[:3]
        return events, producer.metrics()["producer-metrics"]

    results = run_threads([(name, lambda p=p: produce(p)) for name, p in producers.items()])
    (slow, slow_metrics), (fast, fast_metrics) = results[slow_id], results[fast_id]
    slow_rate, fast_rate = measured_rate(slow), measured_rate(fast)
    throttle = {name: {k: m[k] for k in ("produce-throttle-time-avg", "produce-throttle-time-max")}
                for name, m in ((slow_id, slow_metrics), (fast_id, fast_metrics))}
    print(f"kafka-python produce: throttled {slow_rate / QUOTA:.3f}x the quota, unthrottled "
          f"{fast_rate / QUOTA:.2f}x; {throttle}")
    # (The quota counts the request's framing too.)
    assert_share(slow_rate, QUOTA, PRODUCE_SHARE, throttle)
    assert fast_rate >= 2 * QUOTA, (fast_rate / QUOTA, throttle)
    assert throttle[slow_id]["produce-throttle-time-max"] > 0, throttle
    assert throttle[slow_id]["produce-throttle-time-avg"] > 0, throttle
    assert throttle[fast_id]["produce-throttle-time-max"] == 0, throttle


def test_quota_holds_a_consumer_to_its_byte_rate_and_not_another(quota_broker, clients,
                                                                  quiet_sends):
    """A topic of 2000 records of 10 KiB (20 MiB, more than the throttled consumer
    can read in the run), then two kafka-python consumers (no group) from the
    beginning; one's client id has consumer_byte_rate=1 MiB/s. It is handed
    records at no more than that rate (FETCH_SHARE), and its metrics show the broker's throttle
    time; the other reads everything at more than twice the quota and was never
    throttled."""
    broker = quota_broker
    topic, records = "quota-fetch", 2000
    create_topic(clients.admin(broker.bootstrap), topic)
    filler = clients.producer(broker.bootstrap, acks=1, linger_ms=20, batch_size=512 * 1024)
    for _ in range(records):
        filler.send(topic, value=b"y" * QUOTA_RECORD)
    filler.flush(timeout=30)
    tp = TopicPartition(topic, 0)
    assert clients.consumer(broker.bootstrap, group_id=None).end_offsets([tp]) == {tp: records}
    slow_id, fast_id = "kp-slow-consumer", "kp-fast-consumer"
    set_client_quota(broker, slow_id, "consumer_byte_rate")
    consumers = {}
    for name in (slow_id, fast_id):
        consumers[name] = clients.consumer(broker.bootstrap, group_id=None, client_id=name,
                                           max_partition_fetch_bytes=262144,
                                           fetch_max_bytes=262144)
        consumers[name].assign([tp])
    start = time.monotonic()

    def consume(consumer, seconds):
        events, got = [], 0
        while time.monotonic() - start < seconds and got < records * QUOTA_RECORD:
            for batch in consumer.poll(timeout_ms=200).values():
                for r in batch:
                    got += len(r.value)
                    events.append((time.monotonic() - start, len(r.value)))
        return events, got, consumer.metrics()["consumer-fetch-manager-metrics"]

    results = run_threads([(slow_id, lambda: consume(consumers[slow_id], MEASURED_TO)),
                           (fast_id, lambda: consume(consumers[fast_id], 45))])
    slow, _, slow_metrics = results[slow_id]
    fast, fast_got, fast_metrics = results[fast_id]
    slow_rate = measured_rate(slow)
    fast_seconds = fast[-1][0]
    fast_rate = fast_got / fast_seconds
    throttle = {name: {k: m[k] for k in ("fetch-throttle-time-avg", "fetch-throttle-time-max")}
                for name, m in ((slow_id, slow_metrics), (fast_id, fast_metrics))}
    print(f"kafka-python fetch: throttled {slow_rate / QUOTA:.3f}x the quota, unthrottled "
          f"{fast_rate / QUOTA:.2f}x ({fast_seconds:.1f} s for all); {throttle}")
    assert_share(slow_rate, QUOTA, FETCH_SHARE, throttle)
    assert fast_got == records * QUOTA_RECORD
    assert fast_rate >= 2 * QUOTA, (fast_rate / QUOTA, throttle)
    assert throttle[slow_id]["fetch-throttle-time-max"] > 0, throttle
    assert throttle[slow_id]["fetch-throttle-time-avg"] > 0, throttle
    assert throttle[fast_id]["fetch-throttle-time-max"] == 0, throttle


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
