"""One group consumer on the librdkafka that tests/clients/librdkafka/setup.sh
builds (2.15.1), for tests/clients/test_librdkafka_next.py. Run with Debian's
/usr/bin/python3 and LD_LIBRARY_PATH at that build: the test process itself has
Debian's librdkafka loaded, so a newer one can only live in another process.

    consumer_driver.py SPEC_JSON

SPEC_JSON: {"conf": {librdkafka consumer properties}, "topics": [names or
"^regex"], "manual_commit": true|false}

Writes one JSON object per line on stdout, each with "ev" and "t" (the
CLOCK_MONOTONIC time, comparable across the processes of one machine):
    started                             the consumer exists and has subscribed
    assigned  {"parts": [[topic, p]]}   at the start of the assign callback
    revoked   {"parts": ..., "commit"}  at the end of the revoke callback, after
                                        its synchronous commit of the revoked
                                        partitions' positions
    lost      {"parts": ...}            partitions lost (never reassigned by us)
    records   {"recs": [[topic, p, offset, value]]}   consumed, in order, each
                                        reported before its offset is committed
                                        and before the next assigned, revoked
                                        or lost event
    commit_try {"offsets": [[topic, p, next_offset]], "where"}   a commit sent
    committed {"offsets": [[topic, p, next_offset]], "where"}
    commit_failed {"error", "where", "offsets"}
    error     {"error", "code", "fatal"}   a consumer error (poll)
    closed                              close() returned (revoke callback and
                                        leave done)
Reads commands, one JSON object per line, on stdin:
    {"cmd": "close"}   close the consumer (revoke, commit, leave) and exit 0
    {"cmd": "abort"}   exit at once without closing (a crashed member)
End of stdin is "close": a driver whose test went away does not linger.

With manual_commit, the consumer runs with enable.auto.commit=false and commits
what it consumed synchronously: in the main loop once records were reported
(at most COMMIT_EVERY_S later, or COMMIT_EVERY_N records), and in the revoke
callback for the partitions it gives up, before the callback returns (so
before librdkafka acknowledges the revocation to the coordinator).
"""
import json
import os
import queue
import sys
import threading
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

COMMIT_EVERY_S = 0.2
COMMIT_EVERY_N = 100

_out_lock = threading.Lock()


def emit(ev, **fields):
    fields = {"ev": ev, "t": time.monotonic(), **fields}
    line = json.dumps(fields, separators=(",", ":"))
    with _out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def tps(partitions):
    return [[p.topic, p.partition] for p in partitions]


class Driver:
    def __init__(self, spec):
        self.manual = bool(spec.get("manual_commit", True))
        conf = dict(spec["conf"])
        conf.setdefault("enable.auto.commit", not self.manual)
        conf["error_cb"] = self.on_error
        self.consumer = Consumer(conf)
        self.topics = spec["topics"]
        # (topic, partition) -> next offset to read, for what was consumed;
        # the dirty ones are not committed yet.
        self.position = {}
        self.dirty = set()
        self.pending = []  # consumed records not reported yet
        self.last_commit = time.monotonic()

    # --- callbacks (served inside poll() and close()) -----------------------
    def on_error(self, err):
        emit("error", error=str(err), code=err.code(), fatal=err.fatal())

    # Each callback first reports the records consumed before it: a record
    # returned by poll() before a partition was lost, reported only after
    # its reassignment, would look read under the new assignment.
    def on_assign(self, consumer, partitions):
        self.report()
        emit("assigned", parts=tps(partitions))

    def on_revoke(self, consumer, partitions):
        self.report()
        revoked = {(p.topic, p.partition) for p in partitions}
        result = None
        if self.manual:
            result = self.commit("revoke", revoked)
        for key in revoked:
            self.position.pop(key, None)
            self.dirty.discard(key)
        emit("revoked", parts=tps(partitions), commit=result)

    def on_lost(self, consumer, partitions):
        self.report()
        for p in partitions:
            self.position.pop((p.topic, p.partition), None)
            self.dirty.discard((p.topic, p.partition))
        emit("lost", parts=tps(partitions))

    # --- consuming and committing -------------------------------------------
    def report(self):
        if self.pending:
            emit("records", recs=self.pending)
            self.pending = []

    def commit(self, where, only=None):
        """Reports what was consumed, then commits the dirty positions (of
        `only`, if given) synchronously. Returns "ok", "nothing" or the error."""
        self.report()
        keys = sorted(k for k in self.dirty if only is None or k in only)
        if not keys:
            return "nothing"
        offsets = [TopicPartition(t, p, self.position[(t, p)]) for t, p in keys]
        listed = [[t, p, self.position[(t, p)]] for t, p in keys]
        emit("commit_try", where=where, offsets=listed)
        try:
            result = self.consumer.commit(offsets=offsets, asynchronous=False)
        except KafkaException as e:
            err = e.args[0]
            emit("commit_failed", where=where, error=err.name(), offsets=listed)
            return err.name()
        failed = [[p.topic, p.partition, p.error.name()] for p in result or []
                  if p.error is not None]
        if failed:
            emit("commit_failed", where=where, error="partition errors", offsets=listed,
                 partitions=failed)
            return "partition errors"
        self.dirty.difference_update(keys)
        self.last_commit = time.monotonic()
        emit("committed", where=where, offsets=listed)
        return "ok"

    def run(self, commands):
        self.consumer.subscribe(self.topics, on_assign=self.on_assign,
                                on_revoke=self.on_revoke, on_lost=self.on_lost)
        emit("started")
        while True:
            try:
                cmd = commands.get_nowait()
            except queue.Empty:
                cmd = None
            if cmd == "abort":
                self.report()
                emit("aborted")
                sys.stdout.flush()
                return False
            if cmd == "close":
                if self.manual:
                    self.commit("close")
                self.consumer.close()
                self.report()
                emit("closed")
                return True
            msg = self.consumer.poll(0.1)
            if msg is not None:
                err = msg.error()
                if err is not None:
                    if err.code() != KafkaError._PARTITION_EOF:
                        emit("error", error=str(err), code=err.code(), fatal=err.fatal())
                else:
                    value = msg.value()
                    self.pending.append([msg.topic(), msg.partition(), msg.offset(),
                                         value.decode() if value is not None else None])
                    key = (msg.topic(), msg.partition())
                    self.position[key] = msg.offset() + 1
                    self.dirty.add(key)
            if len(self.pending) >= COMMIT_EVERY_N or (
                    (self.pending or self.dirty) and
                    time.monotonic() - self.last_commit >= COMMIT_EVERY_S):
                if self.manual:
                    self.commit("poll")
                else:
                    self.report()
                    self.dirty.clear()
                    self.last_commit = time.monotonic()


def read_commands(commands):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            commands.put(json.loads(line).get("cmd"))
        except ValueError:
            emit("error", error=f"bad command {line!r}", code=-1, fatal=False)
    commands.put("close")


def main():
    spec = json.loads(sys.argv[1])
    commands = queue.Queue()
    threading.Thread(target=read_commands, args=(commands,), daemon=True).start()
    try:
        closed = Driver(spec).run(commands)
    except Exception as e:  # reported, then the traceback on stderr
        emit("crashed", error=repr(e))
        raise
    sys.stdout.flush()
    # abort: no close(), no destructor that would leave the group
    os._exit(0 if closed else 3)


if __name__ == "__main__":
    main()
