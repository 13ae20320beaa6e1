"""Moving replicas between a broker's log dirs (AlterReplicaLogDirs, KIP-113;
docs/log-dir-moves.md): `samsa reassign-partitions` with "log_dirs" in its plan
starts the move as kafka-reassign-partitions.sh does, the partition moves while
a librdkafka producer keeps writing to it, every acknowledged record is then
read back once and in order from the new dir (and again after a restart), and
the refusals come with Kafka's error codes."""
import json
import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire as kw
from samsa_cli import on
from samsa_harness import wait_until

ALTER_REPLICA_LOG_DIRS = 34
LOG_DIR_NOT_FOUND = 57
REPLICA_NOT_AVAILABLE = 9
# Records of 208 bytes a second written during a move: 6 MB/s.
WRITE_RATE = 30000


def two_dir_broker(start_broker, tmp_path, **overrides):
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    b = start_broker(overrides={"log.dirs": f"{d1},{d2}", **overrides})
    return b, d1.resolve(), d2.resolve()


def create(broker, topic, partitions=1, config=None):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1, config=config or {})])[topic].result(
        timeout=30)


def plan_file(tmp_path, topic, partition, log_dir):
    path = tmp_path / f"plan-{topic}-{partition}.json"
    path.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": partition, "replicas": [1], "log_dirs": [str(log_dir)]}]}))
    return path


def dir_of(broker, topic, partition):
    """(current dir, future dir or None) of the partition, from `samsa log-dirs`."""
    out = on(broker, "log-dirs", "--describe", "--topic-list", topic).ok().stdout
    doc = json.loads(out.splitlines()[2])
    current = future = None
    for d in doc["brokers"][0]["logDirs"]:
        for p in d["partitions"]:
            if p["partition"] == f"{topic}-{partition}":
                if p["isFuture"]:
                    future = d["logDir"]
                else:
                    current = d["logDir"]
    return current, future


def consume_all(broker, topic, expected):
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"check-{time.time()}",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.monotonic() + 60
    while len(got) < expected and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got.append(m.value())
    c.close()
    return got


def throttle_moves(broker, rate):
    """Sets broker 1's replica.alter.log.dirs.io.max.bytes.per.second and waits
    until its image has it. --replica-alter-log-dirs-throttle sets the same,
    but a dynamic config acts when the broker applies the image that carries
    it, and a move that starts first would copy unthrottled."""
    key = "replica.alter.log.dirs.io.max.bytes.per.second"
    on(broker, "configs", "--entity-type", "brokers", "--entity-name", "1", "--alter",
       "--add-config", f"{key}={rate}").ok()
    wait_until(lambda: f"{key}={rate} " in on(
        broker, "configs", "--entity-type", "brokers", "--entity-name", "1",
        "--describe").ok().stdout, timeout=30, what="the log dir throttle in effect")


def partition_dirs(d, topic):
    return sorted(p.name for p in d.iterdir() if p.name.startswith(topic + "-"))


def test_a_partition_moves_to_another_log_dir_under_writes(start_broker, tmp_path):
    b, d1, d2 = two_dir_broker(start_broker, tmp_path)
    # Small segments: the copy crosses many of them.
    create(b, "moving", config={"segment.bytes": "262144"})
    # The first log dir with the fewest partitions: d1.
    assert dir_of(b, "moving", 0) == (str(d1), None)

    acked, failed, stop = [], [], threading.Event()
    p = Producer({"bootstrap.servers": b.bootstrap, "enable.idempotence": True,
                  "linger.ms": 2, "batch.size": 65536})

    def delivered(err, msg):
        (failed if err else acked).append(err or msg.value())

    def produce():
        # Until the test stops it, so the move must swap while writes go on
        # (a segment rolls and is flushed about 25 times a second); paced, so
        # a fast machine does not pile up millions of records.
        i, started = 0, time.monotonic()
        while not stop.is_set():
            if i % 1000 == 0:
                ahead = i / WRITE_RATE - (time.monotonic() - started)
                if ahead > 0:
                    stop.wait(ahead)
            try:
                p.produce("moving", b"%08d" % i + b"x" * 200, partition=0, on_delivery=delivered)
                i += 1
            except BufferError:
                p.poll(0.05)
            p.poll(0)
        p.flush(60)

    writer = threading.Thread(target=produce)
    writer.start()
    try:
        wait_until(lambda: len(acked) > 40000, timeout=60, what="records before the move")
        plan = plan_file(tmp_path, "moving", 0, d2)
        out = on(b, "reassign-partitions", "--execute", "--reassignment-json-file", plan).ok().stdout
        at_start = len(acked)
        assert (f"Successfully started moving log directory to {d2} for replica moving-0 "
                "with broker 1 \n") in out
        wait_until(lambda: "Reassignment of replica moving-0-1 completed successfully." in on(
            b, "reassign-partitions", "--verify", "--reassignment-json-file", plan).ok().stdout,
            timeout=60, what="the move to complete")
        # Writes went on during the move, and after it.
        at_end = len(acked)
        print(f"log dir move: {at_start} records acknowledged before, {at_end - at_start} "
              "during the move")
        assert at_end > at_start
        wait_until(lambda: len(acked) > at_end + 1000, timeout=30, what="writes after the move")
    finally:
        stop.set()
        writer.join(120)
    assert not failed, failed[:3]
    assert dir_of(b, "moving", 0) == (str(d2), None)
    assert partition_dirs(d2, "moving") == ["moving-0"]
    assert all(n.endswith("-delete") for n in partition_dirs(d1, "moving"))
    assert "event=log_dir_moved partition=moving-0" in b.log_text()

    # Every acknowledged record once, in order; again after a restart.
    assert consume_all(b, "moving", len(acked)) == acked
    b.restart()
    assert dir_of(b, "moving", 0) == (str(d2), None)
    assert consume_all(b, "moving", len(acked)) == acked


def test_verify_reports_a_move_in_progress_and_one_that_is_not_asked_for(start_broker,
                                                                        tmp_path):
    b, d1, d2 = two_dir_broker(start_broker, tmp_path)
    create(b, "still")
    plan = plan_file(tmp_path, "still", 0, d2)
    out = on(b, "reassign-partitions", "--verify", "--reassignment-json-file", plan).ok().stdout
    assert f"Partition still-0 on broker 1 is not being moved from log dir {d1} to {d2}." in out
    # A plan naming the dir it is in: done at once.
    here = plan_file(tmp_path, "still", 0, d1)
    on(b, "reassign-partitions", "--execute", "--reassignment-json-file", here).ok()
    out = on(b, "reassign-partitions", "--verify", "--reassignment-json-file", here).ok().stdout
    assert "Reassignment of replica still-0-1 completed successfully." in out


def test_a_plan_with_a_dir_the_broker_lacks_fails_with_kafkas_message(start_broker, tmp_path):
    b, d1, d2 = two_dir_broker(start_broker, tmp_path)
    create(b, "nowhere")
    plan = plan_file(tmp_path, "nowhere", 0, tmp_path / "d3")
    res = on(b, "reassign-partitions", "--execute", "--reassignment-json-file", plan).failed()
    assert "Failed to alter dir for nowhere-0-1" in res.error
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "nowhere", "partition": 0, "replicas": [1], "log_dirs": ["any", "any"]}]}))
    res = on(b, "reassign-partitions", "--execute", "--reassignment-json-file", bad).failed()
    assert "Size of replicas list [1] is different from size of log dirs list [any, any]" in res.error


def alter_replica_log_dirs(broker, dirs):
    """AlterReplicaLogDirs v1: {path: {topic: [partitions]}} -> {(topic, p): error}."""
    body = kw.array([kw.string(path) + kw.array([
        kw.string(t) + kw.array([kw.int32(p) for p in ps]) for t, ps in topics.items()])
        for path, topics in dirs.items()])
    with kw.KafkaConnection.to(broker) as c:
        r = kw.Reader(c.roundtrip(ALTER_REPLICA_LOG_DIRS, 1, body))
    r.int32()  # throttle
    out = {}
    for _ in range(r.int32()):
        topic = r.string()
        for _ in range(r.int32()):
            p, err = r.int32(), r.int16()
            out[(topic, p)] = err
    r.end()
    return out


def test_the_wire_answers_with_kafkas_error_codes(start_broker, tmp_path):
    b, d1, d2 = two_dir_broker(start_broker, tmp_path)
    create(b, "wire", partitions=2)
    errors = alter_replica_log_dirs(b, {
        str(tmp_path / "nope"): {"wire": [0]},
        str(d2): {"wire": [1, 7], "absent": [0]},
    })
    assert errors == {("wire", 0): LOG_DIR_NOT_FOUND, ("wire", 1): kw.NONE,
                      ("wire", 7): kw.UNKNOWN_TOPIC_OR_PARTITION,
                      ("absent", 0): kw.UNKNOWN_TOPIC_OR_PARTITION}
    wait_until(lambda: dir_of(b, "wire", 1) == (str(d2), None), timeout=30,
               what="wire-1 in d2")
    # A topic created after a move was asked for its partition: created there.
    errors = alter_replica_log_dirs(b, {str(d2): {"later": [0]}})
    assert errors == {("later", 0): kw.UNKNOWN_TOPIC_OR_PARTITION}
    create(b, "later")
    assert dir_of(b, "later", 0)[0] == str(d2)


def test_a_move_killed_midway_resumes_after_the_restart(start_broker, tmp_path):
    """kill -9 while a throttled move copies: the -future dir is loaded at the
    next start, the copy goes on from where it was, and every acknowledged
    record is there once, in order.

    The throttle's rate is measured as Kafka measures it, over all but one of
    replication.quota.window.num samples from the start: with Kafka's 11, a
    move may copy 10 s worth (10 MB here, all of it) before the throttle
    holds it. Two samples and 64 KiB steps let only about one second's worth
    go at once, so the copy takes some 8 s and is caught midway."""
    b, d1, d2 = two_dir_broker(start_broker, tmp_path, **{"replication.quota.window.num": 2,
                                                          "replica.fetch.max.bytes": 65536})
    create(b, "killed", config={"segment.bytes": "262144"})
    p = Producer({"bootstrap.servers": b.bootstrap, "enable.idempotence": True,
                  "linger.ms": 5, "batch.size": 65536})
    acked = []
    for i in range(40000):  # some 8 MB
        while True:
            try:
                p.produce("killed", b"%08d" % i + b"y" * 200, partition=0,
                          on_delivery=lambda err, msg: acked.append(msg.value()) if not err
                          else None)
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(60) == 0
    assert len(acked) == 40000
    # 1 MB/s: the copy takes seconds, and is caught midway.
    throttle_moves(b, 1000000)
    plan = plan_file(tmp_path, "killed", 0, d2)
    on(b, "reassign-partitions", "--execute", "--reassignment-json-file", plan,
       "--replica-alter-log-dirs-throttle", "1000000").ok()
    wait_until(lambda: dir_of(b, "killed", 0) == (str(d1), str(d2)), timeout=30,
               what="the move to start")
    assert "Reassignment of replica killed-0-1 is still in progress." in on(
        b, "reassign-partitions", "--verify", "--reassignment-json-file", plan,
        "--preserve-throttles").ok().stdout
    b.kill()
    b.wait()
    futures = [n for n in partition_dirs(d2, "killed") if n.endswith("-future")]
    assert len(futures) == 1, partition_dirs(d2, "killed")

    b.start()
    # The throttle is a dynamic broker config: it holds after the restart.
    # Lift it.
    on(b, "configs", "--entity-type", "brokers", "--entity-name", "1", "--alter",
       "--delete-config", "replica.alter.log.dirs.io.max.bytes.per.second").ok()
    wait_until(lambda: dir_of(b, "killed", 0) == (str(d2), None), timeout=60,
               what="the resumed move to finish")
    assert "event=log_dir_move_started partition=killed-0" in b.log_text()
    out = on(b, "reassign-partitions", "--verify", "--reassignment-json-file", plan).ok().stdout
    assert "Reassignment of replica killed-0-1 completed successfully." in out
    assert consume_all(b, "killed", len(acked)) == acked


def test_a_throttled_move_copies_at_the_throttle(start_broker, tmp_path):
    """replica.alter.log.dirs.io.max.bytes.per.second: 4 MB moved at 1 MB/s
    takes about 4 s. The rate is measured over two one-second samples and a
    step copies at most replica.fetch.max.bytes (64 KiB here), so the move
    starts with about one sample's worth at once and then goes at the
    throttle."""
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    b = start_broker(overrides={"log.dirs": f"{d1},{d2}", "replication.quota.window.num": 2,
                                "replica.fetch.max.bytes": 65536})
    d2 = d2.resolve()
    create(b, "paced")
    p = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 5, "batch.size": 65536,
                  "compression.type": "none"})
    for i in range(4000):
        while True:
            try:
                p.produce("paced", b"%06d" % i + b"z" * 1018, partition=0)
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(60) == 0
    size = sum(f.stat().st_size for f in (d1.resolve() / "paced-0").glob("*.log"))
    assert size > 4_000_000, size
    rate = 1_000_000
    throttle_moves(b, rate)
    plan = plan_file(tmp_path, "paced", 0, d2)
    started = time.monotonic()
    out = on(b, "reassign-partitions", "--execute", "--reassignment-json-file", plan,
             "--replica-alter-log-dirs-throttle", str(rate)).ok().stdout
    assert "The replica-alter-dir throttle limit was set to 1000000 B/s" in out, out
    wait_until(lambda: dir_of(b, "paced", 0) == (str(d2), None), timeout=60,
               what="the throttled move to finish")
    elapsed = time.monotonic() - started
    expected = size / rate
    print(f"moved {size} B between log dirs in {elapsed:.1f} s under a {rate} B/s throttle")
    assert elapsed >= 0.75 * expected, (elapsed, expected)
    # A loaded machine may add time, never take it away.
    assert elapsed <= 1.5 * expected + 10, (elapsed, expected)
    # --verify clears the throttle once the move is done.
    out = on(b, "reassign-partitions", "--verify", "--reassignment-json-file", plan).ok().stdout
    assert "Reassignment of replica paced-0-1 completed successfully." in out
    assert "Clearing broker-level throttles on broker 1" in out
    described = on(b, "configs", "--entity-type", "brokers", "--entity-name", "1",
                   "--describe").ok().stdout
    assert "replica.alter.log.dirs.io.max.bytes.per.second" not in described
