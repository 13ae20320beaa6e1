"""ApiVersions at the byte level: every version parsed by hand, KIP-511's
fallback for versions the broker does not know, client software validation,
the response header rule, and in-order answers to pipelined requests."""
import struct
import time

import pytest

import kafka_wire as kw

API_VERSIONS_RANGE = (0, 4)
METADATA_RANGE = (0, 12)


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_api_versions_lists_supported_ranges(broker, version):
    with kw.KafkaConnection.to(broker) as conn:
        resp = conn.api_versions(version)

    assert resp.error_code == kw.NONE
    assert resp.api_keys[kw.API_API_VERSIONS] == API_VERSIONS_RANGE
    assert resp.api_keys[kw.API_METADATA] == METADATA_RANGE
    for key, (lo, hi) in resp.api_keys.items():
        assert 0 <= lo <= hi, (key, lo, hi)
    if version >= 1:
        assert resp.throttle_time_ms == 0


def test_every_api_versions_version_advertises_the_same_table(broker):
    with kw.KafkaConnection.to(broker) as conn:
        tables = [conn.api_versions(v).api_keys for v in range(5)]

    assert all(t == tables[0] for t in tables), tables


def test_api_versions_v3_accepts_client_software_name_and_version(broker):
    with kw.KafkaConnection.to(broker) as conn:
        resp = conn.api_versions(3, software_name="librdkafka", software_version="2.0.2")

    assert resp.error_code == kw.NONE
    assert resp.api_keys[kw.API_API_VERSIONS] == API_VERSIONS_RANGE


def test_api_versions_accepts_null_client_id(broker):
    with kw.KafkaConnection.to(broker) as conn:
        body = conn.roundtrip(kw.API_API_VERSIONS, 1, b"", client_id=None)

    assert kw.parse_api_versions_response(body, 1).error_code == kw.NONE


@pytest.mark.parametrize("version", [3, 4])
def test_flexible_api_versions_response_uses_header_v0(broker, version):
    with kw.KafkaConnection.to(broker) as conn:
        cid = conn.send_request(kw.API_API_VERSIONS, version, kw.api_versions_body(version),
                                correlation_id=0x01020304)
        frame = conn.read_frame()

    # Header v0 is the correlation id alone: the body (error_code int16, then the
    # compact api_keys array) starts right after it, with no tagged-field byte.
    assert frame[:4] == cid.to_bytes(4, "big")
    body = frame[4:]
    resp = kw.parse_api_versions_response(body, version)  # strict: whole body consumed
    assert body[:2] == b"\x00\x00"
    assert body[2] == len(resp.api_keys) + 1
    assert resp.api_keys[kw.API_API_VERSIONS] == API_VERSIONS_RANGE


@pytest.mark.parametrize("version", [5, 127])
def test_too_new_api_versions_gets_v0_response_with_unsupported_version(broker, version):
    with kw.KafkaConnection.to(broker) as conn:
        # A client from the future: header v2 and a body this broker cannot know.
        cid = conn.send_request(kw.API_API_VERSIONS, version,
                                kw.api_versions_body(3) + b"\x7f\x00future", header_version=2)
        got, body = conn.read_response(kw.API_API_VERSIONS, version)
        resp = kw.parse_api_versions_response(body, 0)  # v0 format, strictly

        assert got == cid
        assert resp.error_code == kw.UNSUPPORTED_VERSION
        # KIP-511: the list carries ApiVersions' own range alone, as Apache Kafka
        # sends it, so the client can retry with a version both sides know.
        assert resp.api_keys == {kw.API_API_VERSIONS: API_VERSIONS_RANGE}

        # The connection stays open and serves the retry.
        assert conn.api_versions(3).error_code == kw.NONE


@pytest.mark.parametrize("name,version", [
    ("-bad-", "1.0"),
    ("bad_name", "1.0"),
    ("bad name", "1.0"),
    ("", "1.0"),
    ("librdkafka", "1.0-"),
    ("librdkafka", ""),
    ("librdkafka", "2.0.2+build"),
])
def test_invalid_client_software_field_gets_invalid_request(broker, name, version):
    with kw.KafkaConnection.to(broker) as conn:
        resp = conn.api_versions(3, software_name=name, software_version=version)

        assert resp.error_code == kw.INVALID_REQUEST
        assert resp.api_keys == {}
        # The connection stays usable after the error response.
        assert conn.api_versions(3).error_code == kw.NONE


@pytest.mark.parametrize("name,version", [
    ("a", "1"),
    ("apache-kafka-java", "3.7.0"),
    ("confluent-kafka-python", "2.3.0-rdkafka-2.3.0"),
    ("A.B-c9", "0.0.0.1"),
])
def test_valid_client_software_fields_are_accepted(broker, name, version):
    with kw.KafkaConnection.to(broker) as conn:
        resp = conn.api_versions(3, software_name=name, software_version=version)

    assert resp.error_code == kw.NONE
    assert resp.api_keys[kw.API_METADATA] == METADATA_RANGE


def test_pipelined_requests_are_answered_in_request_order(broker):
    # 50 requests of mixed APIs and versions, written back to back in one go
    # before reading anything; correlation ids deliberately not monotonic.
    requests = []
    for i in range(50):
        cid = 1000 + (i * 7919) % 5003
        if i % 3 == 0:
            version = i % 5
            body = kw.api_versions_body(version)
            api = kw.API_API_VERSIONS
        else:
            version = (0, 1, 4, 9, 12)[i % 5]
            body = kw.metadata_body(version, ["no-such-topic"] if i % 2 else None,
                                    allow_auto_topic_creation=False)
            api = kw.API_METADATA
        requests.append((api, version, cid, body))
    assert len({r[2] for r in requests}) == 50

    with kw.KafkaConnection.to(broker) as conn:
        conn.send_raw(b"".join(kw.request_frame(api, v, cid, body)
                               for api, v, cid, body in requests))
        answered = []
        for api, version, cid, _ in requests:
            got, body = conn.read_response(api, version)
            answered.append(got)
            if api == kw.API_API_VERSIONS:
                assert kw.parse_api_versions_response(body, version).error_code == kw.NONE
            else:
                md = kw.parse_metadata_response(body, version)
                assert [b.port for b in md.brokers] == [broker.port]

    assert answered == [cid for _, _, cid, _ in requests]


def test_a_request_is_handled_after_the_ones_before_it_are_answered(broker):
    # Kafka handles a connection's requests one at a time: a Metadata request
    # pipelined behind a long-polling Fetch is answered as things stand when
    # the Fetch is done, so it lists a topic created while the Fetch waited.
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic("waited-on", 1, 1)])["waited-on"].result(15)
    fetch_v4 = (kw.int32(-1) + kw.int32(3000) + kw.int32(1 << 20) + kw.int32(1 << 20)
                + kw.int8(0) + kw.array([kw.string("waited-on") + kw.array(
                    [kw.int32(0) + struct.pack(">q", 0) + kw.int32(1 << 20)])]))
    with kw.KafkaConnection.to(broker) as conn:
        started = time.monotonic()
        fetch_cid = conn.send_request(kw.API_FETCH, 4, fetch_v4)
        metadata_cid = conn.send_request(kw.API_METADATA, 1, kw.metadata_body(1))
        admin.create_topics([NewTopic("made-meanwhile", 1, 1)])["made-meanwhile"].result(15)
        assert time.monotonic() - started < 2.5, "the topic took too long to test anything"
        got, _ = conn.read_response(kw.API_FETCH, 4)
        assert got == fetch_cid
        assert time.monotonic() - started >= 2.5  # the fetch waited for bytes
        got, body = conn.read_response(kw.API_METADATA, 1)
        assert got == metadata_cid
    names = {t.name for t in kw.parse_metadata_response(body, 1).topics}
    assert {"waited-on", "made-meanwhile"} <= names


def test_unknown_tagged_fields_in_header_and_body_are_ignored(broker):
    # KIP-482: a receiver skips tagged fields it does not know.
    body = (kw.compact_string("librdkafka") + kw.compact_string("2.0.2")
            + kw.uvarint(1) + kw.uvarint(5) + kw.uvarint(3) + b"abc")
    header = (kw.int16(kw.API_API_VERSIONS) + kw.int16(3) + kw.int32(41) + kw.string("c")
              + kw.uvarint(2) + kw.uvarint(1) + kw.uvarint(1) + b"z"
              + kw.uvarint(7) + kw.uvarint(0))

    with kw.KafkaConnection.to(broker) as conn:
        conn.send_raw(kw.frame(header + body))
        cid, resp_body = conn.read_response(kw.API_API_VERSIONS, 3)

    assert cid == 41
    resp = kw.parse_api_versions_response(resp_body, 3)
    assert resp.error_code == kw.NONE
    assert resp.api_keys[kw.API_API_VERSIONS] == API_VERSIONS_RANGE


def test_the_consumer_group_protocol_apis_follow_the_rebalance_protocols(start_broker):
    """KIP-848: ConsumerGroupHeartbeat (68) v0-v1 and ConsumerGroupDescribe
    (69) v0 are offered unless group.coordinator.rebalance.protocols leaves
    out "consumer"."""
    with kw.KafkaConnection.to(start_broker()) as conn:
        keys = conn.api_versions(3).api_keys
    assert keys.get(68) == (0, 1)
    assert keys.get(69) == (0, 0)
    classic_only = start_broker({"group.coordinator.rebalance.protocols": "classic"})
    with kw.KafkaConnection.to(classic_only) as conn:
        keys = conn.api_versions(3).api_keys
    assert 68 not in keys and 69 not in keys
    assert keys.get(11) is not None  # JoinGroup stays
