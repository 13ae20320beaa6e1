"""Bytes a broker must survive. Each bad input closes only its own connection
(EOF within a deadline, no response bytes), is logged with that connection's
peer address, and leaves the broker serving: a connection opened before the bad
input still gets correct answers, kcat still lists the cluster, and the process
is still alive."""
import random
import socket

import pytest

import kafka_wire as kw
from samsa_harness import run_kcat

MAX_REQUEST_BYTES = 1000
EOF_DEADLINE_S = 10.0


@pytest.fixture
def small_broker(start_broker):
    # One reactor thread, so the witness and the bad connection share it: bad
    # input must not stall a neighbour on the same thread.
    return start_broker(overrides={"socket.request.max.bytes": MAX_REQUEST_BYTES,
                                   "num.io.threads": 1})


def send_and_half_close(data: bytes):
    def send(conn):
        conn.send_raw(data)
        conn.sock.shutdown(socket.SHUT_WR)
    return send


def send(data: bytes):
    return lambda conn: conn.send_raw(data)


HTTP_GET = b"GET / HTTP/1.1\r\nHost: samsa\r\n\r\n"
NO_TAGS = kw.EMPTY_TAGS

CASES = [
    pytest.param(send(HTTP_GET), f"frame size {int.from_bytes(HTTP_GET[:4], 'big')} outside",
                 id="http_request"),
    pytest.param(send(kw.int32(16) + b"\xff" * 16), "unknown api key -1",
                 id="garbage_frame_of_0xff"),
    pytest.param(send(kw.int32(12) + b"\x7a\x39" + random.Random(7).randbytes(10)),
                 "unknown api key 31289", id="garbage_frame_random_bytes"),
    pytest.param(send_and_half_close(kw.int32(100) + b"\x00\x12\x00\x00" + b"\x00" * 6),
                 "connection lost inside a frame", id="truncated_frame_then_close"),
    pytest.param(send(kw.int32(2000) + b"\x00" * 100), "frame size 2000 outside",
                 id="frame_over_socket_request_max_bytes"),
    pytest.param(send(kw.int32(-1)), "frame size -1 outside", id="negative_size"),
    pytest.param(send(kw.int32(-2**31)), f"frame size {-2**31} outside",
                 id="most_negative_size"),
    pytest.param(send(kw.int32(0)), "request header truncated", id="empty_frame"),
    pytest.param(send(kw.frame(kw.int16(18) + kw.int16(0) + b"\x00")),
                 "request header truncated", id="header_shorter_than_correlation_id"),
    pytest.param(send(kw.request_frame(999, 0, 1, b"")), "unknown api key 999",
                 id="unknown_api_key_999"),
    pytest.param(send(kw.request_frame(kw.API_METADATA, 200, 1, b"")),
                 "unsupported request api_key=3 (Metadata) api_version=200",
                 id="metadata_version_200"),
    pytest.param(send(kw.request_frame(kw.API_METADATA, -1, 1, b"", header_version=1)),
                 "unsupported request api_key=3 (Metadata) api_version=-1",
                 id="metadata_version_negative"),
    pytest.param(send(kw.frame(kw.int16(18) + kw.int16(1) + kw.int32(1) + kw.int16(500)
                               + b"abc")),
                 "request header failed to decode", id="client_id_runs_past_frame"),
    pytest.param(send(kw.frame(kw.int16(3) + kw.int16(12) + kw.int32(1) + kw.string("c")
                               + kw.uvarint(1) + kw.uvarint(0) + kw.uvarint(50) + b"xy")),
                 "request header failed to decode", id="header_tagged_field_runs_past_frame"),
    pytest.param(send(kw.request_frame(kw.API_METADATA, 1, 1, kw.int32(1_000_000))),
                 "request body failed to decode", id="metadata_v1_array_longer_than_body"),
    pytest.param(send(kw.request_frame(kw.API_METADATA, 9, 1,
                                       kw.uvarint(2) + kw.uvarint(200) + b"abc")),
                 "request body failed to decode", id="metadata_v9_topic_name_runs_past_body"),
    pytest.param(send(kw.request_frame(kw.API_API_VERSIONS, 3, 1,
                                       kw.uvarint(100) + b"librdkafka")),
                 "request body failed to decode", id="api_versions_v3_name_runs_past_body"),
]


def assert_still_serving(broker, witness):
    cluster_id = broker.meta_properties()["cluster.id"]
    av = witness.api_versions(3)
    assert av.error_code == kw.NONE
    assert av.api_keys[kw.API_METADATA] == (0, 12)
    md = witness.metadata(12)
    assert [(b.node_id, b.port) for b in md.brokers] == [(1, broker.port)]
    assert md.cluster_id == cluster_id
    assert md.controller_id == 1
    out = run_kcat("-L", "-b", broker.bootstrap, "-m", "10").stdout
    assert f"broker 1 at 127.0.0.1:{broker.port}" in out, out
    assert broker.is_running(), broker.log_text()


@pytest.mark.parametrize("send_bad,log_fragment", CASES)
def test_bad_input_closes_only_its_connection(small_broker, send_bad, log_fragment):
    broker = small_broker
    with kw.KafkaConnection.to(broker) as witness, kw.KafkaConnection.to(broker) as bad:
        assert witness.api_versions(3).error_code == kw.NONE
        bad_peer = f"peer=127.0.0.1:{bad.local_port} "

        send_bad(bad)

        assert bad.read_until_eof(EOF_DEADLINE_S) == b""
        line = broker.wait_for_log(bad_peer)
        assert "event=connection_closed" in line and log_fragment in line, line
        assert_still_serving(broker, witness)


def test_frame_of_exactly_socket_request_max_bytes_is_served(small_broker):
    # Header v1 of ApiVersions v0 is 10 bytes plus the client id; the body is empty.
    client_id = "c" * (MAX_REQUEST_BYTES - 10)
    request = kw.request_frame(kw.API_API_VERSIONS, 0, 77, b"", client_id=client_id)
    assert len(request) - 4 == MAX_REQUEST_BYTES

    with kw.KafkaConnection.to(small_broker) as conn:
        conn.send_raw(request)
        cid, body = conn.read_response(kw.API_API_VERSIONS, 0)

    assert cid == 77
    assert kw.parse_api_versions_response(body, 0).error_code == kw.NONE


def test_frame_one_byte_over_socket_request_max_bytes_closes_connection(small_broker):
    client_id = "c" * (MAX_REQUEST_BYTES - 9)
    request = kw.request_frame(kw.API_API_VERSIONS, 0, 78, b"", client_id=client_id)
    assert len(request) - 4 == MAX_REQUEST_BYTES + 1

    with kw.KafkaConnection.to(small_broker) as witness, \
            kw.KafkaConnection.to(small_broker) as conn:
        conn.send_raw(request)
        assert conn.read_until_eof(EOF_DEADLINE_S) == b""
        line = small_broker.wait_for_log(f"peer=127.0.0.1:{conn.local_port} ")
        assert f"frame size {MAX_REQUEST_BYTES + 1} outside" in line, line
        assert_still_serving(small_broker, witness)


def test_bad_frame_after_good_one_closes_after_answering_the_good_one(small_broker):
    # The good request was read (and answered in order) before the bad frame
    # arrived; the bad frame then closes the connection.
    with kw.KafkaConnection.to(small_broker) as witness, \
            kw.KafkaConnection.to(small_broker) as conn:
        conn.send_request(kw.API_API_VERSIONS, 3, kw.api_versions_body(3), correlation_id=5)
        cid, body = conn.read_response(kw.API_API_VERSIONS, 3)
        assert cid == 5
        assert kw.parse_api_versions_response(body, 3).error_code == kw.NONE

        conn.send_raw(kw.request_frame(999, 0, 6, b""))
        assert conn.read_until_eof(EOF_DEADLINE_S) == b""
        assert_still_serving(small_broker, witness)


def test_a_hundred_bad_connections_leave_the_broker_serving(small_broker):
    bad_inputs = [HTTP_GET, kw.int32(-1), kw.int32(0), kw.request_frame(999, 0, 1, b""),
                  kw.request_frame(kw.API_METADATA, 200, 1, b"")]
    with kw.KafkaConnection.to(small_broker) as witness:
        for i in range(100):
            with kw.KafkaConnection.to(small_broker) as bad:
                bad.send_raw(bad_inputs[i % len(bad_inputs)])
                assert bad.read_until_eof(EOF_DEADLINE_S) == b""
        assert_still_serving(small_broker, witness)
