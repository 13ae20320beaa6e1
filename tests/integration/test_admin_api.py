"""The admin API (JSON) of metrics.listener says what the Kafka protocol says
for the same cluster: confluent-kafka's Metadata view (cluster id, brokers,
partitions' leaders, replicas and ISR) and kcat's."""
import json
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic

from metrics_support import http_get
from samsa_harness import run_kcat


def get_json(broker, path):
    status, ctype, body = http_get(broker.metrics_url + path)
    assert ctype == "application/json", (path, ctype)
    return status, json.loads(body)


def test_cluster_brokers_and_topics_match_the_metadata_clients_see(broker):
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    a.create_topics([NewTopic("admin-api", num_partitions=3, replication_factor=1,
                              config={"retention.ms": "3600000"})])["admin-api"].result(30)
    md = a.list_topics(timeout=15)

    status, cluster = get_json(broker, "/v1/cluster")
    assert status == 200
    assert cluster["cluster_id"] == md.cluster_id
    assert cluster["active_controller"] == broker.node_id
    assert [b["node_id"] for b in cluster["brokers"]] == sorted(md.brokers)
    plaintext = [e for e in cluster["brokers"][0]["endpoints"] if e["listener"] == "PLAINTEXT"]
    assert (plaintext[0]["host"], plaintext[0]["port"]) == \
        (md.brokers[broker.node_id].host, md.brokers[broker.node_id].port)
    assert plaintext[0]["security_protocol"] == "PLAINTEXT"

    status, topics = get_json(broker, "/v1/topics")
    assert status == 200
    ours = {t["name"]: t for t in topics}
    assert set(ours) >= {"admin-api"}
    assert ours["admin-api"]["partitions"] == 3
    assert ours["admin-api"]["replication_factor"] == 1
    assert ours["admin-api"]["under_replicated_partitions"] == 0
    assert {n for n in md.topics} <= set(ours)

    status, topic = get_json(broker, "/v1/topics/admin-api")
    assert status == 200
    assert topic["configs"] == {"retention.ms": "3600000"}
    want = md.topics["admin-api"].partitions
    assert [p["partition"] for p in topic["partitions"]] == sorted(want)
    for p in topic["partitions"]:
        m = want[p["partition"]]
        assert (p["leader"], p["replicas"], p["isr"]) == (m.leader, m.replicas, m.isrs)


def test_partition_logs_match_what_was_produced(broker):
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    a.create_topics([NewTopic("admin-logs", num_partitions=1,
                              replication_factor=1)])["admin-logs"].result(30)
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(25):
        p.produce("admin-logs", value=b"v" * 50)
    assert p.flush(30) == 0
    # kcat's view of the same partition: its high watermark.
    out = run_kcat("-b", broker.bootstrap, "-Q", "-t", "admin-logs:0:-1").stdout
    kcat_end = int(out.split()[-1])
    assert kcat_end == 25
    status, topic = get_json(broker, "/v1/topics/admin-logs")
    log = topic["partitions"][0]["log"]
    assert log["log_end_offset"] == 25 and log["high_watermark"] == 25
    assert log["log_start_offset"] == 0 and log["is_leader"] is True
    assert log["size_bytes"] > 25 * 50


def test_an_unknown_topic_is_404_and_the_quorum_is_described(broker):
    status, body = get_json(broker, "/v1/topics/no-such-topic")
    assert status == 404 and body["error"] == "UNKNOWN_TOPIC_OR_PARTITION"
    status, q = get_json(broker, "/v1/quorum")
    assert status == 200
    assert q["leader_id"] == broker.node_id and q["leader_epoch"] >= 1
    assert [v["node_id"] for v in q["voters"]] == [broker.node_id]
    # The high watermark moves as metadata commits; it is at least what was applied.
    deadline = time.monotonic() + 10
    while q["applied_offset"] < 0 and time.monotonic() < deadline:
        q = get_json(broker, "/v1/quorum")[1]
    assert q["high_watermark"] >= q["applied_offset"] >= 0


def test_broker_configs_match_describe_configs(broker):
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    res = ConfigResource(ConfigResource.Type.BROKER, str(broker.node_id))
    want = a.describe_configs([res])[res].result(30)
    status, got = get_json(broker, "/v1/configs")
    assert status == 200 and got["node_id"] == broker.node_id
    ours = {c["name"]: c for c in got["configs"]}
    assert set(ours) == set(want)
    for name, entry in want.items():
        c = ours[name]
        assert c["value"] == entry.value, name
        assert c["read_only"] == entry.is_read_only, name
        assert c["sensitive"] == entry.is_sensitive, name
        assert c["source"] == ConfigSource(entry.source).name, name
    assert ours["node.id"]["source"] == "STATIC_BROKER_CONFIG"
    assert ours["num.partitions"]["source"] == "DEFAULT_CONFIG"
