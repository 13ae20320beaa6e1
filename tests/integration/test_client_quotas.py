"""Client quotas (docs/client-quotas.md): producer_byte_rate and consumer_byte_rate
set with `samsa configs` (AlterClientQuotas) for client ids, users and their
defaults, read back with DescribeClientQuotas in kafka-configs.sh's words, kept
over a restart, and enforced: a throttled librdkafka producer and consumer
(confluent-kafka) are held to their rate while another client on the same broker
is not slowed, and the throttle time reaches the client."""
import threading
import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from quota_support import FETCH_SHARE, PRODUCE_SHARE, assert_share, steady_rate
from samsa_cli import on
from test_acls import acl_broker, as_user, brokers  # noqa: F401 (a fixture)

QUOTA = 1048576  # 1 MiB/s
RECORD = 10 * 1024
# Four one-second samples: the rate a client is held to settles within a few
# seconds (with Kafka's default of eleven it moves in eleven-second waves),
# and a consumer's 256 KiB fetch is a small part of the three-second bound
# (with two samples, a throttled fetch answered empty is fetched again so
# often that the consumer reads at 0.6 of its quota).
SMOOTH = {"quota.window.num": "4", "quota.window.size.seconds": "1"}
# Measured from 3 s, over whole waves (quota_support.py).
MEASURED_FROM, MEASURED_TO = 3.0, 15.0


def configs(broker, *args):
    return on(broker, "configs", *args)


def quota_lines(broker, entity_type, *args):
    out = configs(broker, "--entity-type", entity_type, "--describe", *args).ok().stdout
    return [l for l in out.splitlines() if l.startswith("Quota configs")]


def test_quotas_are_set_described_and_removed_as_kafka_configs_does(start_broker):
    b = start_broker()
    r = configs(b, "--entity-type", "clients", "--entity-name", "slow", "--alter",
                "--add-config", "producer_byte_rate=1048576,consumer_byte_rate=20000000").ok()
    assert r.stdout.strip() == "Completed updating config for client slow."
    r = configs(b, "--entity-type", "users", "--entity-default", "--alter",
                "--add-config", "consumer_byte_rate=5000").ok()
    assert r.stdout.strip() == "Completed updating default config for users in the cluster."
    configs(b, "--entity-type", "users", "--entity-name", "alice", "--alter", "--add-config",
            "producer_byte_rate=2048,SCRAM-SHA-256=[password=alice-secret]").ok()

    assert quota_lines(b, "clients", "--entity-name", "slow") == [
        "Quota configs for client-id 'slow' are consumer_byte_rate=2.0E7, "
        "producer_byte_rate=1048576.0"]
    assert quota_lines(b, "users", "--entity-default") == [
        "Quota configs for the default user-principal are consumer_byte_rate=5000.0"]
    alice = configs(b, "--entity-type", "users", "--entity-name", "alice", "--describe").ok()
    assert alice.stdout.splitlines() == [
        "Quota configs for user-principal 'alice' are producer_byte_rate=2048.0",
        "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=4096"]
    # Every user entity: the named one and the default.
    assert len(quota_lines(b, "users")) == 2

    # They are metadata: a restart replays them.
    b.restart()
    assert len(quota_lines(b, "clients")) == 1

    configs(b, "--entity-type", "clients", "--entity-name", "slow", "--alter",
            "--delete-config", "consumer_byte_rate").ok()
    assert quota_lines(b, "clients", "--entity-name", "slow") == [
        "Quota configs for client-id 'slow' are producer_byte_rate=1048576.0"]
    configs(b, "--entity-type", "clients", "--entity-name", "slow", "--alter",
            "--delete-config", "producer_byte_rate").ok()
    assert quota_lines(b, "clients") == []


def test_bad_and_unenforced_quotas_are_refused_with_a_message(start_broker):
    b = start_broker()
    err = configs(b, "--entity-type", "ips", "--entity-name", "127.0.0.1", "--alter",
                  "--add-config", "connection_creation_rate=50").failed().error
    assert "connection_creation_rate is not enforced by this broker" in err
    err = configs(b, "--entity-type", "clients", "--entity-name", "c", "--alter",
                  "--add-config", "producer_byte_rate=10.5").failed().error
    assert "Configuration producer_byte_rate must be a Long value" in err
    err = configs(b, "--entity-type", "clients", "--entity-name", "c", "--alter",
                  "--add-config", "fetch_rate=5").failed().error
    assert "Invalid config(s): fetch_rate" in err
    assert quota_lines(b, "clients") == []


def set_quota(broker, client_id, key):
    configs(broker, "--entity-type", "clients", "--entity-name", client_id, "--alter",
            "--add-config", f"{key}={QUOTA}").ok()


def create(broker, topic):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)


def rate_between(events, start):
    """Bytes per second of (time, bytes) events in the measured part of the run,
    over whole waves (quota_support.py)."""
    return steady_rate([(t - start, n) for t, n in events], MEASURED_FROM, MEASURED_TO)


def produce_for(bootstrap, topic, client_id, seconds, start, out):
    throttles = []
    p = Producer({"bootstrap.servers": bootstrap, "client.id": client_id, "linger.ms": 5,
                  "queue.buffering.max.kbytes": 512,
                  "throttle_cb": lambda ev: throttles.append(ev.throttle_time)})
    value = b"x" * RECORD

    def delivered(err, msg):
        assert err is None, err
        out.append((time.monotonic(), len(msg.value())))

    while time.monotonic() - start < seconds:
        try:
            p.produce(topic, value=value, on_delivery=delivered)
        except BufferError:
            p.poll(0.05)
        p.poll(0)
    assert p.flush(60) == 0
    return throttles


def test_a_producer_is_held_to_its_byte_rate_and_another_is_not_slowed(start_broker):
    b = start_broker(overrides=SMOOTH)
    create(b, "quota-produce")
    set_quota(b, "slow-producer", "producer_byte_rate")
    slow, fast, throttled = [], [], {}
    start = time.monotonic()

    def run(name, out):
        throttled[name] = produce_for(b.bootstrap, "quota-produce", name, MEASURED_TO, start, out)

    threads = [threading.Thread(target=run, args=("slow-producer", slow)),
               threading.Thread(target=run, args=("fast-producer", fast))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    slow_rate, fast_rate = rate_between(slow, start), rate_between(fast, start)
    # A throttled producer delivers in waves of up to its queue (512 KiB
    # here); quota_support.py measures over them.
    assert_share(slow_rate, QUOTA, PRODUCE_SHARE)
    assert fast_rate >= 3 * QUOTA, fast_rate / QUOTA
    assert throttled["slow-producer"] and max(throttled["slow-producer"]) > 0
    assert not throttled["fast-producer"]


def consume_for(bootstrap, topic, client_id, seconds, start, total):
    events, throttles = [], []
    # Fetches of at most 256 KiB: a throttled fetch is answered empty and
    # fetched again (as from Kafka), so a fetch as large as the whole quota
    # window would go through only when the window is empty, well below the
    # rate.
    c = Consumer({"bootstrap.servers": bootstrap, "client.id": client_id,
                  "group.id": client_id, "enable.auto.commit": False,
                  "fetch.max.bytes": 262144, "max.partition.fetch.bytes": 262144,
                  "message.max.bytes": 262144,
                  "throttle_cb": lambda ev: throttles.append(ev.throttle_time)})
    c.assign([TopicPartition(topic, 0, 0)])
    got = 0
    while time.monotonic() - start < seconds and got < total:
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            got += len(m.value())
            events.append((time.monotonic(), len(m.value())))
    c.close()
    return events, throttles, got


def test_a_consumer_is_held_to_its_byte_rate_and_another_is_not_slowed(start_broker):
    b = start_broker(overrides=SMOOTH)
    create(b, "quota-fetch")
    records = 2000  # 20 MiB: more than the throttled consumer can read in the run
    p = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 20})
    for _ in range(records):
        while True:
            try:
                p.produce("quota-fetch", value=b"y" * RECORD)
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(60) == 0
    set_quota(b, "slow-consumer", "consumer_byte_rate")

    start = time.monotonic()
    results = {}

    def run(name, seconds):
        results[name] = consume_for(b.bootstrap, "quota-fetch", name, seconds, start,
                                    records * RECORD)

    threads = [threading.Thread(target=run, args=("slow-consumer", MEASURED_TO)),
               threading.Thread(target=run, args=("fast-consumer", 60))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    slow_events, slow_throttles, _ = results["slow-consumer"]
    fast_events, fast_throttles, fast_got = results["fast-consumer"]
    slow_rate = rate_between(slow_events, start)
    assert_share(slow_rate, QUOTA, FETCH_SHARE)
    # The other consumer read everything, at many times the quota.
    assert fast_got == records * RECORD
    fast_seconds = fast_events[-1][0] - start
    assert fast_got / fast_seconds >= 3 * QUOTA, fast_got / fast_seconds / QUOTA
    assert slow_throttles and max(slow_throttles) > 0
    assert not fast_throttles


def test_a_user_quota_follows_the_sasl_principal(brokers):
    """A quota on user alice throttles what alice signs in to send, whatever her
    client id, and not bob (SASL/PLAIN, no authorizer)."""
    b = acl_broker({"authorizer.class.name": None, "super.users": None})
    brokers.append(b)
    b.start()
    create(b, "quota-users")
    configs(b, "--entity-type", "users", "--entity-name", "alice", "--alter",
            "--add-config", "producer_byte_rate=1024").ok()

    def throttled(user, client_id, expect_throttle):
        throttles, delivered = [], []
        p = Producer({**as_user(b, user), "client.id": client_id,
                      "throttle_cb": lambda ev: throttles.append(ev.throttle_time)})
        # 50 KiB at once: five times 1 KiB/s over the ten-second window.
        for _ in range(5):
            p.produce("quota-users", value=b"z" * RECORD,
                      on_delivery=lambda e, m: delivered.append(e))
        assert p.flush(30) == 0
        assert delivered == [None] * 5
        # The throttle time came with the answer; the callback fires on poll.
        deadline = time.monotonic() + (10 if expect_throttle else 0.5)
        while not throttles and time.monotonic() < deadline:
            p.poll(0.1)
        return throttles

    alice = throttled("alice", "app-1", True)
    assert alice and max(alice) > 10, alice  # seconds: about 40
    assert not throttled("bob", "app-1", False)
