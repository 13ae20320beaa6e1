"""Group consumers on librdkafka 2.15.1 (tests/clients/librdkafka/setup.sh builds
it under $SAMSA_CLIENTS_DIR/librdkafka) for tests/clients/test_librdkafka_next.py.

The pytest process has Debian's librdkafka (2.0.2) loaded for the other tests,
so each 2.15.1 consumer is a subprocess: tests/clients/librdkafka/consumer_driver.py
under Debian's /usr/bin/python3 with LD_LIBRARY_PATH at the 2.15.1 build. A
Member reads the driver's JSON-line events (assign/revoke callbacks with
CLOCK_MONOTONIC times, records, commits) on a thread and keeps them; the
driver's stderr (librdkafka's log, debug=cgrp) goes to a file shown when a test
fails. Producing and topic creation stay in the test process, on Debian's
confluent-kafka.
"""
from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Iterable, Optional

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from samsa_harness import wait_until

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "librdkafka" / "consumer_driver.py"
PYTHON = "/usr/bin/python3"
RDK_VERSION = "2.15.1"
# The library's place under $SAMSA_CLIENTS_DIR (tests/clients/librdkafka/setup.sh).
RDK_LIB_SUBDIR = Path("librdkafka") / "package" / "deps" / "librdkafka" / "src"

CLOSE_TIMEOUT_S = 60.0
LOG_TAIL_LINES = 40


def librdkafka_problem(lib_dir: Path) -> Optional[str]:
    """Why the 2.15.1 build at lib_dir cannot be used, or None."""
    lib = lib_dir / "librdkafka.so.1"
    if not lib.is_file():
        return f"{lib} not found"
    try:
        out = subprocess.run(
            [PYTHON, "-c", "import confluent_kafka; print(confluent_kafka.libversion()[0])"],
            env=dict(os.environ, LD_LIBRARY_PATH=str(lib_dir)), capture_output=True,
            text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{PYTHON} with LD_LIBRARY_PATH={lib_dir}: {e}"
    version = out.stdout.strip()
    if out.returncode != 0 or version != RDK_VERSION:
        return (f"{PYTHON} with LD_LIBRARY_PATH={lib_dir} loads librdkafka {version!r}, "
                f"expected {RDK_VERSION} (exit {out.returncode}: {out.stderr.strip()[-500:]})")
    return None


def last_lines(text: str, n: int) -> str:
    return "\n".join(text.splitlines()[-n:])


class Member:
    """One consumer_driver.py process: a group member on librdkafka 2.15.1."""

    def __init__(self, name: str, lib_dir: Path, log_dir: Path, bootstrap: str, group: str,
                 topics: list[str], conf: Optional[dict] = None, manual_commit: bool = True):
        self.name = name
        self.lib_dir = lib_dir
        self.log_path = log_dir / f"{name}.stderr.log"
        self.spec = {
            "conf": {"bootstrap.servers": bootstrap, "group.id": group,
                     "client.id": name, "auto.offset.reset": "earliest",
                     "enable.partition.eof": False, "debug": "cgrp", **(conf or {})},
            "topics": topics,
            "manual_commit": manual_commit,
        }
        self.events: list[dict] = []
        self.noise: list[str] = []  # stdout lines that were not events
        self._lock = threading.Lock()
        self.proc: Optional[subprocess.Popen] = None
        self._reader: Optional[threading.Thread] = None
        self._log_seen = 0  # bytes of the log new_log_lines() has returned
        self.hopeless_line: Optional[str] = None

    # --- process ------------------------------------------------------------
    def start(self) -> "Member":
        env = dict(os.environ, LD_LIBRARY_PATH=str(self.lib_dir), PYTHONUNBUFFERED="1")
        with open(self.log_path, "ab") as err:
            self.proc = subprocess.Popen(
                [PYTHON, str(DRIVER), json.dumps(self.spec)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=err, env=env, text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read, name=f"read-{self.name}",
                                        daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                with self._lock:
                    self.noise.append(line.rstrip("\n"))
                continue
            with self._lock:
                self.events.append(ev)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _send(self, cmd: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"cmd": cmd}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Closes the consumer (revoke callback, commit, leave) and waits for
        the driver to exit 0; kills it and fails if it does not."""
        if not self.running():
            return
        self._send("close")
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.name}: close() did not return within {timeout}s\n"
                                 + self.diagnostics())
        if self._reader is not None:
            self._reader.join(10)
        if rc != 0:
            raise AssertionError(f"{self.name}: driver exited {rc} on close\n"
                                 + self.diagnostics())

    def kill(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass

    # --- what it saw --------------------------------------------------------
    def snapshot(self) -> list[dict]:
        with self._lock:
            return list(self.events)

    def mark(self) -> int:
        """An index into the events: events(since=mark) is what came after."""
        with self._lock:
            return len(self.events)

    def events_of(self, kind: str, since: int = 0) -> list[dict]:
        return [e for e in self.snapshot()[since:] if e["ev"] == kind]

    def has(self, kind: str) -> bool:
        return bool(self.events_of(kind))

    def assignment(self) -> set[tuple[str, int]]:
        """The partitions it holds: the assign/revoke/lost callbacks replayed."""
        held: set[tuple[str, int]] = set()
        for e in self.snapshot():
            parts = {tuple(p) for p in e.get("parts", [])}
            if e["ev"] == "assigned":
                held |= parts
            elif e["ev"] in ("revoked", "lost"):
                held -= parts
        return held

    def records(self) -> list[tuple[str, int, int, str]]:
        return [tuple(r) for e in self.snapshot() if e["ev"] == "records" for r in e["recs"]]

    def errors(self) -> list[dict]:
        return [e for e in self.snapshot()
                if e["ev"] in ("error", "crashed", "lost", "commit_failed")]

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def new_log_lines(self) -> list[str]:
        """The complete lines of the log written since the last call."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self._log_seen)
                chunk = f.read()
        except OSError:
            return []
        end = chunk.rfind(b"\n") + 1
        self._log_seen += end
        return chunk[:end].decode(errors="replace").splitlines()

    def diagnostics(self, lines: int = LOG_TAIL_LINES) -> str:
        evs = self.snapshot()
        brief = [e for e in evs if e["ev"] not in ("records", "committed")]
        rc = None if self.proc is None else self.proc.poll()
        return (f"--- member {self.name} (exit {rc}): holds {sorted(self.assignment())}, "
                f"{len(self.records())} records; events other than records/commits "
                f"(last 25): {json.dumps(brief[-25:])}\n"
                + (f"stdout noise: {self.noise[-10:]}\n" if self.noise else "")
                + f"--- {self.log_path} (librdkafka log, last {lines} lines) ---\n"
                + last_lines(self.log_text(), lines) + "\n")


class Members:
    """The members of one test: started through it, closed or killed at the
    end whatever happens."""

    def __init__(self, lib_dir: Path, log_dir: Path):
        self.lib_dir = lib_dir
        self.log_dir = log_dir
        self.all: list[Member] = []

    def start(self, name: str, bootstrap: str, group: str, topics: list[str],
              conf: Optional[dict] = None, manual_commit: bool = True) -> Member:
        m = Member(name, self.lib_dir, self.log_dir, bootstrap, group, topics, conf,
                   manual_commit)
        self.all.append(m)
        return m.start()

    def diagnostics(self) -> str:
        return "".join(m.diagnostics() for m in self.all)

    def cleanup(self) -> None:
        for m in self.all:
            m.kill()


# librdkafka log lines after which a member will never get anywhere: waiting
# on would only run into the timeout.
HOPELESS = ("ConsumerGroupHeartbeatRequest not supported by broker",
            "ConsumerGroupHeartbeat fatal error")


def hopeless(m: Member) -> Optional[str]:
    """Why member m cannot progress any more (its driver exited but for a
    close, a fatal error, a broker without KIP-848), or None."""
    if m.proc is not None and m.proc.poll() is not None and not m.has("closed"):
        return f"{m.name}: driver exited {m.proc.returncode}"
    for e in m.snapshot():
        if e["ev"] == "crashed" or (e["ev"] == "error" and e.get("fatal")):
            return f"{m.name}: {e}"
    for line in m.new_log_lines():
        if m.hopeless_line is None and any(h in line for h in HOPELESS):
            m.hopeless_line = line
    if m.hopeless_line:
        return f"{m.name}: {m.hopeless_line}"
    return None


def wait_for(cond: Callable, timeout: float, what: str, members: Iterable[Member]):
    """wait_until, but a timeout (or a member that can no longer progress)
    fails with every member's state and log tail."""
    members = list(members)
    stuck: list[str] = []

    def check():
        value = cond()
        if value:
            return value
        stuck[:] = [why for why in map(hopeless, members) if why]
        return bool(stuck)

    try:
        value = wait_until(check, timeout, what, interval=0.05)
    except TimeoutError as e:
        raise AssertionError(f"{e}\n" + "".join(m.diagnostics(20) for m in members)) from None
    if stuck:
        raise AssertionError(f"waiting for {what}: no use going on:\n  " + "\n  ".join(stuck)
                             + "\n" + "".join(m.diagnostics(20) for m in members))
    return value


def owners(members: Iterable[Member]) -> dict[tuple[str, int], list[str]]:
    out: dict[tuple[str, int], list[str]] = defaultdict(list)
    for m in members:
        for tp in m.assignment():
            out[tp].append(m.name)
    return dict(out)


def balanced(members: list[Member], partitions: set[tuple[str, int]], per_member: list[int]):
    """The members' assignments when they split `partitions` between them with
    the sizes `per_member` (sorted), each partition held once; else None."""
    held = {m.name: m.assignment() for m in members}
    sizes = sorted(len(h) for h in held.values())
    if sizes != sorted(per_member):
        return None
    union = set().union(*held.values())
    if union != partitions or sum(sizes) != len(partitions):
        return None
    return held


def ownership_overlaps(members: Iterable[Member]) -> list[str]:
    """Partitions that two members held at once, from the callbacks' times: a
    member holds a partition from the start of the assign callback that gave
    it to the end of the revoke (or lost) callback that took it (its
    synchronous commit included), or to the end of the test."""
    intervals: dict[tuple[str, int], list[tuple[float, float, str]]] = defaultdict(list)
    problems = []
    for m in members:
        opened: dict[tuple[str, int], float] = {}
        for e in m.snapshot():
            parts = [tuple(p) for p in e.get("parts", [])]
            if e["ev"] == "assigned":
                for tp in parts:
                    if tp in opened:
                        problems.append(f"{m.name} was assigned {tp} at {e['t']:.3f} "
                                        f"while holding it since {opened[tp]:.3f}")
                    else:
                        opened[tp] = e["t"]
            elif e["ev"] in ("revoked", "lost"):
                for tp in parts:
                    start = opened.pop(tp, None)
                    if start is None:
                        problems.append(f"{m.name}: {e['ev']} {tp} at {e['t']:.3f} "
                                        "that it did not hold")
                    else:
                        intervals[tp].append((start, e["t"], m.name))
        for tp, start in opened.items():
            intervals[tp].append((start, float("inf"), m.name))
    for tp, spans in sorted(intervals.items()):
        spans.sort()
        for (s1, e1, n1), (s2, e2, n2) in zip(spans, spans[1:]):
            if s2 < e1:
                problems.append(f"{tp} held by {n1} [{s1:.3f}, {e1:.3f}] and by {n2} "
                                f"[{s2:.3f}, {e2:.3f}] at once")
    return problems


def duplicates(members: Iterable[Member]) -> list[str]:
    """Records (by value) that more than one read delivered, with who read them where."""
    seen: dict[str, list[str]] = defaultdict(list)
    for m in members:
        for topic, p, offset, value in m.records():
            seen[value].append(f"{m.name}@{topic}/{p}:{offset}")
    return [f"{v}: {where}" for v, where in seen.items() if len(where) > 1]


def consumed_values(members: Iterable[Member]) -> Counter:
    return Counter(r[3] for m in members for r in m.records())


# --- the test process's own clients (Debian's confluent-kafka) ----------------

def create_topics(bootstrap: str, topics: dict[str, int], timeout: float = 60.0) -> None:
    """Creates the topics (name -> partition count) and waits until every
    partition has a leader in the broker's metadata."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(t, num_partitions=n, replication_factor=1) for t, n in topics.items()],
        request_timeout=timeout, operation_timeout=timeout)
    for f in futures.values():
        f.result(timeout)

    def ready():
        md = admin.list_topics(timeout=10)
        for t, n in topics.items():
            tm = md.topics.get(t)
            if tm is None or tm.error is not None or len(tm.partitions) != n:
                return False
            if any(p.leader < 0 for p in tm.partitions.values()):
                return False
        return True

    wait_until(ready, timeout, f"leaders for {sorted(topics)}", interval=0.1)


class BackgroundProducer:
    """Produces unique values ("<prefix>-<n>", key n) to a topic from a thread,
    idempotent with acks=all, until stop(); `acked` are the values the broker
    acknowledged."""

    def __init__(self, bootstrap: str, topic: str, prefix: str, rate_per_s: float = 150.0):
        self.topic = topic
        self.prefix = prefix
        self.interval = 1.0 / rate_per_s
        self.producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True,
                                  "acks": "all", "linger.ms": 5})
        self.acked: set[str] = set()
        self.failed: list[str] = []
        self.sent = 0
        self.unacknowledged = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"produce-{topic}", daemon=True)

    def _delivered(self, err, msg):
        value = msg.value().decode()
        with self._lock:
            if err is None:
                self.acked.add(value)
            else:
                self.failed.append(f"{value}: {err}")

    def _run(self):
        n = 0
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.producer.produce(self.topic, key=str(n), value=f"{self.prefix}-{n}",
                                  on_delivery=self._delivered)
            n += 1
            self.sent = n
            self.producer.poll(0)
            next_at += self.interval
            # pacing, not synchronisation
            self._stop.wait(max(0.0, next_at - time.monotonic()))

    def start(self) -> "BackgroundProducer":
        self._thread.start()
        return self

    def acked_count(self) -> int:
        with self._lock:
            return len(self.acked)

    def stop(self, timeout: float = 60.0) -> None:
        """Stops producing and waits (up to timeout) for the acknowledgements;
        check() says whether everything was acknowledged."""
        self._stop.set()
        self._thread.join(timeout)
        if self.producer is not None:
            self.unacknowledged = self.producer.flush(timeout)
            self.producer = None

    def check(self) -> None:
        assert self.unacknowledged == 0, (f"{self.unacknowledged} records to {self.topic} "
                                          "still unacknowledged when the producer stopped")
        assert not self.failed, f"produce failures: {self.failed[:10]}"


def produce_values(bootstrap: str, topic: str, values: list[str], timeout: float = 60.0) -> None:
    """Produces the values (key = value) and waits for every acknowledgement."""
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 5})
    failed = []
    for v in values:
        p.produce(topic, key=v, value=v,
                  on_delivery=lambda err, msg: failed.append(f"{msg.value()}: {err}")
                  if err is not None else None)
        p.poll(0)
    left = p.flush(timeout)
    assert left == 0, f"{left} of {len(values)} records to {topic} unacknowledged after {timeout}s"
    assert not failed, f"produce failures to {topic}: {failed[:10]}"


def coordinator_kill_moves_nothing(broker, topic: str, members: list[Member],
                                   split: dict, drain_timeout: float) -> None:
    """With `members` holding `split` of `topic`: 120 records read, the broker
    (the group's coordinator) killed -9 and restarted, 120 more read. The
    group comes back from its records: every member keeps its partitions
    without a revocation, and every record is read."""
    import signal

    def diagnostics():
        return "\n" + "".join(m.diagnostics(lines=15) for m in members)

    before = [f"before-{i}" for i in range(120)]
    produce_values(broker.bootstrap, topic, before)
    wait_for(lambda: set(before) <= set(consumed_values(members)), drain_timeout,
             "the first 120 records consumed", members)
    marks = [m.mark() for m in members]

    broker.kill(signal.SIGKILL)
    broker.wait()
    broker.start()

    after = [f"after-{i}" for i in range(120)]
    produce_values(broker.bootstrap, topic, after)
    wait_for(lambda: set(after) <= set(consumed_values(members)), drain_timeout,
             "the next 120 records consumed after the restart", members)
    assert {m.name: m.assignment() for m in members} == split, diagnostics()
    for m, mark in zip(members, marks):
        moves = [e for e in m.snapshot()[mark:] if e["ev"] in ("revoked", "lost")]
        assert not moves, f"{m.name} lost partitions over the restart: {moves}" + diagnostics()
    for m in members:
        m.close()
    assert set(consumed_values(members)) == set(before + after)
    assert not ownership_overlaps(members), ownership_overlaps(members)
