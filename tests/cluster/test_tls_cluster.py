"""Three nodes whose own connections are TLS: the Raft quorum and controller
forwarding over an SSL CONTROLLER listener, replica fetches over an SSL
inter-broker listener, each node presenting its certificate (ssl.client.auth
=required) and checking the peer's against the CA and the host it dialled.
Clients use a PLAINTEXT listener beside them."""
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from cluster_harness import FAST, Cluster, extra_ports, produce_values, read_values
from samsa_harness import samsa_bin, wait_until
from tls_support import make_certs


@pytest.fixture
def certs(tmp_path):
    return make_certs(tmp_path)


def with_tls_between_nodes(c: Cluster, certs, extra=None) -> Cluster:
    for b, internal in zip(c.nodes, extra_ports(c)):
        b.internal_port = internal
        b.extra_properties.update({
            "listeners": f"PLAINTEXT://127.0.0.1:{b.port},INTERNAL://127.0.0.1:{internal},"
                         f"CONTROLLER://127.0.0.1:{b.controller_port}",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SSL,CONTROLLER:SSL",
            "inter.broker.listener.name": "INTERNAL",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(certs.server),
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(certs.ca),
            "ssl.client.auth": "required",
            **(extra or {}),
        })
        b._write_properties()
    return c


@pytest.fixture
def tls_cluster(own_clusters, certs):
    def build(n):
        c = with_tls_between_nodes(Cluster(n, overrides=FAST, binary=samsa_bin()), certs)
        own_clusters.append(c)
        return c
    return build


def test_quorum_forwarding_and_replication_run_over_tls(tls_cluster):
    c = tls_cluster(3).start()  # each node registered with the controller over TLS
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    # Through every node: the ones that are not the controller forward
    # CreateTopics to it over TLS.
    for b in c.nodes:
        name = f"tls-{b.node_id}"
        via = AdminClient({"bootstrap.servers": b.bootstrap})
        via.create_topics([NewTopic(name, 1, 3, config={"min.insync.replicas": "2"})])[
            name].result(30)

    def in_sync():
        p = admin.list_topics("tls-1", timeout=5).topics["tls-1"].partitions.get(0)
        return p is not None and sorted(p.isrs) == [1, 2, 3]
    wait_until(in_sync, 30, "all three replicas in sync")

    assert produce_values(c.bootstrap, "tls-1", 200) == list(range(200))
    # acks=all with min.insync.replicas=2 was answered, and the followers
    # stayed in the ISR: they fetched every record over the SSL listener.
    wait_until(in_sync, 30, "all three replicas in sync after the writes")

    assert read_values(c.bootstrap, "tls-1", 200) == [f"v{i}" for i in range(200)]

    # A transaction over partitions led by all three nodes: the coordinator
    # writes its markers to the other leaders over the SSL listener.
    admin.create_topics([NewTopic("tls-txn", 3, 3)])["tls-txn"].result(30)
    wait_until(lambda: all(p.leader > 0 for p in admin.list_topics(
        "tls-txn", timeout=5).topics["tls-txn"].partitions.values()), 30, "tls-txn leaders")
    txn = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": "tls-txn"})
    txn.init_transactions(60)
    txn.begin_transaction()
    for p in range(3):
        txn.produce("tls-txn", f"t{p}".encode(), partition=p)
    txn.commit_transaction(60)
    reader = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "tls-txn-check",
                       "isolation.level": "read_committed", "enable.auto.commit": False})
    reader.assign([TopicPartition("tls-txn", p, 0) for p in range(3)])
    committed = set()

    def read_committed():
        msg = reader.poll(1)
        if msg is not None and msg.error() is None:
            committed.add(msg.value().decode())
        return len(committed) == 3
    wait_until(read_committed, 60, "the committed transaction read back")
    reader.close()
    for b in c.nodes:
        assert "tls_handshake_failed" not in b.log_text()


def test_a_peer_certificate_not_naming_the_host_dialled_is_refused(tls_cluster):
    # The certificate names localhost and 127.0.0.1. Dialling the controller
    # listener as 127.0.0.2 (the same machine) must fail the name check
    # (ssl.endpoint.identification.algorithm=https by default), and say so.
    c = tls_cluster(1)
    b = c.nodes[0]
    b.extra_properties["controller.quorum.voters"] = f"1@127.0.0.2:{b.controller_port}"
    b.extra_properties["listeners"] = (f"PLAINTEXT://127.0.0.1:{b.port},"
                                       f"INTERNAL://127.0.0.1:{b.internal_port},"
                                       f"CONTROLLER://0.0.0.0:{b.controller_port}")
    b._write_properties()
    b.start(wait_ready=False)
    line = b.wait_for_log("event=tls_handshake_failed", timeout=30)
    assert f"peer=127.0.0.2:{b.controller_port}" in line
    assert "certificate verify failed" in line
    assert "event=broker_registration_accepted" not in b.log_text()
    assert "event=started" not in b.log_text()  # never served clients
