"""Decommissioning a broker for good: stopped, then unregistered
(kafka-cluster.sh unregister, UnregisterBroker): it leaves the cluster's
brokers, every ISR it was in, and the leadership of its partitions; a second
unregister names it not registered."""
from confluent_kafka.admin import AdminClient

from samsa_cli import cli
from samsa_harness import wait_until
from test_replication import FAST, create, partitions_of


def brokers_seen(c, via):
    md = AdminClient({"bootstrap.servers": via.bootstrap}).list_topics(timeout=10)
    return sorted(md.brokers)


def test_a_stopped_broker_unregistered_leaves_the_cluster(cluster):
    c = cluster(4, overrides=FAST, voters=[1, 2, 3])
    c.wait_for_leader()
    topic = "decommissioned"
    create(c, topic, assignment=[[4, 1], [1, 4]])
    wait_until(lambda: all(isr == [1, 4] for _, _, isr in partitions_of(c, topic).values()),
               60, "both partitions' ISR [1, 4]")
    c.node(4).stop()
    wait_until(lambda: brokers_seen(c, c.node(1)) == [1, 2, 3], 60,
               "node 4 fenced (out of Metadata's brokers)")

    res = cli("cluster", "unregister", "--bootstrap-server", c.node(2).bootstrap, "--id", "4")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout == "Broker 4 is no longer registered.\n"
    wait_until(lambda: all(leader == 1 and isr == [1]
                           for leader, _, isr in partitions_of(c, topic).values()),
               60, "node 1 leading both partitions alone")
    again = cli("cluster", "unregister", "--bootstrap-server", c.node(1).bootstrap, "--id", "4")
    assert again.returncode != 0
    assert "Broker ID 4 is not currently registered" in again.stderr, again.stderr
