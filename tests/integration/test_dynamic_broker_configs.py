"""Dynamic broker configs (IncrementalAlterConfigs on the cluster default "" or
on one broker) act on the running broker, with Kafka's precedence: a topic's
own override, then per-broker dynamic, then cluster-wide dynamic, then the
static file, then the default (docs/architecture.md, "Metadata").

Each change is applied when the broker applies the metadata image that carries
it, a moment after the AlterConfigs answer: every check polls with a deadline
(30 s, a loaded 2-core machine). The producers are librdkafka's
(confluent-kafka) with retries off, so the broker's own error comes back.

Keys whose Kafka behaviour Samsa cannot have at run time (thread pools,
listeners) are read-only: an AlterConfigs of them is refused with a message,
never stored and ignored.
"""
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import NewTopic

from compaction_support import (CLEANER_BROKER, compacted_topic_config, create_topic, now_ms,
                                produce_keyed, wait_for_cleaning, watermarks)
from samsa_harness import wait_until
from test_topic_admin import (INVALID_CONFIG, OP_DELETE, OP_SET, RESOURCE_BROKER, admin_for,
                              create, describe, incremental_alter)

DEADLINE_S = 30.0


def produce_one(bootstrap, topic, size, acks="1"):
    """One record of `size` bytes; None when acknowledged, else the KafkaError."""
    p = Producer({"bootstrap.servers": bootstrap, "acks": acks, "linger.ms": 0,
                  "enable.idempotence": False, "message.send.max.retries": 0,
                  "message.timeout.ms": 15000})
    out = []
    p.produce(topic, b"x" * size, on_delivery=lambda err, _msg: out.append(err))
    p.flush(20)
    assert out, "no delivery report"
    return out[0]


def code(err):
    return None if err is None else err.code()


def alter(broker, resource, key, value, op=OP_SET):
    assert incremental_alter(broker, [(RESOURCE_BROKER, resource, [(key, op, value)])]) == [
        (0, None, RESOURCE_BROKER, resource)]


def wait_produce(broker, topic, size, want, acks="1"):
    wait_until(lambda: code(produce_one(broker.bootstrap, topic, size, acks)) == want,
               DEADLINE_S, f"a {size}-byte record to {topic} to give {want}")


def test_message_max_bytes_follows_the_cluster_default_then_the_broker(start_broker):
    broker = start_broker()
    admin = admin_for(broker)
    assert create(admin, NewTopic("sized", 1, 1),
                  NewTopic("roomy", 1, 1, config={"max.message.bytes": "100000"})) == {
        "sized": None, "roomy": None}
    assert produce_one(broker.bootstrap, "sized", 2000) is None

    alter(broker, "", "message.max.bytes", "1000")
    wait_produce(broker, "sized", 2000, KafkaError.MSG_SIZE_TOO_LARGE)
    # The topic's own override still wins.
    assert produce_one(broker.bootstrap, "roomy", 2000) is None
    assert describe(admin, "topic", "sized")["max.message.bytes"].value == "1000"

    # This broker's own value wins over the cluster default ...
    alter(broker, "1", "message.max.bytes", "5000")
    wait_produce(broker, "sized", 2000, None)
    # ... until it is deleted.
    alter(broker, "1", "message.max.bytes", "", OP_DELETE)
    wait_produce(broker, "sized", 2000, KafkaError.MSG_SIZE_TOO_LARGE)


def test_min_insync_replicas_cluster_default_refuses_acks_all(start_broker):
    broker = start_broker()
    assert create(admin_for(broker), NewTopic("isr", 1, 1)) == {"isr": None}
    assert produce_one(broker.bootstrap, "isr", 10, acks="all") is None

    alter(broker, "", "min.insync.replicas", "2")
    wait_produce(broker, "isr", 10, KafkaError.NOT_ENOUGH_REPLICAS, acks="all")
    # acks=1 does not ask for the ISR.
    assert produce_one(broker.bootstrap, "isr", 10, acks="1") is None

    alter(broker, "", "min.insync.replicas", "", OP_DELETE)
    wait_produce(broker, "isr", 10, None, acks="all")


def test_retention_ms_cluster_default_deletes_old_segments(start_broker):
    broker = start_broker(overrides={"log.retention.check.interval.ms": 200})
    assert create(admin_for(broker),
                  NewTopic("aging", 1, 1, config={"segment.bytes": "16384"})) == {"aging": None}
    # Batches well below segment.bytes (a larger one is RECORD_BATCH_TOO_LARGE).
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5, "batch.size": 4096})
    errors = []
    for i in range(100):
        p.produce("aging", b"%04d" % i + b"r" * 1000,
                  on_delivery=lambda err, _m: err and errors.append(err))
    assert p.flush(20) == 0
    assert not errors, errors[:3]
    low, high = watermarks(broker.bootstrap, "aging")
    assert (low, high) == (0, 100)

    # Seven days by default; one millisecond now: every segment but the
    # active one is past it.
    alter(broker, "", "log.retention.ms", "1")
    wait_until(lambda: watermarks(broker.bootstrap, "aging")[0] > 0, DEADLINE_S,
               "the log start offset to move past the deleted segments")
    low, high = watermarks(broker.bootstrap, "aging")
    assert 0 < low < high == 100


def test_log_cleaner_threads_start_the_cleaner(start_broker):
    broker = start_broker(overrides={**CLEANER_BROKER, "log.cleaner.threads": 0})
    create_topic(broker.bootstrap, "kv", compacted_topic_config())
    base = now_ms()
    records = [(b"k%d" % (i % 5), b"v%05d:" % i + b"p" * 200, [], base + i) for i in range(400)]
    produce_keyed(broker.bootstrap, "kv", records)
    assert "event=log_cleaned" not in broker.log_text()

    alter(broker, "", "log.cleaner.threads", "1")
    wait_for_cleaning(broker, "kv")
    assert "event=log_cleaner_reconfigured threads=1" in broker.log_text()


def test_keys_applied_only_at_start_are_read_only(start_broker):
    broker = start_broker()
    for resource, key, value in [("", "num.io.threads", "4"),
                                 ("", "num.replica.fetchers", "2"),
                                 ("1", "listeners", "PLAINTEXT://:1"),
                                 ("1", "advertised.listeners", "PLAINTEXT://h:1")]:
        [(error, message, _, _)] = incremental_alter(
            broker, [(RESOURCE_BROKER, resource, [(key, OP_SET, value)])])
        assert error == INVALID_CONFIG, (key, message)
        assert "read-only" in message, message
    cfg = describe(admin_for(broker), "broker", "1")
    assert cfg["num.io.threads"].is_read_only is True
    assert cfg["listeners"].is_read_only is True
    assert cfg["log.retention.ms"].is_read_only is False
