"""Connection limits act as in Kafka: max.connections, max.connections.per.ip
and its overrides close excess client connections at once; the controller
listener is exempt; connections.max.idle.ms closes idle connections but not
busy ones; a malformed override stops the broker at start naming the key."""
import time

import kafka_wire as kw
import pytest
from test_lifecycle import expect_start_failure, error_lines


def answers(conn) -> bool:
    try:
        return conn.api_versions().error_code == kw.NONE
    except (EOFError, ConnectionResetError, BrokenPipeError, TimeoutError, OSError):
        return False


def open_many(host, port, n):
    return [kw.KafkaConnection(host, port, timeout=10) for _ in range(n)]


@pytest.mark.parametrize("overrides,limit", [
    ({"max.connections.per.ip": 3}, 3),
    ({"max.connections.per.ip.overrides": "127.0.0.1:2"}, 2),
    ({"max.connections": 2}, 2),
])
def test_excess_client_connections_are_closed(start_broker, overrides, limit):
    broker = start_broker(overrides=overrides)
    kept = open_many(broker.host, broker.port, limit)
    try:
        assert all(answers(c) for c in kept)
        with kw.KafkaConnection.to(broker) as extra:
            assert extra.read_until_eof(10) == b""
        assert "event=connection_refused" in broker.log_text()
        # A freed slot can be taken again.
        kept.pop().close()
        deadline = time.monotonic() + 10
        while True:
            with kw.KafkaConnection.to(broker) as again:
                if answers(again):
                    break
            assert time.monotonic() < deadline, "the freed slot was never given back"
            time.sleep(0.05)
        # The controller listener is never starved by client connections.
        quorum = open_many(broker.host, broker.controller_port, limit + 3)
        try:
            assert all(answers(c) for c in quorum)
        finally:
            for c in quorum:
                c.close()
    finally:
        for c in kept:
            c.close()


def test_idle_connections_are_closed_and_busy_ones_kept(start_broker):
    broker = start_broker(overrides={"connections.max.idle.ms": 1500})
    with kw.KafkaConnection.to(broker) as idle, kw.KafkaConnection.to(broker) as busy:
        assert answers(idle) and answers(busy)
        start = time.monotonic()
        while time.monotonic() - start < 3.5:
            assert answers(busy), "a connection in use was closed"
            time.sleep(0.3)
        assert idle.read_until_eof(10) == b""
    assert "connections.max.idle.ms" in broker.log_text()


def test_a_malformed_per_ip_override_stops_the_broker_naming_the_key(start_broker):
    _, log = expect_start_failure(start_broker,
                                  overrides={"max.connections.per.ip.overrides": "127.0.0.1"})
    assert any("max.connections.per.ip.overrides" in line for line in error_lines(log)), log
