"""Well-formed requests that once crashed or pinned the broker. Each must be
answered (or refused) without taking the process down, and leave it serving
other connections."""
import os
import socket
import struct
import time

import kafka_wire as kw
import pytest
from confluent_kafka import Producer
from test_produce_consume import create_topic

API_DESCRIBE_LOG_DIRS = 35


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def assert_still_serving(broker):
    with kw.KafkaConnection.to(broker) as conn:
        assert conn.api_versions().error_code == kw.NONE
    assert broker.is_running(), f"broker exited with {broker.returncode}"


# --- DescribeLogDirs ---------------------------------------------------------------

def describe_log_dirs_body(version, topics):
    """topics: None (every partition) or [(name, [partition, ...])]."""
    flexible = version >= 2
    arr = kw.compact_array if flexible else kw.array
    s = kw.compact_string if flexible else kw.string
    tags = kw.EMPTY_TAGS if flexible else b""
    entries = None
    if topics is not None:
        entries = [s(name) + arr([kw.int32(p) for p in parts]) + tags for name, parts in topics]
    return arr(entries) + tags


def parse_describe_log_dirs(body, version):
    """{log_dir: (error_code, {topic: {partition: size}})}"""
    flexible = version >= 2
    r = kw.Reader(body)
    r.int32()  # throttle
    if version >= 3:
        assert r.int16() == kw.NONE
    out = {}
    for _ in range(r.array_length(flexible)):
        error = r.int16()
        log_dir = r.str_(flexible)
        topics = {}
        for _ in range(r.array_length(flexible)):
            name = r.str_(flexible)
            parts = {}
            for _ in range(r.array_length(flexible)):
                index, size, _lag = r.int32(), r.int64(), r.int64()
                r.boolean()  # is_future_key
                if flexible:
                    r.tagged_fields()
                parts[index] = size
            if flexible:
                r.tagged_fields()
            topics[name] = parts
        if version >= 4:
            r.int64(), r.int64()  # total_bytes, usable_bytes
        if flexible:
            r.tagged_fields()
        out[log_dir] = (error, topics)
    if flexible:
        r.tagged_fields()
    r.end()
    return out


@pytest.mark.parametrize("version", [1, 4])
@pytest.mark.parametrize("ask", ["all", "one_partition"])
def test_describe_log_dirs_lists_partitions_and_their_sizes(broker, version, ask):
    topic = "logdirs"
    create_topic(broker.bootstrap, topic, partitions=2)
    p = Producer({"bootstrap.servers": broker.bootstrap})
    p.produce(topic, b"x" * 100, partition=1)
    assert p.flush(30) == 0
    wanted = None if ask == "all" else [(topic, [1])]
    with kw.KafkaConnection.to(broker) as conn:
        conn.send_request(API_DESCRIBE_LOG_DIRS, version,
                          describe_log_dirs_body(version, wanted))
        _, body = conn.read_response(API_DESCRIBE_LOG_DIRS, version)
    dirs = parse_describe_log_dirs(body, version)
    assert len(dirs) == 1, dirs
    error, topics = next(iter(dirs.values()))
    assert error == kw.NONE
    expected = {1} if ask == "one_partition" else {0, 1}
    assert set(topics[topic]) == expected
    assert topics[topic][1] > 100
    assert_still_serving(broker)


# --- Fetch with nothing to fetch ----------------------------------------------------

def fetch_v4_body(topics, max_wait_ms, min_bytes=1):
    """topics: [(name, [(partition, offset), ...])]"""
    entries = [kw.string(name) + kw.array([struct.pack(">iqi", p, off, 1 << 20)
                                           for p, off in parts])
               for name, parts in topics]
    return (kw.int32(-1) + kw.int32(max_wait_ms) + kw.int32(min_bytes) + kw.int32(1 << 20) +
            kw.int8(0) + kw.array(entries))


@pytest.mark.parametrize("topics", [[], [("nothing-here", [])]],
                         ids=["no_topics", "topic_without_partitions"])
def test_fetch_of_no_partitions_is_answered_at_once(start_broker, topics):
    broker = start_broker(overrides={"num.io.threads": 1})
    before = cpu_seconds(broker.pid)
    start = time.monotonic()
    with kw.KafkaConnection.to(broker, timeout=20) as conn:
        conn.send_request(kw.API_FETCH, 4, fetch_v4_body(topics, max_wait_ms=1 << 30))
        conn.read_response(kw.API_FETCH, 4)
    assert time.monotonic() - start < 10
    assert cpu_seconds(broker.pid) - before < 2.0
    assert_still_serving(broker)


def test_long_poll_on_an_empty_partition_sleeps(start_broker):
    broker = start_broker(overrides={"num.io.threads": 1})
    create_topic(broker.bootstrap, "quiet")
    wait_ms = 3000
    with kw.KafkaConnection.to(broker, timeout=30) as conn, \
            kw.KafkaConnection.to(broker) as witness:
        before = cpu_seconds(broker.pid)
        start = time.monotonic()
        conn.send_request(kw.API_FETCH, 4, fetch_v4_body([("quiet", [(0, 0)])], wait_ms))
        # A neighbour on the same (only) reactor is served during the wait.
        assert witness.api_versions().error_code == kw.NONE
        assert time.monotonic() - start < wait_ms / 1000
        conn.read_response(kw.API_FETCH, 4)
        waited = time.monotonic() - start
        used = cpu_seconds(broker.pid) - before
    assert waited >= wait_ms / 1000 * 0.9
    # A sleeping wait costs next to nothing; a spinning one a whole core.
    assert used < waited / 3, f"{used:.2f} s of CPU in a {waited:.2f} s long poll"


def test_a_consumer_closing_during_a_zero_copy_response_costs_only_its_connection(start_broker):
    # Fetch responses go out with sendfile(2), which raises SIGPIPE on a
    # socket the peer has closed; the broker must see EPIPE, not die.
    broker = start_broker(overrides={"num.io.threads": 1})
    topic = "bulky"
    create_topic(broker.bootstrap, topic)
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 20})
    for _ in range(300):
        p.produce(topic, os.urandom(16 * 1024), partition=0)
    assert p.flush(60) == 0
    body = (kw.int32(-1) + kw.int32(0) + kw.int32(1) + kw.int32(64 << 20) + kw.int8(0) +
            kw.array([kw.string(topic) + kw.array([struct.pack(">iqi", 0, 0, 64 << 20)])]))
    for _ in range(20):
        conn = kw.KafkaConnection.to(broker)
        conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.send_request(kw.API_FETCH, 4, body)
        conn.sock.recv(1024)  # the response has started
        # Close with a reset, the rest of the response unread.
        conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
    assert_still_serving(broker)
