"""The consumer groups of the workload (workload.py documents them): members
on the classic protocol (this process's librdkafka) and on the KIP-848
consumer protocol (librdkafka 2.15.1 in processes of their own), each
recording its assignments, reads and commits for checker.check_commits."""
from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Optional

from confluent_kafka import Consumer, KafkaException, TopicPartition

from workload import History, Worker, consumer_logger, json_lines


REPO = Path(__file__).resolve().parents[2]
KIP848_DRIVER = REPO / "tests" / "clients" / "librdkafka" / "consumer_driver.py"


def clients_dir() -> Path:
    return Path(os.environ.get("SAMSA_CLIENTS_DIR") or REPO / "build" / "clients")


def librdkafka_next() -> Path:
    """The librdkafka 2.15.1 build (scripts/setup-clients.sh) the KIP-848
    members load."""
    return clients_dir() / "librdkafka" / "package" / "deps" / "librdkafka" / "src"


def librdkafka_next_problem() -> Optional[str]:
    if not (librdkafka_next() / "librdkafka.so.1").is_file():
        return (f"librdkafka 2.15.1 is not built in {librdkafka_next()}: run "
                "scripts/setup-clients.sh build/clients")
    return None


class GroupMember(Worker):
    """A member of consumer group `group` reading `topic`, one membership
    after another until `stop`: with `rejoin_every`, each closes (leaving the
    group) after that many seconds and the next joins `away` seconds later,
    so that partitions go to the other members and come back."""

    def __init__(self, name: str, kind: str, bootstrap: str, topic: str, group: str,
                 history: History, stop: threading.Event, rejoin_every: Optional[float],
                 away: float):
        super().__init__(f"{kind}-{name}", bootstrap, history, stop, topic)
        self.cname = name
        self.group = group
        self.rejoin_every = rejoin_every
        self.away = away

    def run(self) -> None:
        while not self.stop_event.is_set():
            self._membership()
            self.stop_event.wait(self.away)

    def _membership(self) -> None:
        raise NotImplementedError


class Kip848GroupReader(GroupMember):
    """A member of consumer group `group` on the KIP-848 consumer protocol:
    a librdkafka 2.15.1 consumer in a process of its own (consumer_driver.py,
    committing synchronously what it read, also when partitions are revoked),
    its events recorded as a GroupReader's, stamped with the driver's own
    clock."""

    def __init__(self, name: str, bootstrap: str, topic: str, group: str, history: History,
                 stop: threading.Event, rejoin_every: Optional[float] = None,
                 away: float = 2.0):
        super().__init__(name, "kip848", bootstrap, topic, group, history, stop, rejoin_every,
                         away)

    def _record(self, e: dict) -> None:
        kind = e["ev"]
        t = round(e["t"] - self.history.t0, 4)
        common = {"consumer": self.cname, "group": self.group, "t": t}
        if kind == "assigned":
            self.history.add(type="assign", partitions=sorted(p for _, p in e["parts"]), **common)
        elif kind in ("revoked", "lost"):
            self.history.add(type="revoke", partitions=sorted(p for _, p in e["parts"]),
                             lost=kind == "lost", **common)
        elif kind == "records":
            for _, p, offset, value in e["recs"]:
                self.history.add(type="read", consumer=self.cname, partition=p, offset=offset,
                                 value=value, t=t)
        elif kind in ("commit_try", "committed"):
            self.history.add(type="commit-try" if kind == "commit_try" else "commit",
                             offsets=[[p, o] for _, p, o in e["offsets"]], **common)
        elif kind == "commit_failed":
            self.history.add(type="commit-fail", error=e.get("error", ""), **common)
        elif kind == "crashed":
            self.errors.append(f"KIP-848 member {self.cname} crashed: {e.get('error')}")

    def _membership(self) -> None:
        spec = {"conf": {"bootstrap.servers": self.bootstrap, "group.id": self.group,
                         "group.protocol": "consumer", "client.id": self.cname,
                         "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100,
                         "socket.timeout.ms": 10000, "reconnect.backoff.max.ms": 1000,
                         "topic.metadata.refresh.interval.ms": 2000},
                "topics": [self.topic], "manual_commit": True}
        env = dict(os.environ, LD_LIBRARY_PATH=str(librdkafka_next()))
        proc = subprocess.Popen(["/usr/bin/python3", str(KIP848_DRIVER), json.dumps(spec)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env=env)
        def close_later():
            self.stop_event.wait(self.rejoin_every)
            try:
                proc.stdin.write(json.dumps({"cmd": "close"}) + "\n")
                proc.stdin.close()
            except OSError:
                pass
        closer = threading.Thread(target=close_later, daemon=True)
        closer.start()
        for e in json_lines(proc.stdout):
            self._record(e)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            self.errors.append(f"KIP-848 member {self.cname} did not close within 60 s")
        if self.rejoin_every is None and not self.stop_event.is_set():
            self.errors.append(f"KIP-848 member {self.cname} exited with {proc.returncode}")


class GroupReader(GroupMember):
    """A member of consumer group `group` on the classic protocol (this
    process's librdkafka), reading `topic` by subscription. It commits the
    offsets after what it read (synchronously) every `commit_interval`
    seconds and when partitions are revoked, and records its assignments,
    reads, commits tried, commits done and failed."""

    def __init__(self, name: str, bootstrap: str, topic: str, group: str, history: History,
                 stop: threading.Event, commit_interval: float = 1.0,
                 rejoin_every: Optional[float] = None, away: float = 2.0):
        super().__init__(name, "group", bootstrap, topic, group, history, stop, rejoin_every,
                         away)
        self.commit_interval = commit_interval
        self.next_offsets: dict = {}   # partition -> offset after the last read

    def _event(self, kind: str, **fields) -> None:
        self.history.add(type=kind, consumer=self.cname, group=self.group, **fields)

    def _commit(self, c: Consumer, partitions) -> None:
        offsets = sorted((p, o) for p, o in self.next_offsets.items() if p in partitions)
        if not offsets:
            return
        self._event("commit-try", offsets=[[p, o] for p, o in offsets])
        try:
            done = c.commit(offsets=[TopicPartition(self.topic, p, o) for p, o in offsets],
                            asynchronous=False)
        except KafkaException as e:
            self._event("commit-fail", error=str(e))
            return
        ok = [[tp.partition, tp.offset] for tp in done or [] if tp.error is None]
        if ok:
            self._event("commit", offsets=ok)
        bad = [f"p{tp.partition}: {tp.error}" for tp in done or [] if tp.error is not None]
        if bad:
            self._event("commit-fail", error="; ".join(bad))

    def _membership(self) -> None:
        """One consumer instance, from its join until the member stops or
        rejoins."""
        c = Consumer({
            "bootstrap.servers": self.bootstrap,
            "group.id": self.group,
            "client.id": self.cname,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 1000,
            "fetch.wait.max.ms": 100,
            "socket.timeout.ms": 10000,
            "topic.metadata.refresh.interval.ms": 2000,
            "reconnect.backoff.max.ms": 1000,
            "logger": consumer_logger(self.history, self.cname),
        })

        def on_assign(consumer, parts):
            ps = sorted(tp.partition for tp in parts)
            for p in ps:
                self.next_offsets.pop(p, None)
            self._event("assign", partitions=ps)

        def on_revoke(consumer, parts):
            ps = sorted(tp.partition for tp in parts)
            self._commit(consumer, set(ps))
            self._event("revoke", partitions=ps, lost=False)
            for p in ps:
                self.next_offsets.pop(p, None)

        def on_lost(consumer, parts):
            ps = sorted(tp.partition for tp in parts)
            self._event("revoke", partitions=ps, lost=True)
            for p in ps:
                self.next_offsets.pop(p, None)

        last_commit = time.monotonic()
        leave_at = None if self.rejoin_every is None else last_commit + self.rejoin_every
        try:
            c.subscribe([self.topic], on_assign=on_assign, on_revoke=on_revoke,
                        on_lost=on_lost)
            while not self.stop_event.is_set() and (leave_at is None
                                                    or time.monotonic() < leave_at):
                for m in c.consume(num_messages=500, timeout=0.2):
                    if m.error():
                        continue
                    p = m.partition()
                    self.history.add(type="read", consumer=self.cname, partition=p,
                                     offset=m.offset(), value=m.value().decode())
                    self.next_offsets[p] = m.offset() + 1
                if time.monotonic() - last_commit >= self.commit_interval:
                    self._commit(c, set(self.next_offsets))
                    last_commit = time.monotonic()
        finally:
            c.close()
            self.next_offsets.clear()
