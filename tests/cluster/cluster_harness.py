"""A cluster of `samsa server` processes on loopback, and what the scenarios ask
of it: who leads the metadata quorum (DescribeQuorum on the wire), which
brokers and partition leaders a node's Metadata shows."""
import base64
import uuid
from typing import Mapping, Optional

import kafka_wire as kw
from samsa_harness import Broker, free_ports, wait_until

DESCRIBE_QUORUM = 55


class QuorumView:
    def __init__(self, leader_id: int, leader_epoch: int, high_watermark: int,
                 voters: dict, observers: dict):
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.high_watermark = high_watermark
        self.voters = voters          # replica id -> log end offset
        self.observers = observers


def describe_quorum(node: Broker, timeout: float = 3.0) -> Optional[QuorumView]:
    """DescribeQuorum v0 of __cluster_metadata-0 through `node`'s client
    listener; None when the answer carries an error (no leader yet)."""
    body = (kw.compact_array([kw.compact_string("__cluster_metadata")
                              + kw.compact_array([kw.int32(0) + b"\x00"]) + b"\x00"])
            + b"\x00")
    with kw.KafkaConnection(node.host, node.port, timeout=timeout) as conn:
        data = conn.roundtrip(DESCRIBE_QUORUM, 0, body)
    r = kw.Reader(data)
    if r.int16() != 0:
        return None
    topics = r.uvarint() - 1
    assert topics == 1
    r.compact_string()
    parts = r.uvarint() - 1
    assert parts == 1
    r.int32()
    err = r.int16()
    leader_id, leader_epoch, hw = r.int32(), r.int32(), r.int64()

    def replicas():
        out = {}
        for _ in range(r.uvarint() - 1):
            rid, leo = r.int32(), r.int64()
            r.tagged_fields()
            out[rid] = leo
        return out

    voters = replicas()
    observers = replicas()
    if err != 0:
        return None
    return QuorumView(leader_id, leader_epoch, hw, voters, observers)


def log_dirs_of(node, count):
    """A node's log dirs when the cluster has `count` per node."""
    return [node.data_dir] + [node.root / f"data{i}" for i in range(2, count + 1)]


class Cluster:
    def __init__(self, n: int, overrides: Optional[Mapping[str, object]] = None, binary=None,
                 voters: Optional[list] = None, racks: bool = False, log_dirs: int = 1):
        """`voters`: the node ids of the controller quorum (all by default); the
        other nodes run as brokers only (process.roles=broker), observers of
        the metadata log. `racks`: node N gets broker.rack=rN. `log_dirs`: each
        node's log.dirs, its data dir then data2, data3, ... (log_dirs_of)."""
        # One cluster id for all, as `samsa server --cluster-id` formats them.
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        self.nodes = [Broker(overrides=overrides, node_id=i + 1, binary=binary,
                             cluster_id=cluster_id)
                      for i in range(n)]
        voter_ids = voters or [b.node_id for b in self.nodes]
        quorum = ",".join(f"{b.node_id}@{b.host}:{b.controller_port}" for b in self.nodes
                          if b.node_id in voter_ids)
        for b in self.nodes:
            b.extra_properties["controller.quorum.voters"] = quorum
            if racks:
                b.extra_properties["broker.rack"] = f"r{b.node_id}"
            if log_dirs > 1:
                b.extra_properties["log.dirs"] = ",".join(str(d) for d in log_dirs_of(b, log_dirs))
            if b.node_id not in voter_ids:
                b.extra_properties["process.roles"] = "broker"
                b.extra_properties["listeners"] = f"PLAINTEXT://{b.host}:{b.port}"
            b._write_properties()

    def start(self) -> "Cluster":
        # Together: a node waits for a quorum before it serves clients.
        for b in self.nodes:
            b.start(wait_ready=False)
        for b in self.nodes:
            b.wait_ready()
        return self

    def node(self, node_id: int) -> Broker:
        return self.nodes[node_id - 1]

    def running(self) -> list:
        return [b for b in self.nodes if b.is_running()]

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.running())

    def quorum(self, via: Optional[Broker] = None) -> Optional[QuorumView]:
        for b in ([via] if via else self.running()):
            try:
                q = describe_quorum(b)
            except (OSError, AssertionError):
                q = None
            if q is not None and q.leader_id >= 0:
                return q
        return None

    def wait_for_leader(self, timeout: float = 15.0, not_id: Optional[int] = None) -> QuorumView:
        def ok():
            q = self.quorum()
            return q if q and q.leader_id != not_id else None
        return wait_until(ok, timeout, f"a metadata quorum leader (not {not_id})")

    def cleanup(self) -> None:
        for b in self.nodes:
            b.cleanup()


# Timings that make elections and fencing quick on loopback.
FAST = {
    "controller.quorum.election.timeout.ms": 500,
    "controller.quorum.fetch.timeout.ms": 1000,
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
}


def extra_ports(c: Cluster) -> list:
    """One more free port per node (a third listener), none of them a port
    the nodes already have: picked after those, so drawn again until none
    coincides."""
    taken = {p for b in c.nodes for p in (b.port, b.controller_port)}
    ports = free_ports(len(c.nodes))
    while taken.intersection(ports):
        ports = free_ports(len(c.nodes))
    return ports


def produce_values(bootstrap: str, topic: str, count: int, timeout: float = 60) -> list:
    """Values v0..v<count-1> to partition 0 of `topic` with acks=all and
    idempotence (a retry adds no copy); the offsets acknowledged, sorted."""
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                         "enable.idempotence": True})
    acked = []
    for i in range(count):
        producer.produce(topic, f"v{i}".encode(), partition=0,
                         on_delivery=lambda err, msg: err is None and acked.append(msg.offset()))
    assert producer.flush(timeout) == 0
    return sorted(acked)


def read_values(bootstrap: str, topic: str, count: int, timeout: float = 60) -> list:
    """The first `count` values of partition 0 of `topic`, decoded, read from
    offset 0 by an assigned consumer."""
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"read-{topic}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    seen = []

    def read_all():
        msg = consumer.poll(1)
        if msg is not None and msg.error() is None:
            seen.append(msg.value().decode())
        return len(seen) >= count
    try:
        wait_until(read_all, timeout, f"{count} records of {topic} read back")
    finally:
        consumer.close()
    return seen


def with_sasl_listeners(c: Cluster, properties: Mapping[str, object]) -> Cluster:
    """Gives every node of a not yet started cluster a SASL_PLAINTEXT client
    listener (its port in `node.sasl_port`) beside PLAINTEXT and CONTROLLER,
    with `properties` (mechanisms, JAAS, authorizer) added to its file."""
    for b, sasl in zip(c.nodes, extra_ports(c)):
        b.sasl_port = sasl
        b.extra_properties.update({
            "listeners": f"PLAINTEXT://127.0.0.1:{b.port},SASL_PLAINTEXT://127.0.0.1:{sasl},"
                         f"CONTROLLER://127.0.0.1:{b.controller_port}",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,"
                                              "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            **{k: str(v) for k, v in properties.items()},
        })
        b._write_properties()
    return c
