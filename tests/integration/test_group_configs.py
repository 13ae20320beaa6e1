"""A group's own configs (KIP-848's GroupConfig, ConfigResource type GROUP):
`samsa configs --entity-type groups` sets, describes and deletes them as
kafka-configs.sh does, the broker refuses what Kafka's GroupConfig refuses
with its messages, and a consumer-protocol member of the group is told the
group's heartbeat interval and fenced after the group's session timeout."""
import time
import uuid

import group_wire as gw
import kafka_wire as kw
from samsa_cli import on
from samsa_harness import wait_until
from test_consumer_groups import create_topics

BROKER = {
    "offsets.topic.replication.factor": 1,
    "group.initial.rebalance.delay.ms": 0,
    "group.consumer.min.session.timeout.ms": 1000,
    "group.consumer.min.heartbeat.interval.ms": 500,
}


def configs(broker, *args):
    return on(broker, "configs", "--entity-type", "groups", *args)


def describe(broker, group, *extra):
    return configs(broker, "--entity-name", group, "--describe", *extra).ok().stdout


def test_set_describe_and_delete_a_groups_configs_with_the_cli(start_broker):
    b = start_broker(overrides=BROKER)
    assert describe(b, "orders") == "Dynamic configs for group orders are:\n"
    out = configs(b, "--entity-name", "orders", "--alter", "--add-config",
                  "consumer.heartbeat.interval.ms=6000,consumer.session.timeout.ms=50000").ok()
    assert out.stdout == "Completed updating config for group orders.\n"
    # It acts once the broker's metadata image has it.
    expected = ("Dynamic configs for group orders are:\n"
                "  consumer.heartbeat.interval.ms=6000 sensitive=false "
                "synonyms={DYNAMIC_GROUP_CONFIG:consumer.heartbeat.interval.ms=6000}\n"
                "  consumer.session.timeout.ms=50000 sensitive=false "
                "synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=50000}\n")
    wait_until(lambda: describe(b, "orders") == expected, 30, "the group's configs")
    configs(b, "--entity-name", "orders", "--alter", "--delete-config",
            "consumer.session.timeout.ms").ok()
    wait_until(lambda: "consumer.session.timeout.ms" not in describe(b, "orders"), 30,
               "the deletion")
    assert describe(b, "orders", "--all") == (
        "All configs for group orders are:\n"
        "  consumer.heartbeat.interval.ms=6000 sensitive=false "
        "synonyms={DYNAMIC_GROUP_CONFIG:consumer.heartbeat.interval.ms=6000}\n"
        "  consumer.session.timeout.ms=45000 sensitive=false "
        "synonyms={DEFAULT_CONFIG:consumer.session.timeout.ms=45000}\n")
    # Another group has none of them.
    assert describe(b, "payments") == "Dynamic configs for group payments are:\n"


def test_what_kafka_refuses_is_refused_with_its_message(start_broker):
    b = start_broker(overrides=BROKER)

    def refused(*args):
        return configs(b, "--entity-name", "g", "--alter", *args).failed().error

    assert "consumer.session.timeout.ms must be less than or equal to " \
        "group.consumer.max.session.timeout.ms" in refused(
            "--add-config", "consumer.session.timeout.ms=60001")
    assert "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms" in \
        refused("--add-config",
                "consumer.session.timeout.ms=2000,consumer.heartbeat.interval.ms=2000")
    assert "Unknown group config name: session.timeout.ms" in refused(
        "--add-config", "session.timeout.ms=50000")
    assert "share groups" in refused("--add-config", "share.session.timeout.ms=50000")
    assert "Invalid config(s): consumer.session.timeout.ms" in refused(
        "--delete-config", "consumer.session.timeout.ms")
    assert "--entity-default" in configs(b, "--entity-default", "--describe").failed().error
    # On the wire: the default group resource, and a describe without a name.
    with kw.KafkaConnection.to(b) as conn:
        assert describe_group_resource(conn, "") == (
            kw.INVALID_REQUEST, "Group name must not be empty")
        assert alter_group_resource(conn, "", "consumer.session.timeout.ms", "50000") == (
            kw.INVALID_REQUEST, "Default group resources are not allowed.")
    assert describe(b, "g") == "Dynamic configs for group g are:\n"


def describe_group_resource(conn, name):
    """DescribeConfigs v3 of group `name`: (error code, message)."""
    body = (kw.int32(1) + kw.int8(32) + kw.string(name) + kw.int32(-1) +
            kw.boolean(False) + kw.boolean(False))
    r = kw.Reader(conn.roundtrip(32, 3, body))
    r.int32()  # throttle
    assert r.int32() == 1
    code, message = r.int16(), r.string()
    return code, message


def alter_group_resource(conn, name, key, value):
    """IncrementalAlterConfigs v0 SET key=value on group `name`: (error code, message)."""
    body = (kw.int32(1) + kw.int8(32) + kw.string(name) + kw.int32(1) + kw.string(key) +
            kw.int8(0) + kw.string(value) + kw.boolean(False))
    r = kw.Reader(conn.roundtrip(44, 0, body))
    r.int32()  # throttle
    assert r.int32() == 1
    code, message = r.int16(), r.string()
    return code, message


def test_a_member_gets_the_groups_interval_and_is_fenced_after_its_session(start_broker):
    b = start_broker(overrides=BROKER)
    create_topics(b.bootstrap, {"gc": 2})
    configs(b, "--entity-name", "gcg", "--alter", "--add-config",
            "consumer.heartbeat.interval.ms=700,consumer.session.timeout.ms=2000").ok()
    wait_until(lambda: "consumer.session.timeout.ms=2000" in describe(b, "gcg"), 30,
               "the group's configs")
    member = uuid.uuid4().hex
    with kw.KafkaConnection.to(b) as conn:
        wait_until(lambda: gw.find_coordinator(conn, 4, ["gcg"])[0]["error_code"] == gw.NONE,
                   30, "a coordinator")
        joined = {}

        def join():
            joined.update(gw.consumer_group_heartbeat(conn, "gcg", member, 0, ["gc"]))
            return joined["error_code"] == gw.NONE
        wait_until(join, 30, "the join")
        assert joined["heartbeat_interval_ms"] == 700
        assert joined["member_epoch"] >= 1
        # No more heartbeats: fenced after the group's 2 s, not the broker's 45 s.
        started = time.monotonic()

        def state():
            # None while some __consumer_offsets partition still loads
            # (COORDINATOR_LOAD_IN_PROGRESS for the whole listing).
            error, groups = gw.list_groups(conn, 4)
            if error != gw.NONE:
                return None
            return next((g["state"] for g in groups if g["group_id"] == "gcg"), None)
        wait_until(lambda: state() == "Empty", 30, "the member fenced")
        assert time.monotonic() - started < 20
        assert gw.consumer_group_heartbeat(conn, "gcg", member, joined["member_epoch"])[
            "error_code"] == gw.UNKNOWN_MEMBER_ID
