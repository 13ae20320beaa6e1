"""ACLs are cluster metadata (docs/acls.md): an ACL created through a broker
that is not the controller (a forwarded CreateAcls) is enforced by every
broker, a replicated topic works for a user the ACLs allow, and a deletion
reaches them all. The nodes reach each other as User:ANONYMOUS, a super user."""
import concurrent.futures
import uuid
from contextlib import closing

import pytest
from confluent_kafka import KafkaError
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import ACLOperation, ResourceType

from cluster_harness import FAST, Cluster, with_sasl_listeners
from samsa_harness import samsa_bin, wait_until
from test_acls import AUTHORIZER, EVERYTHING, JAAS, acl_admin, allow, as_user, consume, produce


@pytest.fixture
def acl_cluster():
    c = with_sasl_listeners(Cluster(3, overrides=FAST, binary=samsa_bin()), {
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "authorizer.class.name": AUTHORIZER,
        "super.users": "User:admin;User:ANONYMOUS",
    })
    try:
        yield c.start()
    finally:
        c.cleanup()


def described(b):
    """The ACLs node `b` holds; each kafka-python admin client is closed at once."""
    with closing(acl_admin(b)) as a:
        return a.describe_acls(EVERYTHING)[0]


def test_acls_created_through_one_broker_are_enforced_by_all(acl_cluster):
    c = acl_cluster
    leader = c.wait_for_leader().leader_id
    via = next(b for b in c.nodes if b.node_id != leader)  # forwarded to the controller
    topic, group = f"audit-{uuid.uuid4().hex[:6]}", "auditors"
    admin = AdminClient(as_user(via, "admin"))

    def created():
        # Each try is bounded below the overall deadline, so a request that a
        # loaded machine answers late is tried again rather than ending the test.
        f = admin.create_topics([NewTopic(topic, 3, 3)], request_timeout=15)[topic]
        try:
            e = f.exception(20)
        except concurrent.futures.TimeoutError:
            return False
        # A retry after an answer that was lost finds the topic there.
        return e is None or e.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS

    wait_until(created, 90, "the replicated topic created")
    for b in c.nodes:
        assert {e.code() for e in produce(b, "alice", topic)} == {
            KafkaError.TOPIC_AUTHORIZATION_FAILED}

    def granted():
        with closing(acl_admin(via)) as a:
            r = a.create_acls([
                allow("alice", ACLOperation.WRITE, ResourceType.TOPIC, topic),
                allow("alice", ACLOperation.READ, ResourceType.TOPIC, topic),
                allow("alice", ACLOperation.READ, ResourceType.GROUP, group)])
        return not r["failed"]

    wait_until(granted, 30, "the ACLs accepted (the controller reachable)")
    # Every node first: a producer's metadata may come from any of them, and
    # one that has not applied the ACLs yet answers TOPIC_AUTHORIZATION_FAILED
    # for the topic (librdkafka then sees its partition count drop to 0, and
    # confluent-kafka 2.0.2 left a TypeError set from that delivery path,
    # which surfaced as a SystemError in this test under load).
    for b in c.nodes:
        wait_until(lambda: len(described(b)) == 3, 30,
                   f"node {b.node_id} holds the ACLs")
    for b in c.nodes:
        # acks=all through the ISR: replication and the controller work as ANONYMOUS.
        # DescribeAcls may have been answered by another node than the
        # partitions' leaders, which can apply the ACL records a moment later;
        # a produce they refuse writes nothing, so it is tried again.
        wait_until(lambda: produce(b, "alice", topic) == [None] * 3, 30,
                   f"alice's records accepted through node {b.node_id}")
    values, errors = consume(via, "alice", topic, group, 9)
    assert not errors and len(values) == 9

    with closing(acl_admin(c.node(leader))) as a:
        deleted = a.delete_acls([EVERYTHING])
    assert len(deleted[0][1]) == 3
    for b in c.nodes:
        wait_until(lambda: not described(b), 30,
                   f"node {b.node_id} forgets the ACLs")
    for b in c.nodes:
        wait_until(lambda: {e and e.code() for e in produce(b, "alice", topic)} == {
            KafkaError.TOPIC_AUTHORIZATION_FAILED}, 30, f"node {b.node_id}'s leaders refuse alice")
    assert "event=authorization_denied" not in "".join(
        line for b in c.nodes for line in b.log_text().splitlines(keepends=True)
        if "User:ANONYMOUS" in line)
