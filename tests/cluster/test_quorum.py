"""Three combined nodes (broker + controller) form one cluster over the Raft
metadata quorum: one active controller, topics created through any node seen by
all, a new controller elected when the active one is killed, a broker that stops
heartbeating fenced and its leaderships moved, a second process with a live
node's id refused."""
import re
import signal
import subprocess
import time

from confluent_kafka.admin import AdminClient, NewTopic

from samsa_harness import Broker, samsa_bin, wait_until

FAST = {
    # Small timers so that elections and fencing happen within seconds.
    "controller.quorum.election.timeout.ms": 500,
    "controller.quorum.fetch.timeout.ms": 1000,
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "offsets.topic.replication.factor": 3,
}


def admin(bootstrap):
    # Longer than CreateTopics' operation timeout below: a broker holds a
    # forwarded request until a controller answers or that timeout passes (as
    # Kafka's forwarding manager does), so a shorter client timeout would give
    # up first on a loaded machine.
    return AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 15000})


def create_topic(bootstrap, name, partitions=3, rf=3, timeout=45.0):
    """Creates `name`, retrying while the controller moves (NOT_CONTROLLER)."""
    deadline = time.monotonic() + timeout
    while True:
        # A fresh client each try: librdkafka keeps waiting for the controller
        # its first Metadata answer named, which right after a failover may be
        # the node just killed (a survivor not yet told of the election still
        # names it).
        client = admin(bootstrap)  # alive until its futures resolve
        fut = client.create_topics(
            [NewTopic(name, num_partitions=partitions, replication_factor=rf)],
            operation_timeout=10)[name]
        try:
            fut.result(timeout=25)
            return
        except Exception as e:  # KafkaException with the broker's error
            if time.monotonic() >= deadline:
                raise
            if "already exists" in str(e).lower():
                return
            time.sleep(0.2)


def topic_view(node, name):
    """The topic as `node` itself sees it: {partition: (leader, replicas, isr)}."""
    md = admin(node.bootstrap).list_topics(timeout=5)
    t = md.topics.get(name)
    if t is None or t.error is not None:
        return None
    return {p.id: (p.leader, tuple(p.replicas), tuple(p.isrs)) for p in t.partitions.values()}


def brokers_seen(node):
    return sorted(admin(node.bootstrap).list_topics(timeout=5).brokers)


def test_one_leader_and_every_node_sees_the_same_metadata(cluster):
    c = cluster(3, FAST)
    q = c.wait_for_leader()
    assert q.leader_id in (1, 2, 3)
    assert sorted(q.voters) == [1, 2, 3]
    # Every node answers with the same quorum (non-leaders forward).
    for b in c.nodes:
        assert describe_leader(c, b) == q.leader_id
    # A topic created through a node that does not lead the quorum.
    via = next(b for b in c.nodes if b.node_id != q.leader_id)
    create_topic(via.bootstrap, "spread", partitions=4, rf=3)
    views = [wait_until(lambda b=b: topic_view(b, "spread"), 10, f"node {b.node_id} sees it")
             for b in c.nodes]
    assert views[0] == views[1] == views[2]
    leaders = {leader for leader, _, _ in views[0].values()}
    for _, replicas, isr in views[0].values():
        assert sorted(replicas) == [1, 2, 3]
        assert sorted(isr) == [1, 2, 3]
    assert len(leaders) >= 2, f"leaders not spread: {views[0]}"
    for b in c.nodes:
        assert brokers_seen(b) == [1, 2, 3]
    # The quorum's log reached every voter.
    def caught_up():
        qq = c.quorum()
        return qq and min(qq.voters.values()) >= qq.high_watermark > 0
    wait_until(caught_up, 10, "every voter at the high watermark")
    # `samsa cluster --describe` shows the brokers and the quorum.
    out = subprocess.run([str(samsa_bin()), "cluster", "--bootstrap-server", via.bootstrap],
                         capture_output=True, text=True, timeout=30).stdout
    assert f"Quorum: leader {q.leader_id}," in out, out
    assert len(re.findall(r"^\d+\s+voter\s", out, re.M)) == 3, out
    assert "Brokers: 3" in out, out


def describe_leader(c, node):
    q = c.quorum(via=node)
    return q.leader_id if q else None


def test_killing_the_active_controller_elects_another(cluster):
    c = cluster(3, FAST)
    q = c.wait_for_leader()
    old = c.node(q.leader_id)
    old.kill(signal.SIGKILL)
    old.wait()
    t0 = time.monotonic()
    q2 = c.wait_for_leader(timeout=15, not_id=old.node_id)
    elapsed = time.monotonic() - t0
    assert q2.leader_epoch > q.leader_epoch
    assert elapsed < 10, f"a new controller took {elapsed:.1f}s"
    # Topic creation keeps working with two of three voters.
    create_topic(c.bootstrap, "after-failover", partitions=2, rf=2)
    survivor = c.node(q2.leader_id)
    wait_until(lambda: topic_view(survivor, "after-failover"), 10, "the topic")
    # The old controller comes back as a follower and catches up.
    old.start()
    def rejoined():
        qq = c.quorum()
        return (qq and qq.leader_id != old.node_id
                and qq.voters.get(old.node_id, -1) >= qq.high_watermark)
    wait_until(rejoined, 15, "the restarted node caught up as a follower")
    wait_until(lambda: topic_view(old, "after-failover"), 10, "restarted node sees the topic")


def test_a_broker_that_stops_heartbeating_is_fenced(cluster):
    c = cluster(3, FAST)
    q = c.wait_for_leader()
    create_topic(c.bootstrap, "fence-me", partitions=6, rf=3)
    victim = next(b for b in c.nodes if b.node_id != q.leader_id)
    witness = c.node(q.leader_id)
    view = wait_until(lambda: topic_view(witness, "fence-me"), 10, "the topic")
    assert any(leader == victim.node_id for leader, _, _ in view.values())
    victim.kill(signal.SIGSTOP)
    try:
        def moved():
            v = topic_view(witness, "fence-me")
            return v and all(leader != victim.node_id and victim.node_id not in isr
                             for leader, _, isr in v.values())
        wait_until(moved, 15, "leaderships moved off the silent broker")
        expired = "event=broker_session_expired node_id=%d" % victim.node_id
        assert any(expired in b.log_text() for b in c.nodes if b is not victim)
        assert victim.node_id not in brokers_seen(witness)
    finally:
        victim.kill(signal.SIGCONT)
    # Back: heartbeats unfence it (it leads nothing until an election needs it).
    def unfenced():
        return victim.node_id in brokers_seen(witness)
    wait_until(unfenced, 15, "the broker registered as alive again")


def test_a_stopped_controller_hands_leadership_over_at_once(cluster):
    # Long timers: only the resignation (EndQuorumEpoch) can make this fast.
    c = cluster(3, dict(FAST, **{"controller.quorum.election.timeout.ms": 5000,
                                 "controller.quorum.fetch.timeout.ms": 10000}))
    q = c.wait_for_leader(timeout=30)
    old = c.node(q.leader_id)
    t0 = time.monotonic()
    old.stop()  # SIGTERM: controlled shutdown, then the quorum resignation
    q2 = c.wait_for_leader(timeout=30, not_id=old.node_id)
    elapsed = time.monotonic() - t0
    assert q2.leader_epoch > q.leader_epoch
    assert elapsed < 5, f"the next controller took {elapsed:.1f}s"
    assert "event=quorum_resigned" in old.log_text()


def test_a_node_behind_the_log_start_catches_up_from_the_leaders_snapshot(cluster):
    # Every committed batch is followed by a snapshot, and with no retention
    # the log below it is dropped: a voter that was down meanwhile must fetch
    # the snapshot (FetchSnapshot, KIP-630) to catch up.
    c = cluster(3, dict(FAST, **{"metadata.log.max.record.bytes.between.snapshots": 1,
                                 "metadata.max.retention.bytes": 0}))
    q = c.wait_for_leader()
    away = next(b for b in c.nodes if b.node_id != q.leader_id)
    away.kill(signal.SIGKILL)
    away.wait()
    others = ",".join(b.bootstrap for b in c.running())
    for i in range(5):
        create_topic(others, f"while-away-{i}", partitions=1, rf=2)
    away.start()
    wait_until(lambda: all(topic_view(away, f"while-away-{i}") for i in range(5)), 30,
               "the returning node sees every topic created while it was away")
    assert "event=raft_snapshot_installed" in away.log_text()


def test_nodes_formatted_with_different_cluster_ids_say_so_and_name_the_fix():
    # Started as the README shows but each with its own cluster id (as a first
    # start without --cluster-id formats them): they never form a quorum, and
    # every refused exchange is logged with both ids and the way out.
    from cluster_harness import Cluster

    cluster = Cluster(2, overrides=FAST)
    try:
        import base64
        import uuid
        ids = [base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
               for _ in cluster.nodes]
        for node, cid in zip(cluster.nodes, ids):
            node.cluster_id = cid
        for node in cluster.nodes:
            node.start(wait_ready=False)
        line = None
        deadline = time.monotonic() + 30
        while line is None and time.monotonic() < deadline:
            for node in cluster.nodes:
                for l in node.log_text().splitlines():
                    if "event=quorum_cluster_id_mismatch" in l and "peer_cluster_id=" in l:
                        line = l
            time.sleep(0.2)
        assert line is not None, cluster.nodes[0].log_text()[-3000:]
        assert all(cid in line for cid in ids), line
        assert "--cluster-id" in line, line
        assert any("event=quorum_cluster_id_mismatch" in l and "node " in l
                   for n in cluster.nodes for l in n.log_text().splitlines()), \
            "the refused side's peer does not say why"
    finally:
        cluster.cleanup()


def test_a_second_process_with_a_live_brokers_node_id_is_refused(cluster):
    """Three controllers and broker 4: a second broker started with node.id 4
    while broker 4 is alive is refused with DUPLICATE_BROKER_REGISTRATION
    (Kafka's ClusterControlManager), and broker 4 keeps its registration and
    address. Once broker 4 is killed, its session ends and the newcomer
    registers."""
    c = cluster(4, FAST, voters=[1, 2, 3])
    c.wait_for_leader()
    original = c.node(4)
    witness = c.node(1)
    dup = Broker(overrides=FAST, node_id=4, cluster_id=original.cluster_id)
    dup.extra_properties.update({
        "process.roles": "broker",
        "listeners": f"PLAINTEXT://{dup.host}:{dup.port}",
        "controller.quorum.voters": original.extra_properties["controller.quorum.voters"],
    })
    dup._write_properties()
    try:
        dup.start(wait_ready=False)
        refused = "event=broker_registration_refused node_id=4 error=DUPLICATE_BROKER_REGISTRATION"
        wait_until(lambda: refused in dup.log_text(), 30, "the duplicate refused")
        assert any("event=broker_registration_refused node_id=4" in b.log_text()
                   for b in c.nodes), "no controller logged the refusal"
        assert "event=broker_registration_accepted" not in dup.log_text()
        md = admin(witness.bootstrap).list_topics(timeout=5)
        assert md.brokers[4].port == original.port
        # The original goes (a crash): after its session, the newcomer is node 4.
        original.kill(signal.SIGKILL)
        original.wait()
        dup.wait_ready(timeout=60)
        assert "event=broker_registration_accepted node_id=4" in dup.log_text()
        def newcomer_listed():
            b = admin(witness.bootstrap).list_topics(timeout=5).brokers.get(4)
            return b is not None and b.port == dup.port
        wait_until(newcomer_listed, 30, "node 4 at the newcomer's address")
    except BaseException:
        print("--- the second node 4's log ---\n" + dup.log_text())
        raise
    finally:
        dup.cleanup()
