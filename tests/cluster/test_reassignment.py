"""Partition reassignment on a 3-node cluster with `samsa reassign-partitions`
(Kafka's kafka-reassign-partitions.sh flags, files and output): a move from
brokers [1,2] to [2,3] while an idempotent acks=all producer and a consumer
group run loses no acknowledged record, leaves the records on the new
replicas byte for byte and removes the old replica's log; a reassignment
that cannot finish (its new replica is stopped) is listed, cancelled, and
the original replicas come back."""
import glob
import json
import logging
import os
import re
import signal
import threading
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient

from cluster_harness import log_dirs_of
from samsa_cli import cli
from samsa_harness import wait_until
from test_replication import (FAST, create, explain, produce, read_all, segment_bytes,
                              settle)


def replicas_of(c, topic, via=None):
    """{partition: (replicas in assignment order, sorted isr)}, as `via` (or
    the first node that knows the topic) sees them."""
    for b in ([via] if via else c.running()):
        md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(topic, timeout=5)
        t = md.topics.get(topic)
        if t is not None and t.error is None:
            return {p.id: (list(p.replicas), sorted(p.isrs)) for p in t.partitions.values()}
    return {}


def partition_leader(c, topic, partition=0):
    md = AdminClient({"bootstrap.servers": c.bootstrap}).list_topics(topic, timeout=5)
    return md.topics[topic].partitions[partition].leader


def reassign(c, *args, via=None):
    """The verb through `via` (default: the first node), a node that runs."""
    return cli("reassign-partitions", "--bootstrap-server", (via or c.nodes[0]).bootstrap, *args)


def plan_file(tmp_path, name, moves):
    path = tmp_path / name
    path.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": r} for t, p, r in moves]}))
    return str(path)


def has_log_dir(node, topic, partition):
    return any(re.search(rf"/{re.escape(topic)}-{partition}$", d)
               for d in glob.glob(str(node.data_dir / f"{topic}-*")))


def test_a_move_under_load_keeps_every_acknowledged_record(cluster, tmp_path):
    c = cluster(3, FAST)
    create(c, "moving", assignment=[[1, 2], [2, 1]])
    stop = threading.Event()
    acked, errors, consumed = [], [], set()
    lock = threading.Lock()

    def cb(err, msg):
        with lock:
            (errors.append(err) if err else acked.append((msg.partition(), msg.value())))

    def run_producer():
        p = Producer({"bootstrap.servers": c.bootstrap, "acks": "all",
                      "enable.idempotence": True, "linger.ms": 5})
        i = 0
        while not stop.is_set():
            try:
                p.produce("moving", value=b"m%07d" % i, partition=i % 2, on_delivery=cb)
                i += 1
            except BufferError:
                p.poll(0.05)
                continue
            if i % 50 == 0:
                p.poll(0.005)
        p.flush(60)

    # With $SAMSA_DUMP_DIR the consumer's fetch log goes there.
    dump = os.environ.get("SAMSA_DUMP_DIR")
    debug = {}
    if dump:
        os.makedirs(dump, exist_ok=True)
        log_file = open(os.path.join(dump, "moving-consumer.log"), "w", buffering=1)

        class Keep(logging.Handler):
            def emit(self, record):
                log_file.write(f"{time.time():.3f} {record.getMessage()}\n")
        logger = logging.getLogger("moving-consumer")
        logger.addHandler(Keep())
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        debug = {"debug": "fetch,topic,consumer,cgrp", "logger": logger}

    def run_consumer():
        cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "while-moving",
                         "auto.offset.reset": "earliest",
                         **({"debug": debug["debug"]} if debug else {})},
                        **({"logger": debug["logger"]} if debug else {}))
        cons.subscribe(["moving"])
        # Until the checks are done: a record can be read before the
        # producer's thread has run its delivery callback.
        while not consumer_stop.is_set():
            m = cons.poll(0.2)
            if m is not None and not m.error():
                with lock:
                    consumed.add(m.value())
        cons.close()

    consumer_stop = threading.Event()
    threads = [threading.Thread(target=run_producer, daemon=True),
               threading.Thread(target=run_consumer, daemon=True)]
    for t in threads:
        t.start()
    try:
        wait_until(lambda: len(acked) > 2000, 60, "records acknowledged before the move")
        plan = plan_file(tmp_path, "move.json", [("moving", 0, [2, 3]), ("moving", 1, [3, 2])])
        out = reassign(c, "--reassignment-json-file", plan, "--execute").ok().stdout
        assert out.startswith("Current partition replica assignment\n\n"), out
        current = json.loads(out.split("\n")[2])
        assert current == {"version": 1, "partitions": [
            {"topic": "moving", "partition": 0, "replicas": [1, 2], "log_dirs": ["any", "any"]},
            {"topic": "moving", "partition": 1, "replicas": [2, 1], "log_dirs": ["any", "any"]}]}
        assert "Save this to use as the --reassignment-json-file option during rollback" in out
        assert out.rstrip().endswith(
            "Successfully started partition reassignments for moving-0,moving-1"), out

        def verified():
            r = reassign(c, "--reassignment-json-file", plan, "--verify").ok().stdout
            return r.count("is completed.") == 2 and r
        status = settle(c, "moving", verified, 90, "both moves completed")
        assert status.startswith("Status of partition reassignment:\n"), status
        assert "Reassignment of partition moving-0 is completed." in status
        wait_until(lambda: len(acked) > 4000, 60, "records acknowledged after the move")
    except BaseException:
        consumer_stop.set()
        raise
    finally:
        stop.set()
        threads[0].join(90)
    if errors:
        consumer_stop.set()
    assert not errors, errors[:3]
    view = replicas_of(c, "moving")
    assert view[0][0] == [2, 3] and view[1][0] == [3, 2], view
    assert set(view[0][1]) <= {2, 3} and set(view[1][1]) <= {2, 3}, view
    # Broker 1 is no replica any more: its logs are gone.
    settle(c, "moving", lambda: not has_log_dir(c.node(1), "moving", 0)
           and not has_log_dir(c.node(1), "moving", 1), 30, "broker 1's logs removed")
    # Every acknowledged record, once, in order per partition.
    got = read_all(c.bootstrap, "moving", 2, timeout=60)
    for part in (0, 1):
        mine = [v for p, v in acked if p == part]
        assert got[part] == mine, (part, len(got[part]), len(mine))
    wanted = {v for _, v in acked}
    try:
        wait_until(lambda: wanted <= consumed, 60, "the group consumed every record")
    except TimeoutError:
        missing = sorted(wanted - consumed)
        by_part = {p: sum(1 for q, v in acked if q == p and v in consumed) for p in (0, 1)}
        raise AssertionError(f"{len(missing)} records never consumed, e.g. {missing[:3]}; "
                             f"consumed per partition {by_part} of "
                             f"{ {p: sum(1 for q, _ in acked if q == p) for p in (0, 1)} }\n"
                             f"{explain(c, 'moving')}") from None
    finally:
        consumer_stop.set()
        threads[1].join(60)
    settle(c, "moving", lambda: segment_bytes(c.node(2), "moving") ==
           segment_bytes(c.node(3), "moving"), 30, "the new replicas identical")
    assert reassign(c, "--list").ok().stdout == "No partition reassignments found.\n"


def test_a_reassignment_that_cannot_finish_is_listed_and_cancelled(cluster, tmp_path):
    c = cluster(3, FAST)
    controller = c.wait_for_leader().leader_id
    # The replica to add is not the controller: it is stopped.
    stopped = next(n for n in (3, 2, 1) if n != controller)
    kept = [n for n in (1, 2, 3) if n != stopped]
    create(c, "stay", assignment=[kept])
    plan = plan_file(tmp_path, "stuck.json", [("stay", 0, [kept[0], stopped])])
    victim = c.node(stopped)
    via = c.node(kept[0])
    settle(c, "stay", lambda: replicas_of(c, "stay", via), 15, "the topic known to the node asked")
    victim.kill(signal.SIGSTOP)
    try:
        reassign(c, "--reassignment-json-file", plan, "--execute", via=via).ok()
        listed = settle(c, "stay", lambda: (lambda out: "adding" in out and out)(
            reassign(c, "--list", via=via).ok().stdout), 15, "the reassignment listed")
        assert listed == (f"Current partition reassignments:\nstay-0: replicas: "
                          f"{kept[0]},{stopped},{kept[1]}. adding: {stopped}. "
                          f"removing: {kept[1]}.\n"), listed
        verify = reassign(c, "--reassignment-json-file", plan, "--verify", via=via).ok().stdout
        assert "Reassignment of partition stay-0 is still in progress." in verify
        out = reassign(c, "--reassignment-json-file", plan, "--cancel", via=via).ok().stdout
        assert out == "Successfully cancelled partition reassignment for: stay-0\n", out
        assert reassign(c, "--reassignment-json-file", plan, "--cancel", via=via).ok().stdout \
            == "None of the specified partition reassignments are active.\n"
    finally:
        victim.kill(signal.SIGCONT)
    settle(c, "stay", lambda: replicas_of(c, "stay")[0][0] == kept, 15,
           "the original replicas back")
    # The stopped broker is no replica: whatever log it began is removed.
    settle(c, "stay", lambda: not has_log_dir(victim, "stay", 0), 30,
           f"broker {stopped}'s log of stay-0 removed")
    # Refusals name the partition and why.
    bad = plan_file(tmp_path, "bad.json", [("stay", 0, [kept[0], 42])])
    r = reassign(c, "--reassignment-json-file", bad, "--execute").failed()
    assert ("stay-0: The manual partition assignment includes broker 42, but no such broker "
            "is registered.") in r.stderr, r.stderr
    # The seeds' example: reordering the replicas moves no data and keeps the
    # leader; the next preferred election makes the new first replica lead.
    order = plan_file(tmp_path, "order.json", [("stay", 0, [kept[1], kept[0]])])
    reassign(c, "--reassignment-json-file", order, "--execute").ok()
    settle(c, "stay", lambda: replicas_of(c, "stay")[0][0] == [kept[1], kept[0]], 15,
           "the new order")
    elect = ("leader-election", "--bootstrap-server", c.bootstrap, "--election-type",
             "preferred", "--topic", "stay", "--partition", "0")
    assert cli(*elect).ok().stdout == \
        "Successfully completed leader election (PREFERRED) for partitions stay-0\n"
    settle(c, "stay", lambda: partition_leader(c, "stay") == kept[1], 15, "the new leader")
    assert cli(*elect).ok().stdout == "Valid replica already elected for partitions stay-0\n"
    assert "must be preferred or unclean" in cli(*elect[:4], "sometimes", *elect[5:]).failed() \
        .error
    # --generate spreads the topic's partitions over the broker list.
    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps({"version": 1, "topics": [{"topic": "stay"}]}))
    out = reassign(c, "--generate", "--topics-to-move-json-file", str(topics),
                   "--broker-list", "3,1").ok().stdout
    lines = out.splitlines()
    assert lines[0] == "Current partition replica assignment", out
    assert json.loads(lines[1])["partitions"][0]["replicas"] == [kept[1], kept[0]]
    assert lines[3] == "Proposed partition reassignment configuration", out
    assert lines[4] == ('{"version":1,"partitions":[{"topic":"stay","partition":0,'
                        '"replicas":[3,1],"log_dirs":["any","any"]}]}'), out


def topic_configs(c, topic):
    from confluent_kafka.admin import ConfigResource
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    [f] = admin.describe_configs([ConfigResource("topic", topic)]).values()
    return {k: v.value for k, v in f.result(timeout=20).items()}


def broker_dynamic_configs(node):
    from confluent_kafka.admin import ConfigResource, ConfigSource
    admin = AdminClient({"bootstrap.servers": node.bootstrap})
    [f] = admin.describe_configs([ConfigResource("broker", str(node.node_id))]).values()
    return {k: v.value for k, v in f.result(timeout=20).items()
            if v.source == ConfigSource.DYNAMIC_BROKER_CONFIG.value}


def test_a_throttled_move_runs_at_the_throttle_and_verify_clears_it(cluster, tmp_path):
    """KIP-73: 6 MB moved from broker 1 to broker 2 under --throttle 500000
    takes about 12 s, not the fraction of a second it takes unthrottled. The
    rate is measured over two one-second samples (replication.quota.window.num)
    and fetches carry 64 KiB, so the move starts with about one sample's worth
    at once and then goes at the throttle. A follower whose every partition is
    held back waits replica.fetch.backoff.ms before it asks again (as Kafka's
    fetcher does), 100 ms here."""
    c = cluster(3, {**FAST, "replication.quota.window.num": 2,
                    "replica.fetch.max.bytes": 65536, "replica.fetch.backoff.ms": 100})
    create(c, "slow", partitions=1, rf=1, assignment=[[1]])
    value = os.urandom(1024)
    acked, errors = produce(c.bootstrap, "slow", [value + b"%06d" % i for i in range(6000)],
                            **{"compression.type": "none", "batch.size": 65536})
    assert not errors and len(acked) == 6000, errors[:3]
    size = sum(len(b) for b in segment_bytes(c.nodes[0], "slow").values())
    assert size > 6_000_000, size
    rate = 500_000

    plan = plan_file(tmp_path, "slow.json", [("slow", 0, [2])])
    started = time.monotonic()
    out = reassign(c, "--reassignment-json-file", plan, "--execute",
                   "--throttle", str(rate)).ok().stdout
    assert ("Warning: You must run --verify periodically, until the reassignment completes, to "
            "ensure the throttle is removed.") in out, out
    assert "The inter-broker throttle limit was set to 500000 B/s" in out, out
    # Each node describes from its own image, which follows the controller's.
    wait_until(lambda: (topic_configs(c, "slow")["leader.replication.throttled.replicas"],
                        topic_configs(c, "slow")["follower.replication.throttled.replicas"]) ==
               ("0:1", "0:2"), 30, "the topic's throttled replicas")
    for node in c.nodes[:2]:
        wait_until(lambda: broker_dynamic_configs(node).get("leader.replication.throttled.rate") ==
                   str(rate) and broker_dynamic_configs(node).get(
                       "follower.replication.throttled.rate") == str(rate), 30,
                   f"broker {node.node_id}'s throttle rates")

    settle(c, "slow", lambda: replicas_of(c, "slow").get(0, ([], []))[0] == [2], 120,
           "the move to broker 2 to complete")
    elapsed = time.monotonic() - started
    expected = size / rate
    print(f"moved {size} B in {elapsed:.1f} s: {size / elapsed:.0f} B/s under a {rate} B/s "
          f"throttle")
    assert elapsed >= 0.75 * expected, (elapsed, expected)
    # A loaded machine may add seconds (the ISR change, the metadata round
    # trips), never take them away.
    assert elapsed <= 1.5 * expected + 10, (elapsed, expected)

    status = reassign(c, "--reassignment-json-file", plan, "--verify").ok().stdout
    assert "Reassignment of partition slow-0 is completed." in status, status
    assert "Clearing broker-level throttles on brokers 1,2,3" in status, status
    assert "Clearing topic-level throttles on topic slow" in status, status
    wait_until(lambda: (topic_configs(c, "slow")["leader.replication.throttled.replicas"],
                        topic_configs(c, "slow")["follower.replication.throttled.replicas"]) ==
               ("", ""), 30, "the topic's throttled replicas cleared")
    for node in c.nodes:
        wait_until(lambda: not {"leader.replication.throttled.rate",
                                "follower.replication.throttled.rate"} &
                   set(broker_dynamic_configs(node)), 30, f"broker {node.node_id}'s rates cleared")
    got = read_all(c.bootstrap, "slow", 1, timeout=60)[0]
    assert got == [value + b"%06d" % i for i in range(6000)]


def test_a_replica_moves_to_another_broker_and_into_the_log_dir_the_plan_names(cluster,
                                                                               tmp_path):
    """A plan whose log_dirs names broker 2's second log dir: --execute asks
    broker 2 for the dir before its replica exists (REPLICA_NOT_AVAILABLE,
    retried as Kafka's tool retries), broker 2 creates the replica there when
    the reassignment reaches it, and --verify reports both moves done."""
    c = cluster(3, FAST, log_dirs=2)
    create(c, "jbod", partitions=1, rf=1, assignment=[[1]])
    values = [b"j%05d" % i for i in range(3000)]
    acked, errors = produce(c.bootstrap, "jbod", values)
    assert not errors and len(acked) == len(values), errors[:3]

    target = log_dirs_of(c.nodes[1], 2)[1].resolve()
    plan = tmp_path / "jbod.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "jbod", "partition": 0, "replicas": [2], "log_dirs": [str(target)]}]}))
    out = reassign(c, "--reassignment-json-file", str(plan), "--execute").ok().stdout
    assert "Successfully started partition reassignment for jbod-0" in out, out
    assert (f"Successfully started moving log directory to {target} for replica jbod-0 "
            "with broker 2 \n") in out, out
    settle(c, "jbod", lambda: replicas_of(c, "jbod").get(0, ([], []))[0] == [2], 120,
           "the move to broker 2 to complete")
    status = reassign(c, "--reassignment-json-file", str(plan), "--verify").ok().stdout
    assert "Reassignment of partition jbod-0 is completed." in status, status
    assert "Reassignment of replica jbod-0-2 completed successfully." in status, status
    assert (target / "jbod-0").is_dir()
    assert not (c.nodes[1].data_dir / "jbod-0").exists()
    assert read_all(c.bootstrap, "jbod", 1, timeout=60)[0] == values
