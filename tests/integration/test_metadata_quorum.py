"""The metadata log as a Raft log on one node: the node leads its quorum of one
(DescribeQuorum), the controller listener speaks the KRaft and broker-lifecycle
APIs and the client listener does not, and metadata snapshots (`.checkpoint`)
are taken and restore the image after a restart."""
import struct

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw
from samsa_harness import wait_until

VOTE, BEGIN_QUORUM_EPOCH, BROKER_REGISTRATION, BROKER_HEARTBEAT = 52, 53, 62, 63


def describe_quorum(broker):
    body = (kw.compact_array([kw.compact_string("__cluster_metadata")
                              + kw.compact_array([kw.int32(0) + b"\x00"]) + b"\x00"])
            + b"\x00")
    with kw.KafkaConnection.to(broker) as conn:
        data = conn.roundtrip(kw.API_DESCRIBE_QUORUM, 0, body)
    r = kw.Reader(data)
    assert r.int16() == 0
    assert r.uvarint() - 1 == 1
    assert r.compact_string() == "__cluster_metadata"
    assert r.uvarint() - 1 == 1
    assert r.int32() == 0
    err, leader, epoch, hw = r.int16(), r.int32(), r.int32(), r.int64()
    voters = {}
    for _ in range(r.uvarint() - 1):
        rid, leo = r.int32(), r.int64()
        r.tagged_fields()
        voters[rid] = leo
    return err, leader, epoch, hw, voters


def test_a_single_node_leads_its_own_quorum(broker):
    err, leader, epoch, hw, voters = describe_quorum(broker)
    assert err == 0
    assert leader == broker.node_id
    assert epoch >= 1
    assert list(voters) == [broker.node_id]
    assert voters[broker.node_id] >= hw > 0


def test_kraft_apis_are_served_on_the_controller_listener_only(broker):
    with kw.KafkaConnection.to(broker) as conn:
        client = conn.api_versions(3).api_keys
    with kw.KafkaConnection(broker.host, broker.controller_port) as conn:
        controller = conn.api_versions(3).api_keys
    for key in (VOTE, BEGIN_QUORUM_EPOCH, BROKER_REGISTRATION, BROKER_HEARTBEAT):
        assert key not in client, key
        assert key in controller, key
    assert kw.API_DESCRIBE_QUORUM in client and kw.API_DESCRIBE_QUORUM in controller
    assert kw.API_METADATA in client and kw.API_METADATA not in controller


def checkpoints(broker):
    d = broker.data_dir / "__cluster_metadata-0"
    return sorted(p.name for p in d.glob("*.checkpoint"))


def snapshot_batch_kinds(data: bytes) -> list:
    """Each record batch of a snapshot file: "data", or "control:<type>" from
    the control record key (version int16, type int16) of its first record."""
    kinds, pos = [], 0
    while pos + 61 <= len(data):
        length = struct.unpack_from(">i", data, pos + 8)[0]
        attributes = struct.unpack_from(">h", data, pos + 21)[0]
        if attributes & 0x20:
            r = kw.Reader(data[pos + 61:pos + 12 + length])
            r.uvarint()  # record length (zigzag varints; only skipped here)
            r.int8()     # attributes
            r.uvarint()  # timestamp delta
            r.uvarint()  # offset delta
            r.uvarint()  # key length
            r.int16()    # control key version
            kinds.append(f"control:{r.int16()}")
        else:
            kinds.append("data")
        pos += 12 + length
    assert pos == len(data), "a snapshot ends with a whole batch"
    return kinds


def test_metadata_snapshots_are_taken_and_restore_the_image(start_broker):
    # Tiny threshold: every committed batch is followed by a snapshot.
    b = start_broker(overrides={"metadata.log.max.record.bytes.between.snapshots": 1})
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    names = [f"snap-{i}" for i in range(5)]
    for f in admin.create_topics([NewTopic(n, num_partitions=2, replication_factor=1)
                                  for n in names]).values():
        f.result(timeout=20)
    snaps = wait_until(lambda: checkpoints(b), 10, "a .checkpoint file")
    # Kafka's name: <end offset, 20 digits>-<epoch, 10 digits>.checkpoint
    name = snaps[-1]
    assert len(name.split("-")[0]) == 20 and name.endswith(".checkpoint"), name
    # Laid out as Kafka's: a SnapshotHeader control batch first, a
    # SnapshotFooter one last, the image's records between.
    kinds = snapshot_batch_kinds((b.data_dir / "__cluster_metadata-0" / name).read_bytes())
    assert kinds[0] == "control:3" and kinds[-1] == "control:4", kinds
    assert len(kinds) >= 3 and all(k == "data" for k in kinds[1:-1]), kinds
    b.stop()
    b.start()
    md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10)
    for n in names:
        assert n in md.topics and len(md.topics[n].partitions) == 2, n
    assert "event=metadata_snapshot" in b.log_text()
    # And the node still commits new changes after the restart.
    again = AdminClient({"bootstrap.servers": b.bootstrap})
    f = again.create_topics([NewTopic("after-restart", num_partitions=1, replication_factor=1)])
    f["after-restart"].result(timeout=20)
    check = AdminClient({"bootstrap.servers": b.bootstrap})
    wait_until(lambda: "after-restart" in check.list_topics(timeout=5).topics, 10,
               "the topic created after the restart")


def test_metadata_retention_keeps_old_snapshots_and_log_until_its_limits(start_broker):
    """As Kafka's: a snapshot does not drop the log below it; the minutely
    clean does, once metadata.max.retention.bytes (or .ms) is exceeded, down to
    the newest snapshot."""
    b = start_broker(overrides={"metadata.log.max.record.bytes.between.snapshots": 1})
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    names = [f"kept-{i}" for i in range(4)]
    for n in names:
        admin.create_topics([NewTopic(n, num_partitions=1, replication_factor=1)])[n].result(
            timeout=20)
    wait_until(lambda: len(checkpoints(b)) >= 3, 20, "three snapshots")
    meta = b.data_dir / "__cluster_metadata-0"
    # Within the default 100 MiB and 7 days: every snapshot and the log from 0 stay.
    assert (meta / "00000000000000000000.log").exists()
    kept = checkpoints(b)
    b.stop()
    # Restarted with no room at all: the first clean leaves the newest snapshot.
    b.overrides["metadata.max.retention.bytes"] = "0"
    b.start()
    line = b.wait_for_log("event=metadata_log_cleaned")
    assert "snapshots=1" in line, line
    # (Commits around the restart snapshot again; the older ones are gone.)
    assert not set(kept[:-1]) & set(checkpoints(b)), (kept, checkpoints(b))
    md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10)
    assert all(n in md.topics for n in names), md.topics


def test_a_client_cannot_fetch_the_metadata_log_and_garbage_kraft_requests_close(broker):
    # Fetch v4 of __cluster_metadata-0 on the client listener: not a topic there.
    body = (kw.int32(-1) + kw.int32(0) + kw.int32(0) + kw.int32(1 << 20) + kw.int8(0)
            + kw.int32(1) + kw.string("__cluster_metadata") + kw.int32(1)
            + kw.int32(0) + struct.pack(">q", 0) + kw.int32(1 << 20))
    with kw.KafkaConnection.to(broker) as conn:
        data = conn.roundtrip(1, 4, body)
    r = kw.Reader(data)
    r.int32()
    assert r.int32() == 1 and r.string() == "__cluster_metadata"
    assert r.int32() == 1
    r.int32()
    assert r.int16() == kw.UNKNOWN_TOPIC_OR_PARTITION
    # A Vote whose body is not a VoteRequest closes only that connection.
    with kw.KafkaConnection(broker.host, broker.controller_port) as conn:
        conn.send_request(VOTE, 0, b"\x07garbage")
        with pytest.raises((EOFError, ConnectionError)):
            conn.read_frame(5)
    err, leader, _, _, _ = describe_quorum(broker)
    assert err == 0 and leader == broker.node_id
