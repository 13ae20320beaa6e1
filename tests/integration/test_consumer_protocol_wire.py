"""The KIP-848 consumer protocol on the wire, for what no client here sends:
a consumer-protocol member committing with an OffsetCommit older than v9.
Kafka answers each partition UNSUPPORTED_VERSION then (the v8 field is a
generation, not a member epoch), after checking that the member exists."""
import uuid

import group_wire as gw
import kafka_wire as kw
from samsa_harness import wait_until
from test_consumer_groups import GROUP_BROKER, create_topics


def join(conn, group, member_id, topics):
    """Joins once the coordinator has loaded; returns the heartbeat answer."""
    answer = {}

    def joined():
        answer.update(gw.consumer_group_heartbeat(conn, group, member_id, 0, topics))
        return answer["error_code"] == gw.NONE
    wait_until(lambda: gw.find_coordinator(conn, 4, [group])[0]["error_code"] == gw.NONE,
               15, "a coordinator")
    wait_until(joined, 15, "the join")
    return answer


def test_a_consumer_protocol_member_must_commit_with_offset_commit_v9(start_broker):
    broker = start_broker(overrides=GROUP_BROKER)
    create_topics(broker.bootstrap, {"cp": 2})
    member = uuid.uuid4().hex
    with kw.KafkaConnection.to(broker) as conn:
        joined = join(conn, "cpg", member, ["cp"])
        epoch = joined["member_epoch"]
        assert epoch >= 1
        offsets = {("cp", 0): 5, ("cp", 1): 7}
        # v8 at the member's current epoch: every partition refused.
        assert gw.offset_commit_flexible(conn, "cpg", offsets, epoch, member, 8) == {
            ("cp", 0): gw.UNSUPPORTED_VERSION, ("cp", 1): gw.UNSUPPORTED_VERSION}
        # An unknown member is told so first, whatever the version.
        assert gw.offset_commit_flexible(conn, "cpg", offsets, epoch, "nobody", 8) == {
            ("cp", 0): gw.UNKNOWN_MEMBER_ID, ("cp", 1): gw.UNKNOWN_MEMBER_ID}
        # v9 with the same epoch commits.
        assert gw.offset_commit_flexible(conn, "cpg", offsets, epoch, member, 9) == {
            ("cp", 0): gw.NONE, ("cp", 1): gw.NONE}
        assert gw.offset_fetch(conn, "cpg", {"cp": [0, 1]}, 5) == (
            gw.NONE, {("cp", 0): (5, gw.NONE), ("cp", 1): (7, gw.NONE)})
        left = gw.consumer_group_heartbeat(conn, "cpg", member, -1)
        assert left["error_code"] == gw.NONE and left["member_epoch"] == -1


def test_a_commit_at_an_older_member_epoch_is_taken_for_partitions_held_then(start_broker):
    """KIP-1251 (Kafka 4.3): once a member's epoch has moved on, a commit it
    sent at its previous epoch still counts for the partitions it had then;
    for any other partition it is STALE_MEMBER_EPOCH."""
    broker = start_broker(overrides=GROUP_BROKER)
    create_topics(broker.bootstrap, {"kept": 2, "other": 1})
    first, second = uuid.uuid4().hex, uuid.uuid4().hex
    with kw.KafkaConnection.to(broker) as conn:
        assert join(conn, "epochs", first, ["kept"])["member_epoch"] == 1
        # A second member, on another topic, moves the group to epoch 2;
        # the first member keeps both partitions and reaches 2 with them.
        assert join(conn, "epochs", second, ["other"])["member_epoch"] == 2
        assert gw.consumer_group_heartbeat(conn, "epochs", first, 1)["member_epoch"] == 2
        assert gw.offset_commit_flexible(conn, "epochs", {("kept", 0): 5, ("kept", 1): 6},
                                         1, first, 9) == {("kept", 0): gw.NONE,
                                                          ("kept", 1): gw.NONE}
        # A partition it never had, and an epoch it never had.
        assert gw.offset_commit_flexible(conn, "epochs", {("kept", 0): 7, ("other", 0): 7},
                                         1, first, 9) == {("kept", 0): gw.NONE,
                                                          ("other", 0): gw.STALE_MEMBER_EPOCH}
        assert gw.offset_commit_flexible(conn, "epochs", {("kept", 0): 8}, 3, first, 9) == {
            ("kept", 0): gw.STALE_MEMBER_EPOCH}
        assert gw.offset_fetch(conn, "epochs", {"kept": [0, 1]}, 5) == (
            gw.NONE, {("kept", 0): (7, gw.NONE), ("kept", 1): (6, gw.NONE)})
