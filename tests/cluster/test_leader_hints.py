"""KIP-951 on two nodes: a Produce v10+ sent to a replica that does not lead
the partition is answered NOT_LEADER_OR_FOLLOWER with the current leader and
leader epoch (CurrentLeader) and that leader's endpoint (NodeEndpoints), so a
client can go there without asking for metadata first."""
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw
from samsa_harness import wait_until
from test_idempotence import record_batch

UNKNOWN_TOPIC_OR_PARTITION = 3
NOT_LEADER_OR_FOLLOWER = 6


def produce_v10(conn, topic, batch):
    """Produce v10 (flexible) of one batch to partition 0: (error, current
    leader (id, epoch) or None, {node id: (host, port)})."""
    body = (kw.compact_string(None) + kw.int16(-1) + kw.int32(10_000) +
            kw.compact_array([kw.compact_string(topic) + kw.compact_array(
                [kw.int32(0) + kw.uvarint(len(batch) + 1) + batch + kw.EMPTY_TAGS]) +
                kw.EMPTY_TAGS]) + kw.EMPTY_TAGS)
    cid = conn.send_request(0, 10, body, header_version=2)
    r = kw.Reader(conn.read_frame())
    assert r.int32() == cid
    r.tagged_fields()
    assert r.uvarint() == 2 and r.compact_string() == topic and r.uvarint() == 2
    assert r.int32() == 0
    error = r.int16()
    r.int64(), r.int64(), r.int64()  # base offset, log append time, log start offset
    for _ in range(r.uvarint() - 1):  # record errors
        r.int32(), r.compact_string(), r.tagged_fields()
    r.compact_string()  # error message
    current = None
    for tag, value in r.tagged_fields().items():
        if tag == 0:
            t = kw.Reader(value)
            current = (t.int32(), t.int32())
            t.tagged_fields()
    r.tagged_fields()  # topic
    r.int32()  # throttle
    endpoints = {}
    for tag, value in r.tagged_fields().items():
        if tag == 0:
            e = kw.Reader(value)
            for _ in range(e.uvarint() - 1):
                node, host, port = e.int32(), e.compact_string(), e.int32()
                e.compact_string()  # rack
                e.tagged_fields()
                endpoints[node] = (host, port)
    r.end()
    return error, current, endpoints


def test_a_produce_to_a_follower_names_the_leader_and_its_endpoint(cluster):
    c = cluster(2)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic("hinted", 1, 2)])["hinted"].result(30)

    def placed():
        p = admin.list_topics("hinted", timeout=5).topics["hinted"].partitions.get(0)
        return p if p is not None and p.leader > 0 and len(p.isrs) == 2 else None
    part = wait_until(placed, 30, "a leader and two in-sync replicas")
    follower = c.node(2 if part.leader == 1 else 1)
    leader = c.node(part.leader)
    # The metadata answer above may come from the leader before the follower
    # has applied the topic's records; until it has, the follower does not
    # know the topic and answers UNKNOWN_TOPIC_OR_PARTITION, as Kafka does.
    def answered():
        with kw.KafkaConnection.to(follower) as conn:
            answer = produce_v10(conn, "hinted", record_batch(-1, -1, -1, [b"x"]))
        return answer if answer[0] != UNKNOWN_TOPIC_OR_PARTITION else None
    error, current, endpoints = wait_until(answered, 30, "the follower to know the topic")
    assert error == NOT_LEADER_OR_FOLLOWER
    assert current is not None and current[0] == leader.node_id and current[1] >= 0
    assert endpoints == {leader.node_id: (leader.host, leader.port)}
