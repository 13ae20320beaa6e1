"""Raw group-coordinator requests for the consumer-group tests, for what
confluent-kafka 1.7's AdminClient cannot send (DescribeGroups details,
DeleteGroups, OffsetDelete, ListGroups with a state filter, batched
FindCoordinator, multi-group OffsetFetch). Built on kafka_wire's primitives;
each function takes a kafka_wire.KafkaConnection."""
from __future__ import annotations

from typing import Optional, Sequence

import kafka_wire as kw

FIND_COORDINATOR = 10
OFFSET_COMMIT = 8
OFFSET_FETCH = 9
JOIN_GROUP = 11
LIST_GROUPS = 16
DESCRIBE_GROUPS = 15
DELETE_GROUPS = 42
OFFSET_DELETE = 47
CONSUMER_GROUP_HEARTBEAT = 68

FIRST_FLEXIBLE = {FIND_COORDINATOR: 3, OFFSET_COMMIT: 8, OFFSET_FETCH: 6, JOIN_GROUP: 6,
                  LIST_GROUPS: 3, DESCRIBE_GROUPS: 5, DELETE_GROUPS: 2, OFFSET_DELETE: 99,
                  CONSUMER_GROUP_HEARTBEAT: 0}

# Kafka error codes.
NONE = 0
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
ILLEGAL_GENERATION = 22
UNKNOWN_MEMBER_ID = 25
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
NON_EMPTY_GROUP = 68
GROUP_ID_NOT_FOUND = 69
MEMBER_ID_REQUIRED = 79
GROUP_SUBSCRIBED_TO_TOPIC = 86
STALE_MEMBER_EPOCH = 113


def flexible(api: int, version: int) -> bool:
    return version >= FIRST_FLEXIBLE[api]


def roundtrip(conn: kw.KafkaConnection, api: int, version: int, body: bytes) -> kw.Reader:
    flex = flexible(api, version)
    cid = conn.send_request(api, version, body, header_version=2 if flex else 1)
    r = kw.Reader(conn.read_frame())
    assert r.int32() == cid
    if flex:
        r.tagged_fields()
    return r


def _str(s: Optional[str], flex: bool) -> bytes:
    return kw.compact_string(s) if flex else kw.string(s)


def _arr(items: Sequence[bytes], flex: bool) -> bytes:
    return kw.compact_array(items) if flex else kw.array(items)


def find_coordinator(conn, version: int, keys: Sequence[str], key_type: int = 0) -> list[dict]:
    flex = flexible(FIND_COORDINATOR, version)
    if version >= 4:
        body = kw.int8(key_type) + _arr([_str(k, flex) for k in keys], flex)
    else:
        assert len(keys) == 1
        body = _str(keys[0], flex) + (kw.int8(key_type) if version >= 1 else b"")
    if flex:
        body += kw.EMPTY_TAGS
    r = roundtrip(conn, FIND_COORDINATOR, version, body)
    if version >= 1:
        r.int32()  # throttle
    out = []
    if version >= 4:
        for _ in range(r.array_length(flex)):
            c = {"key": r.str_(flex), "node_id": r.int32(), "host": r.str_(flex),
                 "port": r.int32(), "error_code": r.int16(), "error_message": r.str_(flex)}
            r.tagged_fields()
            out.append(c)
    else:
        c = {"key": keys[0], "error_code": r.int16()}
        if version >= 1:
            c["error_message"] = r.str_(flex)
        c.update(node_id=r.int32(), host=r.str_(flex), port=r.int32())
        out.append(c)
    if flex:
        r.tagged_fields()
    r.end()
    return out


def list_groups(conn, version: int = 4, states: Sequence[str] = ()) -> tuple[int, list[dict]]:
    flex = flexible(LIST_GROUPS, version)
    body = b""
    if version >= 4:
        body += _arr([_str(s, flex) for s in states], flex)
    if flex:
        body += kw.EMPTY_TAGS
    r = roundtrip(conn, LIST_GROUPS, version, body)
    if version >= 1:
        r.int32()
    error = r.int16()
    groups = []
    for _ in range(r.array_length(flex)):
        g = {"group_id": r.str_(flex), "protocol_type": r.str_(flex)}
        if version >= 4:
            g["state"] = r.str_(flex)
        if flex:
            r.tagged_fields()
        groups.append(g)
    if flex:
        r.tagged_fields()
    r.end()
    return error, groups


def describe_groups(conn, groups: Sequence[str], version: int = 4) -> list[dict]:
    flex = flexible(DESCRIBE_GROUPS, version)
    body = _arr([_str(g, flex) for g in groups], flex)
    if version >= 3:
        body += kw.boolean(True)  # include_authorized_operations
    if flex:
        body += kw.EMPTY_TAGS
    r = roundtrip(conn, DESCRIBE_GROUPS, version, body)
    if version >= 1:
        r.int32()
    out = []
    for _ in range(r.array_length(flex)):
        g = {"error_code": r.int16(), "group_id": r.str_(flex), "state": r.str_(flex),
             "protocol_type": r.str_(flex), "protocol": r.str_(flex), "members": []}
        for _ in range(r.array_length(flex)):
            m = {"member_id": r.str_(flex)}
            if version >= 4:
                m["group_instance_id"] = r.str_(flex)
            m["client_id"] = r.str_(flex)
            m["client_host"] = r.str_(flex)
            n = r.uvarint() - 1 if flex else r.int32()
            m["metadata"] = r.raw(n)
            n = r.uvarint() - 1 if flex else r.int32()
            m["assignment"] = r.raw(n)
            if flex:
                r.tagged_fields()
            g["members"].append(m)
        if version >= 3:
            g["authorized_operations"] = r.int32()
        if flex:
            r.tagged_fields()
        out.append(g)
    if flex:
        r.tagged_fields()
    r.end()
    return out


def delete_groups(conn, groups: Sequence[str], version: int = 1) -> dict[str, int]:
    flex = flexible(DELETE_GROUPS, version)
    body = _arr([_str(g, flex) for g in groups], flex) + (kw.EMPTY_TAGS if flex else b"")
    r = roundtrip(conn, DELETE_GROUPS, version, body)
    r.int32()
    out = {}
    for _ in range(r.array_length(flex)):
        g = r.str_(flex)
        out[g] = r.int16()
        if flex:
            r.tagged_fields()
    if flex:
        r.tagged_fields()
    r.end()
    return out


def offset_delete(conn, group: str, partitions: dict[str, Sequence[int]]) -> tuple[int, dict]:
    body = kw.string(group) + kw.array(
        [kw.string(t) + kw.array([kw.int32(p) for p in ps]) for t, ps in partitions.items()])
    r = roundtrip(conn, OFFSET_DELETE, 0, body)
    error = r.int16()
    r.int32()
    out = {}
    for _ in range(r.int32()):
        t = r.string()
        for _ in range(r.int32()):
            p = r.int32()
            out[(t, p)] = r.int16()
    r.end()
    return error, out


def offset_fetch_groups(conn, groups: dict[str, Optional[dict[str, Sequence[int]]]],
                        require_stable: bool = False, version: int = 8) -> dict:
    """OffsetFetch v8+: {group: {topic: [partitions]} or None (all)} ->
    {group: (error, {(topic, partition): offset})}."""
    assert version >= 8
    entries = []
    for g, topics in groups.items():
        e = kw.compact_string(g)
        if version >= 9:
            e += kw.compact_string(None) + kw.int32(-1)  # member id, member epoch
        if topics is None:
            e += kw.compact_array(None)
        else:
            e += kw.compact_array([kw.compact_string(t) + kw.compact_array(
                [kw.int32(p) for p in ps]) + kw.EMPTY_TAGS for t, ps in topics.items()])
        entries.append(e + kw.EMPTY_TAGS)
    body = kw.compact_array(entries) + kw.boolean(require_stable) + kw.EMPTY_TAGS
    r = roundtrip(conn, OFFSET_FETCH, version, body)
    r.int32()
    out = {}
    for _ in range(r.array_length(True)):
        g = r.compact_string()
        offsets = {}
        for _ in range(r.array_length(True)):
            t = r.compact_string()
            for _ in range(r.array_length(True)):
                p, off, _epoch = r.int32(), r.int64(), r.int32()
                r.compact_string()
                r.int16()
                r.tagged_fields()
                offsets[(t, p)] = off
            r.tagged_fields()
        error = r.int16()
        r.tagged_fields()
        out[g] = (error, offsets)
    r.tagged_fields()
    r.end()
    return out


def offset_commit_v2(conn, group: str, offsets: dict[tuple[str, int], int],
                     generation: int = -1, member_id: str = "",
                     retention_ms: int = -1) -> dict:
    """A simple-consumer style commit (OffsetCommit v2)."""
    by_topic: dict[str, list] = {}
    for (t, p), o in offsets.items():
        by_topic.setdefault(t, []).append(kw.int32(p) + struct_q(o) + kw.string(""))
    body = (kw.string(group) + kw.int32(generation) + kw.string(member_id) + struct_q(retention_ms)
            + kw.array([kw.string(t) + kw.array(ps) for t, ps in by_topic.items()]))
    r = roundtrip(conn, OFFSET_COMMIT, 2, body)
    out = {}
    for _ in range(r.int32()):
        t = r.string()
        for _ in range(r.int32()):
            p = r.int32()
            out[(t, p)] = r.int16()
    r.end()
    return out


def join_group_v0(conn, group: str, member_id: str = "", session_timeout_ms: int = 6000,
                  protocol: str = "range", metadata: bytes = b"") -> dict:
    """JoinGroup v0, as the oldest clients send it."""
    body = (kw.string(group) + kw.int32(session_timeout_ms) + kw.string(member_id) +
            kw.string("consumer") +
            kw.array([kw.string(protocol) + kw.int32(len(metadata)) + metadata]))
    r = roundtrip(conn, JOIN_GROUP, 0, body)
    out = {"error_code": r.int16(), "generation_id": r.int32(), "protocol": r.string(),
           "leader": r.string(), "member_id": r.string(), "members": []}
    for _ in range(r.int32()):
        mid = r.string()
        out["members"].append((mid, r.raw(r.int32())))
    r.end()
    return out


def struct_q(v: int) -> bytes:
    import struct
    return struct.pack(">q", v)


def offset_fetch(conn, group: str, topics: Optional[dict[str, Sequence[int]]],
                 version: int) -> tuple[Optional[int], dict]:
    """OffsetFetch v0-v5 (non-flexible): (top-level error or None before v2,
    {(topic, partition): (offset, error)})."""
    assert version <= 5
    body = kw.string(group)
    if topics is None:
        body += kw.int32(-1)
    else:
        body += kw.array([kw.string(t) + kw.array([kw.int32(p) for p in ps])
                          for t, ps in topics.items()])
    r = roundtrip(conn, OFFSET_FETCH, version, body)
    if version >= 3:
        r.int32()
    out = {}
    for _ in range(r.int32()):
        t = r.string()
        for _ in range(r.int32()):
            p, off = r.int32(), r.int64()
            if version >= 5:
                r.int32()  # leader epoch
            r.string()  # metadata
            out[(t, p)] = (off, r.int16())
    error = r.int16() if version >= 2 else None
    r.end()
    return error, out


def offset_commit_flexible(conn, group: str, offsets: dict[tuple[str, int], int],
                           generation_or_epoch: int, member_id: str, version: int) -> dict:
    """OffsetCommit v8-v9: {(topic, partition): error}. From v9 the
    generation field is a KIP-848 member epoch."""
    assert version >= 8
    by_topic: dict[str, list] = {}
    for (t, p), o in offsets.items():
        by_topic.setdefault(t, []).append(kw.int32(p) + struct_q(o) + kw.int32(-1) +
                                          kw.compact_string(None) + kw.EMPTY_TAGS)
    body = (kw.compact_string(group) + kw.int32(generation_or_epoch) +
            kw.compact_string(member_id) + kw.compact_string(None) +
            kw.compact_array([kw.compact_string(t) + kw.compact_array(ps) + kw.EMPTY_TAGS
                              for t, ps in by_topic.items()]) + kw.EMPTY_TAGS)
    r = roundtrip(conn, OFFSET_COMMIT, version, body)
    r.int32()  # throttle
    out = {}
    for _ in range(r.uvarint() - 1):
        t = r.compact_string()
        for _ in range(r.uvarint() - 1):
            p = r.int32()
            out[(t, p)] = r.int16()
            r.tagged_fields()
        r.tagged_fields()
    r.tagged_fields()
    r.end()
    return out


def consumer_group_heartbeat(conn, group: str, member_id: str, member_epoch: int,
                             topics: Optional[Sequence[str]] = None,
                             rebalance_timeout_ms: int = 5000) -> dict:
    """ConsumerGroupHeartbeat v1 (KIP-848): a join (epoch 0, with `topics`),
    a heartbeat, or a leave (epoch -1). Returns the response's fields, the
    assignment as {topic_id: [partitions]} or None."""
    owned = [] if member_epoch == 0 else None
    body = (kw.compact_string(group) + kw.compact_string(member_id) + kw.int32(member_epoch) +
            kw.compact_string(None) + kw.compact_string(None) +
            kw.int32(rebalance_timeout_ms if member_epoch == 0 else -1) +
            kw.compact_array(None if topics is None else [kw.compact_string(t) for t in topics]) +
            kw.compact_string(None) + kw.compact_string(None) + kw.compact_array(owned) +
            kw.EMPTY_TAGS)
    r = roundtrip(conn, CONSUMER_GROUP_HEARTBEAT, 1, body)
    out = {"throttle_ms": r.int32(), "error_code": r.int16(), "error_message": r.compact_string(),
           "member_id": r.compact_string(), "member_epoch": r.int32(),
           "heartbeat_interval_ms": r.int32(), "assignment": None}
    if r.int8() >= 0:
        assignment = {}
        for _ in range(r.uvarint() - 1):
            topic_id = r.uuid()
            assignment[topic_id] = [r.int32() for _ in range(r.uvarint() - 1)]
            r.tagged_fields()
        r.tagged_fields()
        out["assignment"] = assignment
    r.tagged_fields()
    r.end()
    return out
