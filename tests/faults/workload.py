"""The workload: real clients (confluent-kafka, librdkafka) writing unique
values and reading them back, every operation recorded in a History for the
checker (checker.py documents the events).

    producers   idempotent, acks=all; each value "<producer>-<seq>" sent once,
                to a partition chosen in turn; each send recorded with its
                acknowledged partition and offset, or its error. Two on
                librdkafka (confluent-kafka), one on kafkajs (its own
                protocol code: kafkajs_producer.js under node)
    live reader one consumer by assignment reading every partition from the
                beginning during the run (non-monotonic reads, values that
                were visible and vanish)
    group       consumers in one group (group_workload.py; subscribe, the
                classic protocol) committing what they read every second and
                when partitions are taken from them: where each starts on an
                assigned partition is checked against the group's commits; and
                the same in a second group on the KIP-848 consumer protocol,
                with librdkafka 2.15.1 members in processes of their own
                (tests/clients/librdkafka/consumer_driver.py)
    final read  after the faults are healed: every partition from the
                beginning up to its high watermark

Everything is bounded: in count, in rate and by deadlines.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Optional

from confluent_kafka import (OFFSET_BEGINNING, Consumer, KafkaError, KafkaException,
                             Producer, TopicPartition)
from confluent_kafka.admin import AdminClient, NewTopic

import paths  # noqa: F401  (tests/integration on the path)
import kafka_wire as kw  # noqa: E402

# Longer than any fault and the recovery after it: a message that times out
# makes librdkafka bump its producer epoch and renumber the messages still
# unacknowledged, and one of those may already be in the log, so that its
# resend under the new epoch is a duplicate no broker can detect (librdkafka's
# INTRODUCTION.md, "Message timeout considerations"). Bumps are recorded.
MESSAGE_TIMEOUT_MS = 60000


class History:
    """The events of one run, in the order they happened (thread-safe)."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.events: list = []
        self._lock = threading.Lock()

    def now(self) -> float:
        return round(time.monotonic() - self.t0, 4)

    def add(self, **e) -> dict:
        """Records `e` at this moment, or at its own `t` (seconds since the
        run started, as a client in another process stamps its events)."""
        with self._lock:
            if "t" not in e:
                e["t"] = self.now()
            self.events.append(e)
        return e

    def snapshot(self) -> list:
        """The events in the order they happened (those of other processes
        arrive late, with their own times)."""
        with self._lock:
            return sorted(self.events, key=lambda e: e["t"])

    def save(self, path) -> None:
        with open(path, "w") as f:
            for e in self.snapshot():
                f.write(json.dumps(e, sort_keys=True) + "\n")


def load_history(path) -> list:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def quiet_logger():
    log = logging.getLogger("samsa-faults-librdkafka")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    return log


# librdkafka's idempotence debug lines (debug=eos) worth keeping in the history:
# epoch bumps, and retries the broker answered as duplicates (delivered,
# but with no offset).
# SAMSA_FAULTS_CLIENT_DEBUG=<file>: every producer debug line goes there too
# (with librdkafka's msg and protocol contexts), for investigations.
CLIENT_DEBUG_FILE = os.environ.get("SAMSA_FAULTS_CLIENT_DEBUG")
CLIENT_LOG_KEPT = ("bumped epoch", "Beginning partition drain", "duplicate sequence number",
                   "desynchronization")


class _KeptLines(logging.Handler):
    """Records the librdkafka log lines of client `name` that contain one of
    `kept` in the history (as client-log events, shown beside an anomaly)."""

    def __init__(self, history: "History", name: str, kept: tuple):
        super().__init__(logging.DEBUG)
        self.history = history
        self.name = name
        self.kept = kept

    def emit(self, record):
        try:
            text = record.getMessage()
        except Exception:
            return
        self.also(text)
        if any(k in text for k in self.kept):
            self.history.add(type="client-log", producer=self.name, text=text[-200:])

    def also(self, text: str) -> None:
        pass


class _EpochBumps(_KeptLines):
    """A producer's lines about its idempotence state; every line also goes
    to CLIENT_DEBUG_FILE when set."""

    def __init__(self, worker):
        super().__init__(worker.history, worker.pname, CLIENT_LOG_KEPT)

    def also(self, text: str) -> None:
        if CLIENT_DEBUG_FILE:
            with open(CLIENT_DEBUG_FILE, "a") as f:
                f.write(f"{self.history.now():.4f} {self.name} {text}\n")


# librdkafka's lines about a consumer's position worth keeping in the history:
# why it went back to auto.offset.reset (OFFSET_OUT_OF_RANGE, no committed
# offset, a truncation), which alone explains a read that goes backwards.
CONSUMER_LOG_KEPT = ("offset reset", "truncat")


def consumer_logger(history: "History", name: str) -> logging.Logger:
    log = logging.getLogger(f"samsa-faults-consumer-{name}-{time.monotonic_ns()}")
    log.setLevel(logging.DEBUG)
    log.propagate = False
    log.handlers = [_KeptLines(history, name, CONSUMER_LOG_KEPT)]
    return log


def create_topic(bootstrap: str, topic: str, partitions: int, rf: int, min_isr: int,
                 timeout: float = 90.0, replica_assignment: Optional[list] = None) -> None:
    """Creates the topic (retrying while the controller settles) and waits
    until every partition has a leader."""
    admin = AdminClient({"bootstrap.servers": bootstrap, "logger": quiet_logger()})
    deadline = time.monotonic() + timeout
    config = {"min.insync.replicas": str(min_isr)}
    while True:
        if replica_assignment:
            nt = NewTopic(topic, num_partitions=len(replica_assignment),
                          replica_assignment=replica_assignment, config=config)
        else:
            nt = NewTopic(topic, num_partitions=partitions, replication_factor=rf, config=config)
        try:
            admin.create_topics([nt], request_timeout=15)[topic].result(timeout=20)
            break
        except KafkaException as e:
            if "already exists" in str(e).lower():
                break
            if time.monotonic() > deadline:
                raise
        except Exception:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.2)
    n = len(replica_assignment) if replica_assignment else partitions
    # Every node must know it with a leader for each partition (a producer
    # whose metadata comes from a node that does not yet fails its first
    # sends with "Unknown partition"): each node's own Metadata answer.
    for node in bootstrap.split(","):
        host, port = node.rsplit(":", 1)
        while True:
            if _node_knows(host, int(port), topic, n):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"topic {topic}: {node} does not show a leader for every "
                                   f"partition after {timeout}s")
            time.sleep(0.2)


def _node_knows(host: str, port: int, topic: str, partitions: int) -> bool:
    try:
        with kw.KafkaConnection(host, port, timeout=5) as conn:
            md = conn.metadata(9, [topic], allow_auto_topic_creation=False)
    except (OSError, AssertionError):
        return False
    for t in md.topics:
        if t.name == topic and t.error_code == 0 and len(t.partitions) == partitions:
            return all(p["error_code"] == 0 and p["leader_id"] >= 0 for p in t.partitions)
    return False


def json_lines(stream):
    """The JSON objects a client process writes, one per line (other lines,
    such as a library's own output, skipped)."""
    for line in stream:
        try:
            yield json.loads(line)
        except ValueError:
            continue


class Worker(threading.Thread):
    """A client thread of the workload: the cluster it talks to, the topic
    (and its partition count) it works on, the history it records into, the
    event that stops it, and the errors of its run (not anomalies)."""

    def __init__(self, thread_name: str, bootstrap: str, history: "History",
                 stop: threading.Event, topic: Optional[str] = None,
                 partitions: Optional[int] = None):
        super().__init__(name=thread_name, daemon=True)
        self.bootstrap = bootstrap
        self.history = history
        self.stop_event = stop
        self.topic = topic
        self.partitions = partitions
        self.errors: list = []


class ProducerWorker(Worker):
    """One producer name; a fatal client error (which ends an idempotent
    producer) starts a new instance, named <name>.<n>, so that the order
    check compares only values of one producer session."""

    def __init__(self, name: str, bootstrap: str, topic: str, partitions: int,
                 history: History, stop: threading.Event, rate: float, limit: int,
                 max_outstanding: int = 200, acks: str = "all", idempotent: bool = True):
        super().__init__(f"producer-{name}", bootstrap, history, stop, topic, partitions)
        self.base = name
        self.rate = rate
        self.limit = limit
        self.max_outstanding = max_outstanding
        self.acks = acks
        self.idempotent = idempotent
        self.sessions = 0
        self.fatal = threading.Event()

    def _new_producer(self) -> Producer:
        self.sessions += 1
        self.fatal.clear()
        self.pname = self.base if self.sessions == 1 else f"{self.base}.{self.sessions - 1}"
        return Producer({
            "bootstrap.servers": self.bootstrap,
            "enable.idempotence": self.idempotent,
            "acks": self.acks,
            "linger.ms": 5,
            "message.timeout.ms": MESSAGE_TIMEOUT_MS,
            "request.timeout.ms": 5000,
            "socket.timeout.ms": 10000,
            "retry.backoff.ms": 100,
            "reconnect.backoff.max.ms": 1000,
            "topic.metadata.refresh.interval.ms": 2000,
            "error_cb": self._on_error,
            "debug": "eos,msg,protocol" if CLIENT_DEBUG_FILE else "eos",
            "logger": self._logger(),
        })

    def _logger(self) -> logging.Logger:
        log = logging.getLogger(f"samsa-faults-{self.base}-{id(self)}-{self.sessions}")
        log.setLevel(logging.DEBUG)
        log.propagate = False
        log.handlers = [_EpochBumps(self)]
        return log

    def _on_error(self, err: KafkaError) -> None:
        if err.fatal():
            self.fatal.set()
            self.history.add(type="client-error", client=self.pname, error=str(err), fatal=True)

    def _serve(self, call, timeout: float) -> None:
        """poll() or flush(): a fatal error can also come out of them as an
        exception; it ends this instance as the error callback does."""
        try:
            call(timeout)
        except KafkaException as e:
            if not self.fatal.is_set():
                self.fatal.set()
                self.history.add(type="client-error", client=self.pname, error=str(e),
                                 fatal=True)

    def run(self) -> None:
        p = self._new_producer()
        seq = 0
        start = time.monotonic()
        while not self.stop_event.is_set() and seq < self.limit:
            if self.fatal.is_set():
                self._serve(p.flush, MESSAGE_TIMEOUT_MS / 1000 + 10)
                p = self._new_producer()
            # Paced: the seq-th send is not before start + seq / rate.
            due = start + seq / self.rate
            wait = due - time.monotonic()
            if wait > 0:
                self._serve(p.poll, min(wait, 0.1))
                continue
            if len(p) >= self.max_outstanding:
                self._serve(p.poll, 0.05)
                continue
            partition = seq % self.partitions
            value = f"{self.pname}-{seq}"
            self.history.add(type="send", producer=self.pname, seq=seq, value=value,
                             partition=partition)
            meta = (self.pname, seq, value, partition)
            try:
                p.produce(self.topic, value=value.encode(), partition=partition,
                          on_delivery=lambda err, msg, meta=meta: self._delivered(err, msg, meta))
            except (BufferError, KafkaException) as e:
                self.history.add(type="fail", producer=self.pname, seq=seq, value=value,
                                 partition=partition, error=f"produce(): {e}")
            seq += 1
            self._serve(p.poll, 0)
        # Every send gets its answer (an ack or an error) before the run ends.
        self._serve(p.flush, MESSAGE_TIMEOUT_MS / 1000 + 20)
        left = len(p)
        if left:
            self.errors.append(f"{self.pname}: {left} sends unanswered after flush")

    def _delivered(self, err, msg, meta) -> None:
        pname, seq, value, partition = meta
        if err is None:
            self.history.add(type="ack", producer=pname, seq=seq, value=value,
                             partition=msg.partition(), offset=msg.offset())
        else:
            self.history.add(type="fail", producer=pname, seq=seq, value=value,
                             partition=partition, error=str(err))


KAFKAJS_SCRIPT = Path(__file__).resolve().parent / "kafkajs_producer.js"


def kafkajs_modules() -> Path:
    """node_modules holding kafkajs, as scripts/setup-clients.sh installs it
    under $SAMSA_CLIENTS_DIR (default build/clients)."""
    clients = os.environ.get("SAMSA_CLIENTS_DIR") or (
        Path(__file__).resolve().parents[2] / "build" / "clients")
    return Path(clients) / "kafkajs" / "node_modules"


def kafkajs_problem() -> Optional[str]:
    """Why the kafkajs producer cannot run here, or None."""
    if not shutil.which("node"):
        return "node is not installed (scripts/install-deps.sh installs it)"
    if not (kafkajs_modules() / "kafkajs" / "package.json").is_file():
        return (f"kafkajs is not installed in {kafkajs_modules()}: run "
                "scripts/setup-clients.sh build/clients")
    return None


class KafkajsProducerWorker(Worker):
    """A kafkajs producer (kafkajs_producer.js under node), its sends, acks
    and failures recorded as the librdkafka producers' are."""

    def __init__(self, name: str, bootstrap: str, topic: str, partitions: int,
                 history: History, stop: threading.Event, rate: float, limit: int):
        super().__init__(f"kafkajs-{name}", bootstrap, history, stop, topic, partitions)
        self.base = name
        self.rate = rate
        self.limit = limit

    def run(self) -> None:
        env = dict(os.environ, NODE_PATH=str(kafkajs_modules()))
        proc = subprocess.Popen(
            [shutil.which("node") or "node", str(KAFKAJS_SCRIPT), self.bootstrap, self.topic,
             str(self.partitions), self.base, str(self.rate), str(self.limit)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env)
        closer = threading.Thread(target=self._close_when_stopped, args=(proc,), daemon=True)
        closer.start()
        for e in json_lines(proc.stdout):
            kind = e.pop("ev")
            self.history.add(type=kind, **e)
        try:
            code = proc.wait(timeout=MESSAGE_TIMEOUT_MS / 1000 + 30)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        if code != 0:
            self.errors.append(f"kafkajs producer {self.base} exited with {code}: "
                               f"{proc.stderr.read()[-1000:]}")

    def _close_when_stopped(self, proc) -> None:
        self.stop_event.wait()
        try:
            proc.stdin.close()
        except OSError:
            pass


def _consumer(bootstrap: str, name: str, history: Optional["History"] = None) -> Consumer:
    return Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"samsa-faults-{name}-{time.monotonic_ns()}",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "fetch.wait.max.ms": 100,
        "socket.timeout.ms": 10000,
        "topic.metadata.refresh.interval.ms": 2000,
        "reconnect.backoff.max.ms": 1000,
        "logger": consumer_logger(history, name) if history else quiet_logger(),
    })


class LiveReader(Worker):
    """Reads every partition from the beginning while the run goes on, each
    record an `event` event."""

    event = "read"

    def __init__(self, name: str, bootstrap: str, topic: str, partitions: int,
                 history: History, stop: threading.Event, kind: str = "reader"):
        super().__init__(f"{kind}-{name}", bootstrap, history, stop, topic, partitions)
        self.cname = name

    def _open(self) -> Consumer:
        return _consumer(self.bootstrap, self.cname, self.history)

    def run(self) -> None:
        c = self._open()
        try:
            c.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING)
                      for p in range(self.partitions)])
            while not self.stop_event.is_set():
                for m in c.consume(num_messages=500, timeout=0.2):
                    if m.error():
                        continue
                    self.history.add(type=self.event, consumer=self.cname,
                                     partition=m.partition(), offset=m.offset(),
                                     value=m.value().decode())
        finally:
            c.close()


def high_watermarks(bootstrap: str, topic: str, partitions: int) -> Optional[dict]:
    """{partition: high watermark} from each partition's leader, or None."""
    c = _consumer(bootstrap, "watermarks")
    try:
        out = {}
        for p in range(partitions):
            try:
                got = c.get_watermark_offsets(TopicPartition(topic, p), timeout=5, cached=False)
            except KafkaException:
                return None
            if got is None:       # timed out
                return None
            out[p] = got[1]
        return out
    finally:
        c.close()


def wait_settled(bootstrap: str, topic: str, partitions: int, history: History,
                 timeout: float = 60.0, stable_for: float = 6.0) -> Optional[dict]:
    """After healing: waits until each partition's high watermark covers the
    highest offset acknowledged in it, or stays still for `stable_for`
    seconds (so that acknowledged data the cluster lost does not make this
    wait forever); returns the last watermarks seen."""
    acked = {}
    for e in history.snapshot():
        if e["type"] == "ack":
            if e["offset"] is not None:
                acked[e["partition"]] = max(acked.get(e["partition"], -1), e["offset"])
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while True:
        hw = high_watermarks(bootstrap, topic, partitions)
        now = time.monotonic()
        if hw is not None:
            if all(hw.get(p, 0) > o for p, o in acked.items()):
                return hw
            if hw != last:
                last, since = hw, now
            elif now - since >= stable_for:
                return hw
        if now > deadline:
            return last
        time.sleep(0.3)


def final_read(bootstrap: str, topic: str, partitions: int, history: History,
               timeout: float = 90.0) -> None:
    """Reads every partition from the beginning to its high watermark (asked
    again until the reader gets there), recording each value, then one
    final-end event per partition."""
    deadline = time.monotonic() + timeout
    highs = None
    while highs is None and time.monotonic() < deadline:
        highs = high_watermarks(bootstrap, topic, partitions)
    if highs is None:
        for p in range(partitions):
            history.add(type="final-end", partition=p, high=-1, complete=False)
        return
    c = _consumer(bootstrap, "final")
    last = {p: -1 for p in range(partitions)}
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        while time.monotonic() < deadline:
            if all(last[p] >= highs[p] - 1 for p in range(partitions)):
                break
            for m in c.consume(num_messages=1000, timeout=0.5):
                if m.error():
                    continue
                p = m.partition()
                history.add(type="read", consumer="final", partition=p, offset=m.offset(),
                            value=m.value().decode())
                last[p] = max(last[p], m.offset())
    finally:
        c.close()
    for p in range(partitions):
        history.add(type="final-end", partition=p, high=highs[p],
                    complete=last[p] >= highs[p] - 1)
