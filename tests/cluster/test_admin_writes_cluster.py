"""The admin API's offset reset on a cluster: the partitions of a topic are
led by three different brokers, and the group's coordinator asks each
partition's leader for its offsets (ListOffsets), as an admin client does,
rather than answering NOT_LEADER_OR_FOLLOWER for those it does not lead."""
import re

from confluent_kafka import Consumer, Producer, TopicPartition

from samsa_harness import wait_until
from test_admin_writes import call
from test_replication import FAST, create


def test_an_offset_reset_asks_each_partitions_leader(cluster):
    c = cluster(3, overrides={**FAST, "metrics.listener.admin.writes.enable": "true"})
    c.wait_for_leader()
    topic = "reset-spread"
    create(c, topic, assignment=[[1], [2], [3]])
    p = Producer({"bootstrap.servers": c.bootstrap})
    for i in range(30):
        p.produce(topic, value=b"%d" % i, partition=i % 3)
    assert p.flush(60) == 0

    group = "spread-resetters"

    def reset_via_the_coordinator():
        # Any node names the group's coordinator when it is not it.
        status, body = call(c.node(1), "POST", f"/v1/groups/{group}/offsets",
                            {"topic": topic, "to": "latest"})
        m = re.search(r"coordinated by broker (\d+)", body.get("message", ""))
        if m:
            status, body = call(c.node(int(m.group(1))), "POST",
                                f"/v1/groups/{group}/offsets", {"topic": topic, "to": "latest"})
        return (status, body) if status == 200 else None

    status, body = wait_until(reset_via_the_coordinator, 60, "the reset through the coordinator")
    assert body["partitions"] == [{"partition": q, "offset": 10, "error": None} for q in range(3)]
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": group,
                         "enable.auto.commit": False})
    try:
        committed = consumer.committed([TopicPartition(topic, q) for q in range(3)], timeout=30)
        assert [tp.offset for tp in committed] == [10, 10, 10]
    finally:
        consumer.close()
