"""The transactional workload (checked by txn_checker.py), beside the plain
one of workload.py, with the same clients (confluent-kafka, librdkafka):

    txn producer  transactions of TXN_SIZE values, one to each partition of
                  the transactions topic in turn ("<producer>-t<n>-<i>"); one
                  in ABORT_EVERY is aborted on purpose, the others committed.
                  Every outcome is recorded: committed, aborted (on purpose or
                  after an abortable error), or unknown (a fatal error; the
                  next instance's InitProducerId completes or aborts it)
    txn reader    a read_committed consumer reading the transactions topic
                  from the beginning during the run
    eos copier    consume-transform-produce: a member of a group reading the
                  plain topic (read_committed) copies each record to the
                  output topic ("<partition>:<offset>:<value>") in a
                  transaction that also commits the group's offsets
                  (send_offsets_to_transaction); after an abortable error it
                  aborts and goes back to the group's committed offsets
    final reads   read_committed, the transactions and output topics up to
                  a last transaction committed after all others (seal); and
                  the copier group's committed offsets

Events: txn-send, txn-commit-try, txn-commit, txn-abort-try, txn-abort,
txn-unknown, txn-read (consumer, partition, offset, value), txn-seal,
txn-final-end (topic, partition, complete), eos-commit (records copied), eos-abort,
eos-read (the output topic's final read), eos-committed (offsets).
"""
from __future__ import annotations

import random
import threading
import time
from typing import Callable, Optional

from confluent_kafka import (OFFSET_BEGINNING, Consumer, KafkaError, KafkaException,
                             Producer, TopicPartition)

from workload import (History, LiveReader, MESSAGE_TIMEOUT_MS, Worker, consumer_logger,
                      quiet_logger)

TXN_SIZE = 3          # values per transaction, one per partition in turn
ABORT_EVERY = 5       # one transaction in this many is aborted on purpose
TXN_RATE = 5.0        # transactions per second
TXN_TIMEOUT_MS = MESSAGE_TIMEOUT_MS + 10000   # librdkafka: >= message.timeout.ms
OP_DEADLINE_S = 90.0  # a commit or abort retried this long, then unknown

_CLIENT = {
    "linger.ms": 5,
    "message.timeout.ms": MESSAGE_TIMEOUT_MS,
    "transaction.timeout.ms": TXN_TIMEOUT_MS,
    "request.timeout.ms": 5000,
    "socket.timeout.ms": 10000,
    "retry.backoff.ms": 100,
    "reconnect.backoff.max.ms": 1000,
    "topic.metadata.refresh.interval.ms": 2000,
}


def _error(e: KafkaException) -> Optional[KafkaError]:
    return e.args[0] if e.args and isinstance(e.args[0], KafkaError) else None


def retrying(op: Callable[[], None], stop_when: float) -> Optional[KafkaError]:
    """Calls `op` until it succeeds (None), an error that is not retriable,
    or the deadline (its last error)."""
    while True:
        try:
            op()
            return None
        except KafkaException as e:
            err = _error(e)
            if err is None or not err.retriable() or time.monotonic() > stop_when:
                return err
            time.sleep(0.2)


class TxnProducer(Worker):
    def __init__(self, name: str, bootstrap: str, topic: str, partitions: int,
                 history: History, stop: threading.Event, seed: int, limit: int):
        super().__init__(f"txn-{name}", bootstrap, history, stop, topic, partitions)
        self.base = name
        self.rng = random.Random(seed)
        self.limit = limit
        self.sessions = 0

    def _new_producer(self) -> Optional[Producer]:
        """A new instance of the transactional id; its InitProducerId ends
        what an earlier one left open."""
        self.sessions += 1
        self.pname = self.base if self.sessions == 1 else f"{self.base}.{self.sessions - 1}"
        p = Producer(dict(_CLIENT, **{"bootstrap.servers": self.bootstrap,
                                      "transactional.id": f"{self.topic}-{self.base}",
                                      "logger": quiet_logger()}))
        err = retrying(lambda: p.init_transactions(30), time.monotonic() + OP_DEADLINE_S)
        if err is not None:
            self.errors.append(f"{self.pname}: init_transactions failed: {err}")
            return None
        return p

    def run(self) -> None:
        p = self._new_producer()
        start = time.monotonic()
        n = 0
        while p is not None and not self.stop_event.is_set() and n < self.limit:
            wait = start + n / TXN_RATE - time.monotonic()
            if wait > 0:
                self.stop_event.wait(wait)
                continue
            ok = self._one(p, f"{self.pname}-t{n}", abort=self.rng.randrange(ABORT_EVERY) == 0)
            n += 1
            if not ok:
                p = self._new_producer()
        if p is not None:
            p.flush(10)

    def _one(self, p: Producer, txn: str, abort: bool) -> bool:
        """One transaction; False when the instance is unusable (fatal)."""
        h = self.history
        try:
            p.begin_transaction()
        except KafkaException as e:
            self.errors.append(f"{txn}: begin_transaction failed: {e}")
            return False
        for i in range(TXN_SIZE):
            value = f"{txn}-{i}"
            partition = i % self.partitions
            h.add(type="txn-send", txn=txn, topic=self.topic, value=value, partition=partition)
            try:
                p.produce(self.topic, value=value.encode(), partition=partition)
            except (BufferError, KafkaException) as e:
                # The transaction cannot commit what it did not send.
                h.add(type="client-error", client=self.pname, error=f"produce(): {e}")
                abort = True
        p.poll(0)
        deadline = time.monotonic() + OP_DEADLINE_S
        if not abort:
            h.add(type="txn-commit-try", txn=txn)
            err = retrying(lambda: p.commit_transaction(30), deadline)
            if err is None:
                h.add(type="txn-commit", txn=txn)
                return True
            if not err.txn_requires_abort():
                h.add(type="txn-unknown", txn=txn, error=str(err))
                return False
            reason = f"commit failed: {err}"
        else:
            reason = "on purpose"
        h.add(type="txn-abort-try", txn=txn, reason=reason)
        err = retrying(lambda: p.abort_transaction(30), deadline)
        if err is None:
            h.add(type="txn-abort", txn=txn)
            return True
        h.add(type="txn-unknown", txn=txn, error=f"abort failed: {err}")
        return False


def _read_committed(bootstrap: str, name: str, history: Optional[History], **extra) -> Consumer:
    conf = {
        "bootstrap.servers": bootstrap,
        "group.id": f"samsa-faults-{name}-{time.monotonic_ns()}",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "isolation.level": "read_committed",
        "fetch.wait.max.ms": 100,
        "socket.timeout.ms": 10000,
        "topic.metadata.refresh.interval.ms": 2000,
        "reconnect.backoff.max.ms": 1000,
        "logger": consumer_logger(history, name) if history else quiet_logger(),
    }
    conf.update(extra)
    return Consumer(conf)


class TxnReader(LiveReader):
    """Reads the transactions topic while the run goes on."""

    event = "txn-read"

    def __init__(self, name: str, bootstrap: str, topic: str, partitions: int,
                 history: History, stop: threading.Event,
                 isolation: str = "read_committed"):
        super().__init__(name, bootstrap, topic, partitions, history, stop, "txn-reader")
        self.isolation = isolation  # read_uncommitted: what the checker must catch

    def _open(self) -> Consumer:
        return _read_committed(self.bootstrap, self.cname, self.history,
                               **{"isolation.level": self.isolation})


class EosCopier(Worker):
    """Consume-transform-produce from `source` to `sink` in transactions that
    commit the group's offsets with the copies (KIP-98, KIP-447)."""

    def __init__(self, name: str, bootstrap: str, source: str, sink: str, group: str,
                 history: History, stop: threading.Event):
        super().__init__(f"eos-{name}", bootstrap, history, stop)
        self.cname = name
        self.source = source
        self.sink = sink
        self.group = group
        self.sessions = 0

    def _instances(self):
        self.sessions += 1
        c = _read_committed(self.bootstrap, f"{self.cname}.{self.sessions}", self.history,
                            **{"group.id": self.group, "session.timeout.ms": 10000,
                               "heartbeat.interval.ms": 1000})
        p = Producer(dict(_CLIENT, **{"bootstrap.servers": self.bootstrap,
                                      "transactional.id": f"{self.group}-{self.cname}",
                                      "logger": quiet_logger()}))
        err = retrying(lambda: p.init_transactions(30), time.monotonic() + OP_DEADLINE_S)
        if err is not None:
            c.close()
            self.errors.append(f"{self.cname}: init_transactions failed: {err}")
            return None, None
        c.subscribe([self.source])
        return c, p

    def run(self) -> None:
        c, p = self._instances()
        try:
            while c is not None and not self.stop_event.is_set():
                msgs = [m for m in c.consume(num_messages=200, timeout=0.3) if not m.error()]
                if msgs and not self._copy(c, p, msgs):
                    c.close()
                    c, p = self._instances()
        finally:
            if c is not None:
                c.close()

    def _rewind(self, c: Consumer) -> None:
        """Back to the group's committed offsets: what the aborted
        transaction read is read again."""
        try:
            parts = c.assignment()
            for tp in c.committed(parts, timeout=30):
                c.seek(TopicPartition(tp.topic, tp.partition,
                                      tp.offset if tp.offset >= 0 else OFFSET_BEGINNING))
        except KafkaException as e:
            self.errors.append(f"{self.cname}: rewind failed: {e}")

    def _copy(self, c: Consumer, p: Producer, msgs: list) -> bool:
        h = self.history
        copied = [[m.partition(), m.offset(), m.value().decode()] for m in msgs]
        try:
            p.begin_transaction()
            for part, offset, value in copied:
                p.produce(self.sink, value=f"{part}:{offset}:{value}".encode(), partition=part)
            positions = c.position(c.assignment())
            p.send_offsets_to_transaction(positions, c.consumer_group_metadata(), 30)
        except KafkaException as e:
            err = _error(e)
            if err is not None and err.txn_requires_abort():
                return self._abort(c, p, f"before commit: {err}")
            h.add(type="eos-unknown", consumer=self.cname, error=str(e))
            return False
        err = retrying(lambda: p.commit_transaction(30), time.monotonic() + OP_DEADLINE_S)
        if err is None:
            h.add(type="eos-commit", consumer=self.cname, copied=len(copied),
                  first=copied[0][:2], last=copied[-1][:2])
            return True
        if err.txn_requires_abort():
            return self._abort(c, p, f"commit failed: {err}")
        h.add(type="eos-unknown", consumer=self.cname, error=str(err))
        return False

    def _abort(self, c: Consumer, p: Producer, reason: str) -> bool:
        err = retrying(lambda: p.abort_transaction(30), time.monotonic() + OP_DEADLINE_S)
        if err is not None:
            self.history.add(type="eos-unknown", consumer=self.cname,
                             error=f"abort failed: {err}")
            return False
        self.history.add(type="eos-abort", consumer=self.cname, reason=reason)
        self._rewind(c)
        return True


SEAL = "end"


def seal(bootstrap: str, topic: str, partitions: int, history: History) -> bool:
    """After every other transaction on `topic` ended: one more, committing
    SEAL to each partition. A read_committed reader that gets a partition's
    SEAL has read everything committed before it (control records take
    offsets, so a position is no proof); an open transaction keeps it
    hidden."""
    p = Producer(dict(_CLIENT, **{"bootstrap.servers": bootstrap,
                                  "transactional.id": f"{topic}-seal",
                                  "logger": quiet_logger()}))
    deadline = time.monotonic() + OP_DEADLINE_S

    def commit_seal():
        p.begin_transaction()
        for part in range(partitions):
            p.produce(topic, value=SEAL.encode(), partition=part)
        p.commit_transaction(30)
    err = retrying(lambda: p.init_transactions(30), deadline)
    if err is None:
        err = retrying(commit_seal, deadline)
    history.add(type="txn-seal", topic=topic, ok=err is None, error=str(err) if err else "")
    return err is None


def final_read_committed(bootstrap: str, topic: str, partitions: int, history: History,
                         event: str, timeout: float = 90.0) -> None:
    """Reads `topic` (read_committed) from the beginning until each
    partition's SEAL, recording each other record as an `event` event, then
    a txn-final-end per partition."""
    deadline = time.monotonic() + timeout
    c = _read_committed(bootstrap, f"final-{topic}", None)
    done = set()
    try:
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
        while time.monotonic() < deadline and len(done) < partitions:
            for m in c.consume(num_messages=1000, timeout=0.5):
                if m.error():
                    continue
                value = m.value().decode()
                if value == SEAL:
                    done.add(m.partition())
                    continue
                history.add(type=event, consumer="final", topic=topic,
                            partition=m.partition(), offset=m.offset(), value=value)
    finally:
        c.close()
    for p in range(partitions):
        history.add(type="txn-final-end", topic=topic, partition=p, complete=p in done)


def committed_offsets(bootstrap: str, group: str, topic: str, partitions: int,
                      history: History, sink: str) -> None:
    """The group's committed offsets of `topic` (copied to `sink`), as an
    eos-committed event."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                  "enable.auto.commit": False, "logger": quiet_logger()})
    try:
        got = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=30)
        history.add(type="eos-committed", group=group, sink=sink,
                    offsets=[[tp.partition, tp.offset] for tp in got])
    except KafkaException as e:
        history.add(type="eos-committed", group=group, sink=sink, offsets=None, error=str(e))
    finally:
        c.close()
