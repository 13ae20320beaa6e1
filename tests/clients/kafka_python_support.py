"""Helpers for tests/clients/test_kafka_python.py: kafka-python (Debian's
python3-kafka 2.0.2) clients against real `samsa server` processes.

kafka-python 2.0.2 has blocking loops without a deadline (ensure_coordinator_ready
retries FindCoordinator forever, KafkaAdminClient polls until a node is ready,
KafkaConsumer.poll(timeout_ms) does not bound the coordinator lookup). A broker
that keeps answering COORDINATOR_NOT_AVAILABLE -- as Apache Kafka does, and
samsa with it, while offsets.topic.replication.factor exceeds the live brokers
-- therefore hangs a test rather than failing it. So:

  * every test runs under a SIGALRM deadline (deadline(), armed by the test
    file's `clients` fixture) that raises Hang in the main thread, naming where
    the client was blocked and quoting the tail of kafka-python's DEBUG log and
    the broker's log;
  * kafka-python logs at DEBUG to a file per test (not to pytest's capture);
  * every client is made through Clients and closed at teardown, itself under
    a deadline, so nothing outlives the test.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Optional

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic

from samsa_harness import Broker, wait_until

# Broker settings for tests that use consumer groups: a one-node cluster can
# only create __consumer_offsets with replication factor 1 (Kafka's default of
# 3 leaves FindCoordinator answering COORDINATOR_NOT_AVAILABLE forever), and
# the first rebalance of a new group need not wait the default 3 s.
GROUP_BROKER_OVERRIDES = {
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 4,
    "group.initial.rebalance.delay.ms": 0,
}


class Hang(AssertionError):
    """A test overran its deadline (raised from SIGALRM in the main thread)."""


def last_lines(text: str, lines: int) -> str:
    return "\n".join(text.splitlines()[-lines:])


@contextmanager
def deadline(seconds: float, what: str, diagnostics: Callable[[], str] = lambda: ""):
    """Raises Hang in the main thread if the block runs longer than `seconds`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        where = "".join(traceback.format_stack(frame, limit=12))
        raise Hang(f"{what} still running after {seconds}s; blocked at:\n{where}\n"
                   f"{diagnostics()}")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    outer_delay, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_delay:  # an enclosing deadline: give it back what it has left
            signal.setitimer(signal.ITIMER_REAL,
                             max(0.001, outer_delay - (time.monotonic() - started)))


class KafkaDebugLog:
    """kafka-python's loggers at DEBUG into one file, kept out of pytest's capture."""

    def __init__(self, path: Path):
        self.path = path
        self.logger = logging.getLogger("kafka")
        self.handler = logging.FileHandler(path, mode="w")
        self.handler.setFormatter(logging.Formatter(
            "%(asctime)s %(threadName)s %(name)s %(levelname)s %(message)s"))
        self._saved = (self.logger.level, self.logger.propagate)

    def __enter__(self):
        self.logger.addHandler(self.handler)
        self.logger.setLevel(logging.DEBUG)
        self.logger.propagate = False
        return self

    def __exit__(self, *exc):
        self.logger.removeHandler(self.handler)
        self.handler.close()
        self.logger.setLevel(self._saved[0])
        self.logger.propagate = self._saved[1]

    def tail(self, lines: int = 40) -> str:
        try:
            self.handler.flush()
            return last_lines(self.path.read_text(errors="replace"), lines)
        except OSError:
            return ""


class Clients:
    """Makes kafka-python clients and closes every one of them at close_all()."""

    def __init__(self):
        self._open: list = []

    def _track(self, client):
        self._open.append(client)
        return client

    def producer(self, bootstrap: str, **config) -> KafkaProducer:
        config.setdefault("request_timeout_ms", 15000)
        config.setdefault("max_block_ms", 15000)
        return self._track(KafkaProducer(bootstrap_servers=bootstrap, **config))

    def consumer(self, bootstrap: str, *topics: str, **config) -> KafkaConsumer:
        config.setdefault("request_timeout_ms", 15000)
        config.setdefault("auto_offset_reset", "earliest")
        config.setdefault("enable_auto_commit", False)
        if config.get("group_id") is not None:
            # request_timeout_ms must exceed session_timeout_ms in kafka-python.
            config.setdefault("session_timeout_ms", 10000)
            config.setdefault("heartbeat_interval_ms", 500)
            config["request_timeout_ms"] = max(config["request_timeout_ms"],
                                               config["session_timeout_ms"] + 5000)
        return self._track(KafkaConsumer(*topics, bootstrap_servers=bootstrap, **config))

    def admin(self, bootstrap: str, **config) -> KafkaAdminClient:
        config.setdefault("request_timeout_ms", 30000)
        return self._track(KafkaAdminClient(bootstrap_servers=bootstrap, **config))

    def close(self, client) -> None:
        if client in self._open:
            self._open.remove(client)
        _close(client)

    def close_all(self) -> list[str]:
        problems = []
        while self._open:
            client = self._open.pop()
            try:
                _close(client)
            except Exception as e:  # keep closing the others
                problems.append(f"{type(client).__name__}.close(): {e!r}")
        return problems


def _close(client) -> None:
    if isinstance(client, KafkaConsumer):
        client.close(autocommit=False)
    elif isinstance(client, KafkaProducer):
        client.close(timeout=10)
    else:
        client.close()


def create_topic(admin: KafkaAdminClient, name: str, partitions: int = 1,
                 configs: Optional[dict] = None, timeout: float = 20.0) -> None:
    """CreateTopics, then waits until Metadata shows a leader for every partition."""
    response = admin.create_topics(
        [NewTopic(name, partitions, 1, topic_configs=dict(configs or {}))])
    assert [(t[0], t[1]) for t in response.topic_errors] == [(name, 0)], response
    wait_topic_ready(admin, name, partitions, timeout)


def wait_topic_ready(admin: KafkaAdminClient, name: str, partitions: int,
                     timeout: float = 20.0) -> list:
    def ready():
        described = admin.describe_topics([name])
        if len(described) != 1 or described[0]["error_code"] != 0:
            return None
        parts = described[0]["partitions"]
        if len(parts) != partitions or any(p["leader"] < 0 or p["error_code"] for p in parts):
            return None
        return parts
    return wait_until(ready, timeout, f"topic {name} with {partitions} led partitions",
                      interval=0.05)


def poll_records(consumer: KafkaConsumer, count: int, timeout: float = 20.0,
                 max_records: Optional[int] = None) -> list:
    """Polls until `count` records arrived (in the order poll returned them,
    per partition in offset order); fails if more than `count` arrive."""
    got: list = []
    deadline_at = time.monotonic() + timeout
    while len(got) < count:
        if time.monotonic() >= deadline_at:
            raise TimeoutError(f"got {len(got)} of {count} records within {timeout}s: "
                               f"{[(r.partition, r.offset) for r in got]}")
        batch = consumer.poll(timeout_ms=200, max_records=max_records)
        for tp in sorted(batch):
            got.extend(batch[tp])
    assert len(got) == count, f"expected {count} records, got {len(got)}"
    return got


def no_more_records(consumer: KafkaConsumer, polls: int = 3) -> list:
    """A few short polls; returns whatever arrived (expected: nothing)."""
    extra = []
    for _ in range(polls):
        for recs in consumer.poll(timeout_ms=100).values():
            extra.extend(recs)
    return extra


def by_partition(records: Iterable) -> dict:
    out: dict = {}
    for r in records:
        out.setdefault(r.partition, []).append(r)
    return out


def batch_attributes(segment: Path) -> list[int]:
    """The attributes of each record batch (magic 2) in a log segment file."""
    data = segment.read_bytes()
    attrs, pos = [], 0
    while pos + 23 <= len(data):
        length = int.from_bytes(data[pos + 8:pos + 12], "big", signed=True)
        magic = data[pos + 16]
        if length <= 0 or pos + 12 + length > len(data):
            break
        if magic == 2:
            attrs.append(int.from_bytes(data[pos + 21:pos + 23], "big"))
        pos += 12 + length
    return attrs


# --- fixtures the kafka-python test modules share --------------------------------

TEST_DEADLINE_S = 60.0
TEARDOWN_DEADLINE_S = 30.0


@pytest.fixture
def clients(request, tmp_path):
    """kafka-python clients for one test, all closed at teardown; the whole test
    runs under TEST_DEADLINE_S (Hang names where it was blocked)."""
    with KafkaDebugLog(tmp_path / "kafka-python.log") as debug_log:
        print(f"kafka-python DEBUG log: {debug_log.path}")

        def diagnostics():
            brokers = [v for v in request.node.funcargs.values() if isinstance(v, Broker)]
            text = f"--- kafka-python log tail ({debug_log.path}) ---\n{debug_log.tail()}\n"
            for b in brokers:
                text += f"--- broker log tail ({b.log_path}) ---\n{last_lines(b.log_text(), 30)}\n"
            return text

        made = Clients()
        try:
            with deadline(TEST_DEADLINE_S, request.node.name, diagnostics):
                yield made
        finally:
            with deadline(TEARDOWN_DEADLINE_S, f"closing clients of {request.node.name}",
                          diagnostics):
                problems = made.close_all()
            assert not problems, problems


@pytest.fixture
def group_broker(start_broker):
    """A broker that can create __consumer_offsets alone (see GROUP_BROKER_OVERRIDES)."""
    return start_broker(overrides=GROUP_BROKER_OVERRIDES)

