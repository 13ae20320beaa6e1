"""ACLs (docs/acls.md): StandardAuthorizer with the ACLs in the metadata log.
An admin (a super user) manages ACLs with kafka-python's admin client;
confluent-kafka clients signed in as other users are refused what no ACL
allows them (TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED), a DENY
wins over an ALLOW, prefixed and wildcard patterns apply, the ACLs outlive a
restart, and without an authorizer the ACL APIs answer SECURITY_DISABLED."""

import uuid

import pytest
from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,
                         ACLResourcePatternType, KafkaAdminClient, ResourcePattern,
                         ResourcePatternFilter, ResourceType)
from kafka.errors import ClusterAuthorizationFailedError, InvalidRequestError, SecurityDisabledError

from kafka_wire import KafkaConnection, Reader, array, boolean, int32, string
from samsa_cli import on
from samsa_harness import Broker, free_ports, wait_until
from test_sasl import sasl_authenticate, sasl_handshake

AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" user_admin="admin-secret" '
        'user_alice="alice-secret" user_bob="bob-secret";')
PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}


def acl_broker(extra=None):
    b = Broker()
    b.port, b.controller_port, b.sasl_port = free_ports(3)
    props = {
        "listeners": f"PLAINTEXT://127.0.0.1:{b.port},"
                     f"SASL_PLAINTEXT://127.0.0.1:{b.sasl_port},"
                     f"CONTROLLER://127.0.0.1:{b.controller_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "CONTROLLER:PLAINTEXT",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "authorizer.class.name": AUTHORIZER,
        # The node's own PLAINTEXT peers (controller, replication) are ANONYMOUS.
        "super.users": "User:admin;User:ANONYMOUS",
        "offsets.topic.replication.factor": 1,
        "group.initial.rebalance.delay.ms": 0,
    }
    props.update(extra or {})
    b.extra_properties.update({k: None if v is None else str(v) for k, v in props.items()})
    b._write_properties()
    return b


@pytest.fixture
def brokers():
    started = []
    yield started
    for b in started:
        b.cleanup()


@pytest.fixture
def broker(brokers):
    b = acl_broker()
    brokers.append(b)
    return b.start()


def as_user(b, user):
    return {"bootstrap.servers": f"127.0.0.1:{b.sasl_port}",
            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
            "sasl.username": user, "sasl.password": PASSWORDS[user]}


def acl_admin(b, user="admin"):
    return KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{b.sasl_port}",
                            security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                            sasl_plain_username=user, sasl_plain_password=PASSWORDS[user],
                            request_timeout_ms=30000)


def allow(user, op, rtype, name, pattern=ACLResourcePatternType.LITERAL,
          permission=ACLPermissionType.ALLOW):
    return ACL(principal=f"User:{user}", host="*", operation=op, permission_type=permission,
               resource_pattern=ResourcePattern(rtype, name, pattern))


EVERYTHING = ACLFilter(principal=None, host=None, operation=ACLOperation.ANY,
                       permission_type=ACLPermissionType.ANY,
                       resource_pattern=ResourcePatternFilter(ResourceType.ANY, None,
                                                              ACLResourcePatternType.ANY))


def create_topics(b, *names):
    admin = AdminClient(as_user(b, "admin"))
    for f in admin.create_topics([NewTopic(n, 1, 1) for n in names]).values():
        f.result(30)


def produce(b, user, topic, n=3):
    """Delivery outcomes of `n` records: None for each that was written."""
    p = Producer({**as_user(b, user), "message.timeout.ms": 10000})
    outcomes = []
    for i in range(n):
        p.produce(topic, f"{user}-{i}".encode(), on_delivery=lambda e, m: outcomes.append(e))
    p.flush(30)
    assert len(outcomes) == n
    return outcomes


def consume(b, user, topic, group, n):
    """The values read, and the first error the consumer was told."""
    c = Consumer({**as_user(b, user), "group.id": group, "auto.offset.reset": "earliest",
                  "session.timeout.ms": 6000})
    c.subscribe([topic])
    values, errors = [], []

    def done():
        m = c.poll(0.5)
        if m is not None:
            if m.error():
                errors.append(m.error())
            else:
                values.append(m.value())
        return len(values) >= n or errors

    try:
        wait_until(done, 30, "records or an error")
    finally:
        c.close()
    return values, errors


def test_acls_are_managed_through_the_admin_api_and_kept(broker):
    admin = acl_admin(broker)
    read_orders = allow("alice", ACLOperation.READ, ResourceType.TOPIC, "orders")
    deny_pre = allow("bob", ACLOperation.WRITE, ResourceType.TOPIC, "pre",
                     ACLResourcePatternType.PREFIXED, ACLPermissionType.DENY)
    bad_cluster = allow("bob", ACLOperation.ALTER, ResourceType.CLUSTER, "not-the-cluster")
    created = admin.create_acls([read_orders, deny_pre, bad_cluster])
    assert len(created["succeeded"]) == 2
    # (kafka-python keeps the error's class, not its message: the message is
    # checked in tests/unit/metadata/acl_changes_test.cc.)
    (failed_acl, error), = created["failed"]
    assert error is InvalidRequestError and failed_acl.resource_pattern.resource_name == "not-the-cluster"
    # Creating an existing ACL again succeeds and adds nothing.
    assert len(admin.create_acls([read_orders])["succeeded"]) == 1
    acls, error = admin.describe_acls(EVERYTHING)
    assert error.errno == 0
    assert sorted((a.principal, a.resource_pattern.resource_name) for a in acls) == [
        ("User:alice", "orders"), ("User:bob", "pre")]
    # A MATCH filter finds the patterns that apply to a name: the prefixed one.
    matching, _ = admin.describe_acls(ACLFilter(
        principal=None, host=None, operation=ACLOperation.ANY,
        permission_type=ACLPermissionType.ANY,
        resource_pattern=ResourcePatternFilter(ResourceType.TOPIC, "prefix-topic",
                                               ACLResourcePatternType.MATCH)))
    assert [a.resource_pattern.resource_name for a in matching] == ["pre"]
    # Only a principal with ALTER on the cluster may change ACLs.
    refused = acl_admin(broker, "alice").create_acls([deny_pre])
    assert [e for _, e in refused["failed"]] == [ClusterAuthorizationFailedError]
    # The ACLs outlive a restart (replayed from the metadata log).
    broker.restart()
    acls, _ = acl_admin(broker).describe_acls(EVERYTHING)
    assert len(acls) == 2
    deleted = acl_admin(broker).delete_acls([ACLFilter(
        principal="User:bob", host=None, operation=ACLOperation.ANY,
        permission_type=ACLPermissionType.ANY,
        resource_pattern=ResourcePatternFilter(ResourceType.ANY, None,
                                               ACLResourcePatternType.ANY))])
    (_, matched, _), = deleted
    assert [m[0].resource_pattern.resource_name for m in matched] == ["pre"]
    acls, _ = acl_admin(broker).describe_acls(EVERYTHING)
    assert [a.principal for a in acls] == ["User:alice"]


def group_authorized_operations(b, user, group):
    """DescribeGroups v3 with include_authorized_operations, on the wire as
    `user` (kafka-python 2.0 does not ask for them)."""
    with KafkaConnection("127.0.0.1", b.sasl_port) as conn:
        assert sasl_handshake(conn, "PLAIN")[0] == 0
        token = f"\0{user}\0{PASSWORDS[user]}".encode()
        assert sasl_authenticate(conn, token)[0] == 0
        r = Reader(conn.roundtrip(15, 3, array([string(group)]) + boolean(True)))
        r.int32()  # throttle
        assert r.int32() == 1
        assert r.int16() == 0 and r.string() == group
        r.string(), r.string(), r.string()  # state, protocol type, protocol
        assert r.int32() == 0  # no members
        return r.int32()


def test_producing_and_consuming_need_acls(broker):
    topic, secret, group = f"orders-{uuid.uuid4().hex[:6]}", "secret-topic", "billing"
    create_topics(broker, topic, secret)
    # No ACL at all: the topic is hidden from alice, and her writes fail.
    assert {e.code() for e in produce(broker, "alice", topic)} == {
        KafkaError.TOPIC_AUTHORIZATION_FAILED}
    # READ lets her see it (READ implies DESCRIBE), but not write to it: the
    # Produce request itself is refused.
    admin = acl_admin(broker)
    admin.create_acls([allow("alice", ACLOperation.READ, ResourceType.TOPIC, topic)])
    assert {e.code() for e in produce(broker, "alice", topic)} == {
        KafkaError.TOPIC_AUTHORIZATION_FAILED}
    wait_until(lambda: "event=authorization_denied principal=\"User:alice\"" in
               broker.log_text() and "operation=WRITE" in broker.log_text(), 10,
               "the denial logged")
    # WRITE on a prefix covers the topic.
    admin.create_acls([allow("alice", ACLOperation.WRITE, ResourceType.TOPIC, "orders-",
                             ACLResourcePatternType.PREFIXED)])
    assert produce(broker, "alice", topic) == [None] * 3
    # Consuming in a group needs READ on the group as well.
    values, errors = consume(broker, "alice", topic, group, 3)
    assert values == [] and errors and \
        errors[0].code() == KafkaError.GROUP_AUTHORIZATION_FAILED, errors
    admin.create_acls([allow("alice", ACLOperation.READ, ResourceType.GROUP, group)])
    values, errors = consume(broker, "alice", topic, group, 3)
    assert not errors and sorted(values) == [b"alice-0", b"alice-1", b"alice-2"]
    # KIP-430: what each may do with the group (READ implies DESCRIBE; the
    # super user has every operation of a group: READ, DELETE, DESCRIBE, and
    # DESCRIBE_CONFIGS and ALTER_CONFIGS for its configs, KIP-848).
    read, delete, describe = 1 << 3, 1 << 6, 1 << 8
    configs = (1 << 10) | (1 << 11)
    for user, ops in [("alice", read | describe),
                      ("admin", read | delete | describe | configs)]:
        assert group_authorized_operations(broker, user, group) == ops, user
    # Listing topics shows only those she may describe.
    listed = AdminClient(as_user(broker, "alice")).list_topics(timeout=30).topics
    assert topic in listed and secret not in listed
    assert secret in AdminClient(as_user(broker, "admin")).list_topics(timeout=30).topics


def test_a_deny_wins_over_any_allow(broker):
    topic = "ledger"
    create_topics(broker, topic)
    admin = acl_admin(broker)
    admin.create_acls([
        allow("bob", ACLOperation.ALL, ResourceType.TOPIC, "*"),
        allow("bob", ACLOperation.WRITE, ResourceType.TOPIC, topic,
              permission=ACLPermissionType.DENY),
    ])
    assert {e.code() for e in produce(broker, "bob", topic)} == {
        KafkaError.TOPIC_AUTHORIZATION_FAILED}
    # The wildcard ALLOW still covers every other topic (created by producing).
    other = f"free-{uuid.uuid4().hex[:6]}"
    create_topics(broker, other)
    assert produce(broker, "bob", other) == [None] * 3
    # The super user is never refused.
    assert produce(broker, "admin", topic) == [None] * 3


def test_without_an_authorizer_the_acl_apis_are_disabled(brokers):
    b = acl_broker({"authorizer.class.name": None, "super.users": None})
    brokers.append(b)
    b.start()
    with pytest.raises(SecurityDisabledError):
        acl_admin(b, "alice").describe_acls(EVERYTHING)
    # And nothing is refused.
    create_topics(b, "open")
    assert produce(b, "alice", "open") == [None] * 3


def test_an_unknown_authorizer_stops_the_broker(brokers):
    b = acl_broker({"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer"})
    brokers.append(b)
    b.start(wait_ready=False)
    assert b.wait(30) != 0
    assert "authorizer.class.name" in b.log_text()


def test_samsa_acls_adds_lists_and_removes_as_kafka_acls_does(broker):
    def acls(*args, **kw):
        return on(broker, "acls", *args, **kw)

    added = acls("--add", "--allow-principal", "User:alice", "--operation", "Read",
                 "--operation", "Write", "--topic", "orders").ok()
    assert added.stdout == (
        "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, "
        "patternType=LITERAL)`: \n \t(principal=User:alice, host=*, operation=READ, "
        "permissionType=ALLOW)\n\t(principal=User:alice, host=*, operation=WRITE, "
        "permissionType=ALLOW)\n\n")
    # Adding it again says so and adds nothing.
    again = acls("--add", "--allow-principal", "User:alice", "--operation", "Read",
                 "--topic", "orders").ok()
    assert "already exists" in again.stdout
    acls("--add", "--producer", "--idempotent", "--allow-principal", "User:bob",
         "--topic", "logs-", "--resource-pattern-type", "prefixed",
         "--transactional-id", "app").ok()
    acls("--add", "--consumer", "--allow-principal", "User:carol", "--topic", "orders",
         "--group", "billing").ok()
    listed = acls("--list").ok().stdout
    assert ("Current ACLs for resource `ResourcePattern(resourceType=TRANSACTIONAL_ID, "
            "name=app, patternType=PREFIXED)`:\n") in listed
    assert "operation=IDEMPOTENT_WRITE" in listed and "resourceType=GROUP, name=billing" in listed
    carol = acls("--list", "--principal", "User:carol").ok().stdout
    assert carol.startswith("ACLs for principal `User:carol`\n")
    assert "User:alice" not in carol and "User:bob" not in carol
    # What the ACLs allow, seen from kafka-python's admin client.
    described, _ = acl_admin(broker).describe_acls(EVERYTHING)
    assert len(described) == 2 + 6 + 3  # alice; bob: topic, transactional id, cluster; carol
    # Removing every ACL of a resource (without asking, --force).
    acls("--remove", "--force", "--topic", "orders").ok()
    assert acls("--list", "--topic", "orders").ok().stdout == ""
    # Removing one entry, after answering the question.
    acls("--remove", "--allow-principal", "User:carol", "--operation", "Read",
         "--group", "billing", input="y\n").ok()
    assert "billing" not in acls("--list").ok().stdout
    # Refusals, with kafka-acls' messages.
    bad = acls("--add", "--allow-principal", "User:x", "--operation", "Read", "--cluster")
    assert bad.failed().stdout.startswith(
        "Error while executing ACL command: ResourceType CLUSTER only supports operations")
    assert "exactly one action" in acls("--topic", "t").failed().stdout


def test_nodes_refused_cluster_action_say_why(brokers):
    """Without User:ANONYMOUS among the super users, the node's own broker
    registration (PLAINTEXT, User:ANONYMOUS) is refused: the broker warns at
    start and logs each refusal; it never serves unauthorized."""
    b = acl_broker({"super.users": "User:admin"})
    brokers.append(b)
    b.start(wait_ready=False)
    b.wait_for_log("event=authorizer_anonymous_peers", 30)
    b.wait_for_log('principal="User:ANONYMOUS" host=127.0.0.1 operation=CLUSTER_ACTION '
                   'resource=CLUSTER:kafka-cluster api=BrokerRegistration', 30)
    assert "event=broker_unfenced" not in b.log_text()


def test_elect_leaders_v0_refusal_is_on_every_partition(broker):
    """ElectLeaders v0 has no top-level error: a refused caller must read the
    refusal on each partition it named, as Kafka answers (KafkaApis)."""
    create_topics(broker, "elect-v0")
    with KafkaConnection("127.0.0.1", broker.sasl_port) as conn:
        assert sasl_handshake(conn, "PLAIN")[0] == 0
        assert sasl_authenticate(conn, b"\0alice\0alice-secret")[0] == 0
        body = array([string("elect-v0") + array([int32(0)])]) + int32(10000)
        r = Reader(conn.roundtrip(43, 0, body))
        r.int32()  # throttle
        results = {}
        for _ in range(r.int32()):
            topic = r.string()
            for _ in range(r.int32()):
                p, code, _message = r.int32(), r.int16(), r.string()
                results[(topic, p)] = code
        r.end()
    assert results == {("elect-v0", 0): 31}  # CLUSTER_AUTHORIZATION_FAILED
