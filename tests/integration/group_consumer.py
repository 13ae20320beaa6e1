"""A consumer-group member in its own process, for tests that must SIGKILL a
member or run several at once: `python3 group_consumer.py '<json config>'`.

It subscribes, polls, and reports on stdout, one JSON object per line:
    {"event": "assigned", "partitions": [[topic, partition], ...]}  (whole assignment)
    {"event": "record", "topic": t, "partition": p, "offset": o, "value": v}
    {"event": "closed"}
Offsets are committed synchronously every `commit_every` records and on
revocation (so clean rebalances and clean exits lose and repeat nothing).
SIGTERM closes the consumer cleanly (LeaveGroup); SIGKILL does not.

The JSON config: {"conf": {librdkafka settings}, "topics": [...],
"commit_every": n}.
"""
import json
import signal
import sys

from confluent_kafka import Consumer, KafkaError, TopicPartition


def main() -> int:
    spec = json.loads(sys.argv[1])
    commit_every = int(spec.get("commit_every", 1))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))

    def emit(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    consumer = Consumer(spec["conf"])
    # confluent-kafka 1.7 has no rebalance_protocol(): go by the assignor.
    cooperative = spec["conf"].get("partition.assignment.strategy") == "cooperative-sticky"
    # Next offset to commit per partition, and records since the last commit.
    pending = {}
    uncommitted = [0]

    def commit_pending(partitions=None):
        offsets = [TopicPartition(t, p, o) for (t, p), o in pending.items()
                   if partitions is None or (t, p) in partitions]
        if offsets:
            try:
                consumer.commit(offsets=offsets, asynchronous=False)
            except Exception as e:  # a commit lost to a rebalance is retried by the next owner
                emit({"event": "commit_failed", "error": str(e)})
        for tp in [(o.topic, o.partition) for o in offsets]:
            pending.pop(tp, None)
        uncommitted[0] = 0

    def on_assign(_consumer, partitions):
        # The library applies the assignment after this returns: eager
        # rebalancing hands over the whole assignment, cooperative the
        # partitions added to the current one.
        now = {(tp.topic, tp.partition) for tp in partitions}
        if cooperative:
            now |= {(tp.topic, tp.partition) for tp in consumer.assignment()}
        emit({"event": "assigned", "partitions": sorted([t, p] for t, p in now)})

    def on_revoke(_consumer, partitions):
        commit_pending({(tp.topic, tp.partition) for tp in partitions})
        if cooperative:
            # Incremental: assignment() still holds the revoked partitions here.
            revoked = {(tp.topic, tp.partition) for tp in partitions}
            emit({"event": "assigned", "partitions": sorted(
                [tp.topic, tp.partition] for tp in consumer.assignment()
                if (tp.topic, tp.partition) not in revoked)})
        else:
            emit({"event": "assigned", "partitions": []})

    consumer.subscribe(spec["topics"], on_assign=on_assign, on_revoke=on_revoke)
    while not stop:
        msg = consumer.poll(0.05)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() != KafkaError._PARTITION_EOF:
                emit({"event": "error", "error": str(msg.error())})
            continue
        emit({"event": "record", "topic": msg.topic(), "partition": msg.partition(),
              "offset": msg.offset(), "value": msg.value().decode()})
        pending[(msg.topic(), msg.partition())] = msg.offset() + 1
        uncommitted[0] += 1
        if uncommitted[0] >= commit_every:
            commit_pending()
    commit_pending()
    consumer.close()
    emit({"event": "closed"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
