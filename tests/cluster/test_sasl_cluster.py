"""Three nodes whose own connections log in with SASL: the Raft quorum,
forwarding and registration over a SASL_PLAINTEXT controller listener with
PLAIN (sasl.mechanism.controller.protocol), replica fetches over a SASL_SSL
inter-broker listener with SCRAM-SHA-512 (sasl.mechanism.inter.broker.protocol),
each node's login from its listener's JAAS config. Clients use PLAINTEXT.

The SCRAM user the brokers log in as is cluster metadata: until it exists the
followers cannot fetch (and say so); once an operator creates it they catch up
without a restart."""
import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from cluster_harness import FAST, Cluster, extra_ports, produce_values, read_values
from samsa_cli import on
from samsa_harness import samsa_bin, wait_until
from tls_support import make_certs

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="ctl" password="ctl-secret" user_ctl="ctl-secret";')
SCRAM_JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required '
              'username="broker" password="broker-secret";')


@pytest.fixture
def sasl_cluster(own_clusters, tmp_path):
    certs = make_certs(tmp_path)

    def build(n, extra=None):
        c = Cluster(n, overrides=FAST, binary=samsa_bin())
        for b, internal in zip(c.nodes, extra_ports(c)):
            b.extra_properties.update({
                "listeners": f"PLAINTEXT://127.0.0.1:{b.port},INTERNAL://127.0.0.1:{internal},"
                             f"CONTROLLER://127.0.0.1:{b.controller_port}",
                "listener.security.protocol.map":
                    "PLAINTEXT:PLAINTEXT,INTERNAL:SASL_SSL,CONTROLLER:SASL_PLAINTEXT",
                "inter.broker.listener.name": "INTERNAL",
                "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
                "sasl.mechanism.controller.protocol": "PLAIN",
                "listener.name.internal.sasl.enabled.mechanisms": "SCRAM-SHA-512",
                "listener.name.internal.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
                "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
                "listener.name.controller.plain.sasl.jaas.config": PLAIN_JAAS,
                "ssl.keystore.type": "PEM",
                "ssl.keystore.location": str(certs.server),
                "ssl.truststore.type": "PEM",
                "ssl.truststore.location": str(certs.ca),
                **(extra or {}),
            })
            b._write_properties()
        own_clusters.append(c)
        return c
    return build


def test_nodes_log_in_to_each_other_with_plain_and_scram(sasl_cluster):
    c = sasl_cluster(3).start()  # each node registered over the PLAIN controller listener
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic("sasl-1", 1, 3, config={"min.insync.replicas": "2"})])[
        "sasl-1"].result(30)

    def isr():
        p = admin.list_topics("sasl-1", timeout=5).topics["sasl-1"].partitions.get(0)
        return sorted(p.isrs) if p is not None and p.leader > 0 else []
    wait_until(lambda: isr(), 30, "a leader for sasl-1")
    leader = admin.list_topics("sasl-1", timeout=5).topics["sasl-1"].partitions[0].leader
    followers = [b for b in c.nodes if b.node_id != leader]
    # No SCRAM user "broker" yet: the followers' logins fail, and they say so.
    for b in followers:
        line = b.wait_for_log("event=sasl_authentication_failed", timeout=30)
        assert "mechanism=SCRAM-SHA-512" in line

    on(c.nodes[0], "configs", "--entity-type", "users", "--alter", "--entity-name", "broker",
       "--add-config", "SCRAM-SHA-512=[password=broker-secret]").ok()
    assert produce_values(c.bootstrap, "sasl-1", 100) == list(range(100))
    wait_until(lambda: isr() == [1, 2, 3], 60, "the followers back in the ISR")

    assert read_values(c.bootstrap, "sasl-1", 100) == [f"v{i}" for i in range(100)]


def test_a_login_the_node_cannot_make_stops_it_at_start(sasl_cluster):
    c = sasl_cluster(1, {"sasl.mechanism.controller.protocol": "SCRAM-SHA-256"})
    b = c.nodes[0]
    b.start(wait_ready=False)
    assert b.wait(30) != 0
    assert "sasl.mechanism.controller.protocol=SCRAM-SHA-256" in b.log_text()
    assert "use PLAIN" in b.log_text()
