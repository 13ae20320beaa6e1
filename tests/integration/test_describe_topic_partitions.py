"""DescribeTopicPartitions (API 75, KIP-966) at the byte level: topics in name
order, at most ResponsePartitionLimit partitions per response with a cursor
to go on from, unknown and invalid names, and a cursor that names a topic not
asked for."""
import pytest

import kafka_wire as kw
from confluent_kafka.admin import AdminClient, NewTopic

API = 75


def request(topics, limit=2000, cursor=None) -> bytes:
    body = kw.compact_array([kw.compact_string(t) + kw.uvarint(0) for t in topics])
    body += kw.int32(limit)
    if cursor is None:
        body += kw.int8(-1)
    else:
        body += kw.int8(1) + kw.compact_string(cursor[0]) + kw.int32(cursor[1]) + kw.uvarint(0)
    return body + kw.uvarint(0)


def parse(body: bytes):
    r = kw.Reader(body)
    r.int32()  # throttle
    topics = []
    for _ in range(r.array_length(True)):
        err = r.int16()
        name = r.compact_string()
        r.uuid()
        r.boolean()
        parts = []
        for _ in range(r.array_length(True)):
            perr = r.int16()
            index = r.int32()
            leader = r.int32()
            r.int32()  # leader epoch
            for _ in range(4):  # replicas, isr, elr, last known elr
                n = r.array_length(True)
                for _ in range(max(n, 0)):
                    r.int32()
            for _ in range(r.array_length(True)):  # offline
                r.int32()
            r.tagged_fields()
            parts.append((index, leader, perr))
        r.int32()  # authorized operations
        r.tagged_fields()
        topics.append((name, err, parts))
    cursor = None
    if r.int8() >= 0:
        cursor = (r.compact_string(), r.int32())
        r.tagged_fields()
    r.tagged_fields()
    r.end()
    return topics, cursor


def describe(conn, topics, limit=2000, cursor=None):
    return parse(conn.roundtrip(API, 0, request(topics, limit, cursor)))


@pytest.fixture
def topics(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    futures = admin.create_topics([NewTopic("dtp-b", 3, 1), NewTopic("dtp-a", 2, 1)])
    for f in futures.values():
        f.result(60)
    return broker


def test_named_topics_come_in_name_order_with_their_partitions(topics):
    with kw.KafkaConnection.to(topics) as conn:
        got, cursor = describe(conn, ["dtp-b", "dtp-a", "dtp-missing", "bad/name"])
    assert cursor is None
    by_name = {name: (err, parts) for name, err, parts in got}
    assert [n for n, _, _ in got if by_name[n][0] == kw.NONE] == ["dtp-a", "dtp-b"]
    assert [p[0] for p in by_name["dtp-b"][1]] == [0, 1, 2]
    assert all(leader == 1 for _, leader, _ in by_name["dtp-a"][1])
    assert by_name["dtp-missing"][0] == kw.UNKNOWN_TOPIC_OR_PARTITION
    assert by_name["bad/name"][0] == kw.INVALID_TOPIC_EXCEPTION


def test_a_partition_limit_pages_with_a_cursor(topics):
    with kw.KafkaConnection.to(topics) as conn:
        first, cursor = describe(conn, ["dtp-a", "dtp-b"], limit=3)
        assert [(n, [p[0] for p in ps]) for n, _, ps in first] == [("dtp-a", [0, 1]),
                                                                  ("dtp-b", [0])]
        assert cursor == ("dtp-b", 1)
        second, cursor = describe(conn, ["dtp-a", "dtp-b"], limit=3, cursor=cursor)
        assert [(n, [p[0] for p in ps]) for n, _, ps in second] == [("dtp-b", [1, 2])]
        assert cursor is None
        # A limit met at a topic's end points at the next topic's start.
        _, cursor = describe(conn, ["dtp-a", "dtp-b"], limit=2)
        assert cursor == ("dtp-b", 0)
        # No names: every topic from the cursor on.
        every, _ = describe(conn, [], cursor=("dtp-a", 1))
        names = [n for n, _, _ in every]
        assert names[:2] == ["dtp-a", "dtp-b"] and names == sorted(names)
        assert [p[0] for p in every[0][2]] == [1]


def test_a_cursor_on_a_topic_not_asked_for_is_an_invalid_request(topics):
    with kw.KafkaConnection.to(topics) as conn:
        got, cursor = describe(conn, ["dtp-a"], cursor=("dtp-b", 0))
        assert got == [("dtp-a", kw.INVALID_REQUEST, [])] and cursor is None
        got, _ = describe(conn, ["dtp-a"], cursor=("dtp-a", -1))
        assert got == [("dtp-a", kw.INVALID_REQUEST, [])]
