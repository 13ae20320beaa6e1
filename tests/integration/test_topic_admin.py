"""Topic and config admin through real clients: confluent-kafka's AdminClient
(1.7: create/delete topics, create partitions, describe/alter configs), kcat,
and raw requests for what that AdminClient lacks (IncrementalAlterConfigs,
DescribeCluster). Every change goes through the controller and the metadata
log, so a restart must bring back exactly the same topics, ids and configs."""
import re
import struct

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (AdminClient, ConfigResource, ConfigSource, NewPartitions,
                                  NewTopic)

import kafka_wire as kw
from samsa_harness import run_kcat, wait_until

API_DELETE_TOPICS = 20
API_DESCRIBE_CONFIGS = 32
API_INCREMENTAL_ALTER_CONFIGS = 44
API_DESCRIBE_CLUSTER = 60

LEADER_NOT_AVAILABLE = 5
INVALID_TOPIC_EXCEPTION = 17
TOPIC_ALREADY_EXISTS = 36
INVALID_REPLICATION_FACTOR = 38
INVALID_CONFIG = 40
INVALID_REQUEST = 42
TOPIC_DELETION_DISABLED = 73
MISMATCHED_ENDPOINT_TYPE = 114

RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4
OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT = 0, 1, 2, 3


def admin_for(broker):
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def create(admin, *topics, **kwargs):
    """Creates the topics; {name: None or the KafkaError}."""
    out = {}
    for name, f in admin.create_topics(list(topics), request_timeout=15, **kwargs).items():
        try:
            out[name] = f.result(timeout=20)
        except KafkaException as e:
            out[name] = e.args[0]
    return out


def describe(admin, rtype, name):
    [f] = admin.describe_configs([ConfigResource(rtype, name)]).values()
    return f.result(timeout=20)


def partition_counts(admin):
    md = admin.list_topics(timeout=10)
    return {n: len(t.partitions) for n, t in md.topics.items()}


def topic_ids(broker):
    with kw.KafkaConnection.to(broker) as c:
        md = c.metadata(12, topics=None)
    return {t.name: t.topic_id for t in md.topics}


# --- raw IncrementalAlterConfigs v0 and DescribeCluster v1 ----------------------

def incremental_alter(broker, resources, validate_only=False):
    """resources: [(type, name, [(key, op, value)])] -> [(error, message, type, name)]."""
    body = kw.array([kw.int8(t) + kw.string(n) + kw.array(
        [kw.string(k) + kw.int8(op) + kw.string(v) for k, op, v in configs])
        for t, n, configs in resources]) + kw.boolean(validate_only)
    with kw.KafkaConnection.to(broker) as c:
        r = kw.Reader(c.roundtrip(API_INCREMENTAL_ALTER_CONFIGS, 0, body))
    r.int32()  # throttle
    out = []
    for _ in range(r.array_length(False)):
        out.append((r.int16(), r.string(), r.int8(), r.string()))
    r.end()
    return out


def describe_configs_v1(broker, rtype, name, keys=None):
    """Raw DescribeConfigs v1 with synonyms -> (error, message, {key: (value, source,
    read_only, [(synonym, value, source)])})."""
    body = kw.array([kw.int8(rtype) + kw.string(name) +
                     (kw.array(None) if keys is None else kw.array([kw.string(k) for k in keys]))])
    body += kw.boolean(True)
    with kw.KafkaConnection.to(broker) as c:
        r = kw.Reader(c.roundtrip(API_DESCRIBE_CONFIGS, 1, body))
    r.int32()
    assert r.array_length(False) == 1
    error, message, _, _ = r.int16(), r.string(), r.int8(), r.string()
    configs = {}
    for _ in range(r.array_length(False)):
        key, value, read_only, source, _sensitive = (r.string(), r.string(), r.boolean(),
                                                     r.int8(), r.boolean())
        synonyms = [(r.string(), r.string(), r.int8()) for _ in range(r.array_length(False))]
        configs[key] = (value, source, read_only, synonyms)
    r.end()
    return error, message, configs


def delete_topics_v(broker, version, names):
    """Raw DeleteTopics v0-3 -> [(name, error)]."""
    body = kw.array([kw.string(n) for n in names]) + kw.int32(15000)
    with kw.KafkaConnection.to(broker) as c:
        r = kw.Reader(c.roundtrip(API_DELETE_TOPICS, version, body))
    if version >= 1:
        r.int32()
    out = [(r.string(), r.int16()) for _ in range(r.array_length(False))]
    r.end()
    return out


def describe_cluster(broker, endpoint_type=1, authorized_operations=False, port=None):
    body = kw.boolean(authorized_operations) + kw.int8(endpoint_type) + kw.EMPTY_TAGS
    with kw.KafkaConnection(broker.host, port or broker.port) as c:
        cid = c.send_request(API_DESCRIBE_CLUSTER, 1, body, header_version=2)
        r = kw.Reader(c.read_frame())
    assert r.int32() == cid
    r.tagged_fields()  # response header v1
    resp = {"throttle": r.int32(), "error_code": r.int16(), "error_message": r.compact_string(),
            "endpoint_type": r.int8(), "cluster_id": r.compact_string(),
            "controller_id": r.int32(), "brokers": []}
    for _ in range(r.array_length(True)):
        b = (r.int32(), r.compact_string(), r.int32(), r.compact_string())
        r.tagged_fields()
        resp["brokers"].append(b)
    resp["cluster_authorized_operations"] = r.int32()
    r.tagged_fields()
    r.end()
    return resp


# --- round trip ----------------------------------------------------------------

def test_create_describe_alter_add_partitions_delete_round_trip(broker):
    admin = admin_for(broker)

    assert create(admin, NewTopic("orders", 3, 1, config={"retention.ms": "3600000"})) == \
        {"orders": None}
    assert partition_counts(admin) == {"orders": 3}

    cfg = describe(admin, "topic", "orders")
    assert cfg["retention.ms"].value == "3600000"
    assert cfg["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert cfg["cleanup.policy"].value == "delete"
    assert cfg["cleanup.policy"].source == ConfigSource.DEFAULT_CONFIG.value
    assert cfg["retention.ms"].is_read_only is False

    # AlterConfigs replaces every override of the topic.
    [f] = admin.alter_configs([ConfigResource("topic", "orders",
                                              set_config={"cleanup.policy": "compact"})]).values()
    f.result(timeout=20)
    cfg = describe(admin, "topic", "orders")
    assert cfg["cleanup.policy"].value == "compact"
    assert cfg["retention.ms"].value == "604800000"
    assert cfg["retention.ms"].source == ConfigSource.DEFAULT_CONFIG.value

    [f] = admin.create_partitions([NewPartitions("orders", 5)]).values()
    f.result(timeout=20)
    wait_until(lambda: partition_counts(admin) == {"orders": 5}, 10, "5 partitions")

    # The replica manager made a log for every partition.
    wait_until(lambda: all((broker.data_dir / f"orders-{p}").is_dir() for p in range(5)), 10,
               "partition directories")

    [f] = admin.delete_topics(["orders"], operation_timeout=15).values()
    f.result(timeout=20)
    assert partition_counts(admin) == {}
    with pytest.raises(KafkaException) as e:
        describe(admin, "topic", "orders")
    assert e.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART


def test_kcat_lists_created_topics(broker):
    admin = admin_for(broker)
    assert create(admin, NewTopic("alpha", 2, 1), NewTopic("beta", 1, 1)) == \
        {"alpha": None, "beta": None}

    out = run_kcat("-L", "-b", broker.bootstrap, "-m", "10").stdout

    assert re.search(r'^ 2 topics:$', out, re.M), out
    assert re.search(r'^  topic "alpha" with 2 partitions:$', out, re.M), out
    assert re.search(r'^  topic "beta" with 1 partitions:$', out, re.M), out
    assert re.search(r"partition 1, leader 1, replicas: 1, isrs: 1", out), out


# --- CreateTopics errors ----------------------------------------------------------

def test_create_topic_errors_carry_kafkas_codes_and_messages(broker):
    admin = admin_for(broker)
    assert create(admin, NewTopic("taken", 1, 1)) == {"taken": None}

    res = create(admin, NewTopic("taken", 1, 1), NewTopic("rf3", 1, 3),
                 NewTopic("badcfg", 1, 1, config={"retention.ms": "soon"}),
                 NewTopic("unknowncfg", 1, 1, config={"no.such.key": "1"}),
                 NewTopic("bad name", 1, 1), NewTopic("taken.x", 1, 1))
    assert res["taken"].code() == KafkaError.TOPIC_ALREADY_EXISTS
    assert res["taken"].str() == "Topic 'taken' already exists."
    assert res["rf3"].code() == KafkaError.INVALID_REPLICATION_FACTOR
    assert res["rf3"].str() == ("Unable to replicate the partition 3 time(s): The target "
                                "replication factor of 3 cannot be reached because only 1 "
                                "broker(s) are registered.")
    assert res["badcfg"].code() == KafkaError.INVALID_CONFIG
    assert res["unknowncfg"].code() == KafkaError.INVALID_CONFIG
    assert res["unknowncfg"].str() == "Unknown topic config name: no.such.key"
    assert res["bad name"].code() == KafkaError.TOPIC_EXCEPTION
    assert res["taken.x"] is None
    assert sorted(partition_counts(admin)) == ["taken", "taken.x"]

    # '.' and '_' collide.
    res = create(admin, NewTopic("taken_x", 1, 1))
    assert res["taken_x"].code() == KafkaError.TOPIC_EXCEPTION
    assert res["taken_x"].str() == "Topic 'taken_x' collides with existing topic: taken.x"


def test_create_topics_validate_only_creates_nothing(broker):
    admin = admin_for(broker)
    assert create(admin, NewTopic("dry", 4, 1), validate_only=True) == {"dry": None}
    assert partition_counts(admin) == {}


def test_defaults_and_explicit_assignments(start_broker):
    broker = start_broker(overrides={"num.partitions": "4"})
    admin = admin_for(broker)
    assert create(admin, NewTopic("defaults", -1, -1),
                  NewTopic("manual", 3, replica_assignment=[[1], [1], [1]])) == \
        {"defaults": None, "manual": None}
    assert partition_counts(admin) == {"defaults": 4, "manual": 3}

    res = create(admin, NewTopic("ghost", 1, replica_assignment=[[2]]))
    assert res["ghost"].code() == KafkaError.INVALID_REPLICA_ASSIGNMENT
    assert res["ghost"].str() == ("The manual partition assignment includes broker 2, but no "
                                  "such broker is registered.")


def test_create_partitions_errors(broker):
    admin = admin_for(broker)
    assert create(admin, NewTopic("p", 2, 1)) == {"p": None}
    for count, message in [(2, "Topic already has 2 partition(s)."),
                           (1, "The topic p currently has 2 partition(s); 1 would not be an "
                               "increase.")]:
        [f] = admin.create_partitions([NewPartitions("p", count)]).values()
        with pytest.raises(KafkaException) as e:
            f.result(timeout=20)
        assert e.value.args[0].code() == KafkaError.INVALID_PARTITIONS
        assert e.value.args[0].str() == message
    [f] = admin.create_partitions([NewPartitions("p", 3)], validate_only=True).values()
    f.result(timeout=20)
    assert partition_counts(admin) == {"p": 2}


def test_delete_topics_disabled(start_broker):
    broker = start_broker(overrides={"delete.topic.enable": "false"})
    admin = admin_for(broker)
    assert create(admin, NewTopic("keep", 1, 1)) == {"keep": None}
    # Kafka: INVALID_REQUEST before v3 (librdkafka's version), TOPIC_DELETION_DISABLED after.
    [f] = admin.delete_topics(["keep"], operation_timeout=15).values()
    with pytest.raises(KafkaException) as e:
        f.result(timeout=20)
    assert e.value.args[0].code() in (KafkaError.INVALID_REQUEST,
                                      KafkaError.TOPIC_DELETION_DISABLED)
    assert delete_topics_v(broker, 2, ["keep"]) == [("keep", INVALID_REQUEST)]
    assert delete_topics_v(broker, 3, ["keep"]) == [("keep", TOPIC_DELETION_DISABLED)]
    assert partition_counts(admin) == {"keep": 1}


def test_delete_unknown_topic(broker):
    admin = admin_for(broker)
    [f] = admin.delete_topics(["nope"], operation_timeout=15).values()
    with pytest.raises(KafkaException) as e:
        f.result(timeout=20)
    assert e.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART


# --- configs ---------------------------------------------------------------------

def test_incremental_alter_configs_on_a_topic(broker):
    admin = admin_for(broker)
    assert create(admin, NewTopic("inc", 1, 1)) == {"inc": None}

    res = incremental_alter(broker, [(RESOURCE_TOPIC, "inc", [
        ("retention.ms", OP_SET, "1000"), ("cleanup.policy", OP_APPEND, "compact")])])
    assert res == [(0, None, RESOURCE_TOPIC, "inc")]
    cfg = describe(admin, "topic", "inc")
    assert cfg["retention.ms"].value == "1000"
    assert cfg["cleanup.policy"].value == "delete,compact"

    res = incremental_alter(broker, [(RESOURCE_TOPIC, "inc", [
        ("retention.ms", OP_DELETE, None), ("cleanup.policy", OP_SUBTRACT, "delete")])])
    assert res == [(0, None, RESOURCE_TOPIC, "inc")]
    cfg = describe(admin, "topic", "inc")
    assert cfg["retention.ms"].value == "604800000"
    assert cfg["cleanup.policy"].value == "compact"

    [(code, message, _, _)] = incremental_alter(
        broker, [(RESOURCE_TOPIC, "inc", [("retention.ms", OP_APPEND, "1")])])
    assert (code, message) == (INVALID_CONFIG, "Can't APPEND to key retention.ms because its "
                                               "type is not LIST.")
    [(code, message, _, _)] = incremental_alter(
        broker, [(RESOURCE_TOPIC, "missing", [("retention.ms", OP_SET, "1")])])
    assert (code, message) == (KafkaError.UNKNOWN_TOPIC_OR_PART,
                               "The topic 'missing' does not exist.")


def test_broker_configs_dynamic_over_static_over_default(start_broker):
    broker = start_broker(overrides={"log.retention.bytes": "1000000"})
    admin = admin_for(broker)
    Source = ConfigSource

    cfg = describe(admin, "broker", "1")
    assert cfg["log.retention.bytes"].value == "1000000"
    assert cfg["log.retention.bytes"].source == Source.STATIC_BROKER_CONFIG.value
    assert cfg["log.segment.bytes"].source == Source.DEFAULT_CONFIG.value
    assert cfg["log.dirs"].is_read_only is True
    assert cfg["log.retention.bytes"].is_read_only is False

    assert incremental_alter(broker, [(RESOURCE_BROKER, "", [
        ("log.retention.bytes", OP_SET, "2000000")])]) == [(0, None, RESOURCE_BROKER, "")]
    cfg = describe(admin, "broker", "1")
    assert cfg["log.retention.bytes"].value == "2000000"
    assert cfg["log.retention.bytes"].source == Source.DYNAMIC_DEFAULT_BROKER_CONFIG.value

    assert incremental_alter(broker, [(RESOURCE_BROKER, "1", [
        ("log.retention.bytes", OP_SET, "3000000")])]) == [(0, None, RESOURCE_BROKER, "1")]
    cfg = describe(admin, "broker", "1")
    assert cfg["log.retention.bytes"].value == "3000000"
    assert cfg["log.retention.bytes"].source == Source.DYNAMIC_BROKER_CONFIG.value
    # Synonyms, highest priority first (raw v1: the client folds them by name).
    _, _, raw = describe_configs_v1(broker, RESOURCE_BROKER, "1",
                                    ["log.retention.bytes", "log.retention.ms"])
    assert [src for _, _, src in raw["log.retention.bytes"][3]] == [
        Source.DYNAMIC_BROKER_CONFIG.value, Source.DYNAMIC_DEFAULT_BROKER_CONFIG.value,
        Source.STATIC_BROKER_CONFIG.value, Source.DEFAULT_CONFIG.value]
    assert raw["log.retention.ms"][3] == [("log.retention.hours", "168",
                                           Source.DEFAULT_CONFIG.value)]
    assert set(raw) == {"log.retention.bytes", "log.retention.ms"}

    # A topic without an override follows the broker's effective value.
    assert create(admin, NewTopic("follows", 1, 1)) == {"follows": None}
    tcfg = describe(admin, "topic", "follows")
    assert tcfg["retention.bytes"].value == "3000000"
    assert tcfg["retention.bytes"].source == Source.DYNAMIC_BROKER_CONFIG.value

    # The cluster-wide resource "" lists only its dynamic defaults.
    error, _, defaults = describe_configs_v1(broker, RESOURCE_BROKER, "")
    assert error == 0
    assert {k: v[:2] for k, v in defaults.items()} == {
        "log.retention.bytes": ("2000000", Source.DYNAMIC_DEFAULT_BROKER_CONFIG.value)}

    # Read-only keys cannot change at runtime.
    [(code, message, _, _)] = incremental_alter(
        broker, [(RESOURCE_BROKER, "1", [("log.dirs", OP_SET, "/elsewhere")])])
    assert code == INVALID_CONFIG, message
    # Another broker's configs are not this broker's to describe (a client
    # would send that request to broker 2 itself).
    error, message, configs = describe_configs_v1(broker, RESOURCE_BROKER, "2")
    assert (error, configs) == (INVALID_REQUEST, {})
    assert message == "Unexpected broker id, expected 1 or empty string, but received 2"


# --- auto topic creation -----------------------------------------------------------

def test_kcat_metadata_for_a_new_topic_creates_it(start_broker):
    broker = start_broker(overrides={"num.partitions": "2"})

    def created():
        out = run_kcat("-L", "-b", broker.bootstrap, "-t", "fresh", "-m", "10").stdout
        return re.search(r'topic "fresh" with 2 partitions:', out)

    wait_until(created, 15, "kcat to see the auto-created topic")
    assert partition_counts(admin_for(broker)) == {"fresh": 2}


def test_metadata_auto_creation_answers_leader_not_available_then_the_topic(broker):
    with kw.KafkaConnection.to(broker) as c:
        first = c.metadata(12, topics=["auto1"])
        assert [(t.name, t.error_code) for t in first.topics] == [("auto1", LEADER_NOT_AVAILABLE)]
        second = c.metadata(12, topics=["auto1"])
        [t] = second.topics
        assert (t.name, t.error_code, len(t.partitions)) == ("auto1", 0, 1)
        assert t.topic_id.int != 0


def test_metadata_does_not_create_when_not_allowed(start_broker):
    broker = start_broker()
    with kw.KafkaConnection.to(broker) as c:
        md = c.metadata(12, topics=["no-auto"], allow_auto_topic_creation=False)
        assert [(t.name, t.error_code) for t in md.topics] == [
            ("no-auto", kw.UNKNOWN_TOPIC_OR_PARTITION)]
        md = c.metadata(12, topics=["bad name!"])
        assert [(t.name, t.error_code) for t in md.topics] == [
            ("bad name!", INVALID_TOPIC_EXCEPTION)]
    assert partition_counts(admin_for(broker)) == {}

    disabled = start_broker(overrides={"auto.create.topics.enable": "false"})
    with kw.KafkaConnection.to(disabled) as c:
        md = c.metadata(12, topics=["nope"])
        assert [(t.name, t.error_code) for t in md.topics] == [
            ("nope", kw.UNKNOWN_TOPIC_OR_PARTITION)]
    assert partition_counts(admin_for(disabled)) == {}


# --- DescribeCluster ------------------------------------------------------------------

def test_describe_cluster(broker):
    resp = describe_cluster(broker, authorized_operations=True)
    assert resp["error_code"] == 0
    assert resp["cluster_id"] == broker.meta_properties()["cluster.id"]
    assert resp["controller_id"] == 1
    assert resp["brokers"] == [(1, "127.0.0.1", broker.port, None)]
    assert resp["cluster_authorized_operations"] > 0

    resp = describe_cluster(broker, endpoint_type=2)
    assert resp["error_code"] == MISMATCHED_ENDPOINT_TYPE


def test_describe_cluster_on_controller_listener(broker):
    # KIP-919: the controller listener lists the controllers (endpoint type 2).
    resp = describe_cluster(broker, endpoint_type=2, port=broker.controller_port)
    assert resp["error_code"] == 0
    assert resp["endpoint_type"] == 2
    assert resp["cluster_id"] == broker.meta_properties()["cluster.id"]
    assert resp["controller_id"] == 1
    assert resp["brokers"] == [(1, broker.host, broker.controller_port, None)]

    resp = describe_cluster(broker, endpoint_type=1, port=broker.controller_port)
    assert resp["error_code"] == MISMATCHED_ENDPOINT_TYPE
    assert resp["brokers"] == []


# --- restart ------------------------------------------------------------------------

def test_restart_keeps_topics_ids_partitions_and_configs(broker):
    admin = admin_for(broker)
    assert create(admin, NewTopic("a", 3, 1, config={"retention.ms": "123456"}),
                  NewTopic("b", 1, 1), NewTopic("c", 1, 1)) == {"a": None, "b": None, "c": None}
    [f] = admin.create_partitions([NewPartitions("b", 4)]).values()
    f.result(timeout=20)
    [f] = admin.delete_topics(["c"], operation_timeout=15).values()
    f.result(timeout=20)
    assert incremental_alter(broker, [(RESOURCE_BROKER, "", [
        ("log.retention.bytes", OP_SET, "5000000")])]) == [(0, None, RESOURCE_BROKER, "")]
    ids = topic_ids(broker)
    counts = partition_counts(admin)
    a_cfg = {k: (v.value, v.source) for k, v in describe(admin, "topic", "a").items()}

    broker.restart()
    admin = admin_for(broker)

    assert topic_ids(broker) == ids
    assert partition_counts(admin) == counts == {"a": 3, "b": 4}
    assert {k: (v.value, v.source) for k, v in describe(admin, "topic", "a").items()} == a_cfg
    assert describe_configs_v1(broker, RESOURCE_BROKER, "")[2]["log.retention.bytes"][0] == \
        "5000000"
    # And the restarted controller carries on from there.
    assert create(admin, NewTopic("a", 1, 1))["a"].code() == KafkaError.TOPIC_ALREADY_EXISTS


def test_sigkill_restart_keeps_acknowledged_topics(broker):
    admin = admin_for(broker)
    assert create(admin, NewTopic("durable", 2, 1, config={"segment.ms": "60000"})) == \
        {"durable": None}
    ids = topic_ids(broker)

    broker.kill()
    broker.wait()
    broker.start()

    admin = admin_for(broker)
    assert topic_ids(broker) == ids
    assert partition_counts(admin) == {"durable": 2}
    assert describe(admin, "topic", "durable")["segment.ms"].value == "60000"
