"""SCRAM credentials are cluster metadata: a user created through one broker (a
forwarded AlterUserScramCredentials) is described by every broker and logs in
on every SASL listener, and a deletion reaches them all."""
import pytest

from cluster_harness import FAST, Cluster, with_sasl_listeners
from samsa_harness import samsa_bin, wait_until
from test_scram import SHA512, alter, describe, scram
from test_tls import refused, round_trip


@pytest.fixture
def scram_cluster():
    c = with_sasl_listeners(Cluster(3, overrides=FAST, binary=samsa_bin()), {
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "SCRAM-SHA-512",
    })
    try:
        yield c.start()
    finally:
        c.cleanup()


def test_a_user_created_through_one_broker_logs_in_on_all(scram_cluster):
    c = scram_cluster
    leader = c.wait_for_leader().leader_id
    via = next(b for b in c.nodes if b.node_id != leader)  # forwarded to the controller
    got = wait_until(lambda: (lambda r: r if r["frank"][0] == 0 else None)(
        alter(via, [("frank", SHA512, "frank-secret", 4096)])), 30,
        "the alteration accepted (the controller reachable)")
    assert got == {"frank": (0, None)}
    for b in c.nodes:
        wait_until(lambda: describe(b).get("frank") == (0, None, {SHA512: 4096}), 30,
                   f"node {b.node_id} describes frank")
    for b in c.nodes:
        round_trip(scram(b, "frank", "frank-secret", "SCRAM-SHA-512"), f"scram-n{b.node_id}",
                   n=20)

    assert alter(c.node(leader), deletions=[("frank", SHA512)]) == {"frank": (0, None)}
    for b in c.nodes:
        wait_until(lambda: "frank" not in describe(b), 30, f"node {b.node_id} forgets frank")
        refused(scram(b, "frank", "frank-secret", "SCRAM-SHA-512"))
