"""/metrics and the health checks on metrics.listener, read with Prometheus'
own parser while confluent-kafka (librdkafka) and kafka-python produce and
consume: the topic counters move by exactly the records and bytes that went
through, and every request the clients made is counted by api."""
import glob
import json
import math
import os
import socket
import time
import uuid

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import compaction_support
from compaction_support import CLEANER_BROKER, compacted_topic_config, produce_keyed
from compaction_support import wait_for_cleaning
from metrics_support import http_get, scrape
from samsa_harness import Broker, BrokerError, wait_until


@pytest.fixture
def broker(start_broker):
    # One node: the group coordinator's topic fits on it.
    return start_broker(overrides={"offsets.topic.replication.factor": 1})


def create_topic(broker, name, partitions=1):
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    a.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)])[name] \
        .result(timeout=30)


def segment_bytes(broker, topic):
    """Bytes of the topic's partition-0 log: every batch the broker appended."""
    logs = glob.glob(os.path.join(str(broker.data_dir), f"{topic}-0", "*.log"))
    return sum(os.path.getsize(p) for p in logs)


def produce(broker, topic, n):
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5, "acks": "all"})
    errors = []
    for i in range(n):
        p.produce(topic, key=f"k{i}".encode(), value=f"value-{i}".encode() * 3,
                  on_delivery=lambda err, msg: err and errors.append(err))
    assert p.flush(30) == 0
    assert not errors, errors


def consume_all(broker, topic, n):
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"g-{uuid.uuid4()}",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    try:
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got.append(m.value())
    finally:
        c.close()
    assert len(got) == n


def test_the_topic_counters_move_by_exactly_what_clients_produced_and_consumed(broker):
    topic = "metrics-librdkafka"
    create_topic(broker, topic)
    before = scrape(broker)
    # A topic's series appear with its first traffic, as Kafka's topic metrics do.
    assert before.value("kafka_server_brokertopicmetrics_messagesin_total", topic=topic) is None
    produce(broker, topic, 200)
    after = scrape(broker)
    assert after.value("kafka_server_brokertopicmetrics_messagesin_total", topic=topic) == 200
    appended = segment_bytes(broker, topic)
    assert appended > 0
    assert after.value("kafka_server_brokertopicmetrics_bytesin_total", topic=topic) == appended
    assert after.value("kafka_server_brokertopicmetrics_failedproducerequests_total",
                       topic=topic) == 0
    assert after.value("kafka_server_brokertopicmetrics_totalproducerequests_total",
                       topic=topic) >= 1
    # The log's own gauges, as its shard reports them.
    assert after.value("kafka_log_log_logendoffset", topic=topic, partition="0") == 200
    assert after.value("kafka_log_log_logstartoffset", topic=topic, partition="0") == 0
    assert after.value("kafka_log_log_size", topic=topic, partition="0") == appended
    # The all-topics series has no label and counts at least this topic.
    assert after.value("kafka_server_brokertopicmetrics_messagesin_total") >= \
        before.value("kafka_server_brokertopicmetrics_messagesin_total") + 200

    consume_all(broker, topic, 200)
    # A consumer reading a small log once is sent each batch exactly once.
    wait_until(lambda: scrape(broker).value("kafka_server_brokertopicmetrics_bytesout_total",
                                            topic=topic) == appended,
               15, "bytes out equal to the log's bytes")
    s = scrape(broker)
    assert s.value("kafka_server_brokertopicmetrics_totalfetchrequests_total", topic=topic) >= 1
    assert s.value("kafka_server_brokertopicmetrics_failedfetchrequests_total", topic=topic) == 0


def test_every_api_a_client_used_is_counted_and_timed(broker):
    topic = "metrics-requests"
    create_topic(broker, topic)
    produce(broker, topic, 10)
    consume_all(broker, topic, 10)

    def counted():
        s = scrape(broker)
        by_api = {}
        for labels, v in s.samples.get("kafka_network_requestmetrics_requests_total", []):
            by_api[labels["request"]] = by_api.get(labels["request"], 0) + v
        return s, by_api
    s, by_api = counted()
    for api in ["ApiVersions", "Metadata", "Produce", "Fetch", "FindCoordinator", "JoinGroup",
                "SyncGroup", "CreateTopics"]:
        assert by_api.get(api, 0) >= 1, (api, sorted(by_api))
    assert s.types["kafka_network_requestmetrics_totaltimems"] == "histogram"
    for phase in ["requestqueuetimems", "localtimems", "responsequeuetimems",
                  "responsesendtimems", "totaltimems"]:
        count = s.value(f"kafka_network_requestmetrics_{phase}_count", request="Produce")
        inf = s.value(f"kafka_network_requestmetrics_{phase}_bucket", request="Produce", le="+Inf")
        assert count is not None and count >= 1 and inf == count, (phase, count, inf)


def test_each_error_code_a_response_carries_is_counted(broker):
    """Kafka's ErrorsPerSec: one count per topic result, NONE included."""
    create_topic(broker, "metrics-errors")

    def errors(api, error):
        return scrape(broker).value("kafka_network_requestmetrics_errors_total",
                                    request=api, error=error) or 0
    before = {(api, e): errors(api, e) for api, e in [
        ("CreateTopics", "NONE"), ("CreateTopics", "TOPIC_ALREADY_EXISTS"),
        ("DeleteTopics", "UNKNOWN_TOPIC_OR_PARTITION")]}
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    # One request: an existing topic and a new one.
    fs = a.create_topics([NewTopic("metrics-errors", 1, 1), NewTopic("metrics-errors-new", 1, 1)])
    fs["metrics-errors-new"].result(30)
    with pytest.raises(Exception, match="already exists"):
        fs["metrics-errors"].result(30)
    with pytest.raises(Exception):
        a.delete_topics(["metrics-errors-missing"])["metrics-errors-missing"].result(30)
    assert errors("CreateTopics", "NONE") == before[("CreateTopics", "NONE")] + 1
    assert errors("CreateTopics", "TOPIC_ALREADY_EXISTS") == \
        before[("CreateTopics", "TOPIC_ALREADY_EXISTS")] + 1
    assert errors("DeleteTopics", "UNKNOWN_TOPIC_OR_PARTITION") == \
        before[("DeleteTopics", "UNKNOWN_TOPIC_OR_PARTITION")] + 1
    # The data path too: each partition of each Produce and Fetch answer.
    produce(broker, "metrics-errors", 5)
    consume_all(broker, "metrics-errors", 5)
    assert errors("Produce", "NONE") >= 1 and errors("Fetch", "NONE") >= 1


def test_kafka_python_is_counted_too(broker):
    kafka = pytest.importorskip("kafka")
    topic = "metrics-kafka-python"
    create_topic(broker, topic)
    p = kafka.KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all")
    for i in range(30):
        p.send(topic, value=b"x" * 100)
    p.flush(30)
    p.close()
    s = scrape(broker)
    assert s.value("kafka_server_brokertopicmetrics_messagesin_total", topic=topic) == 30
    # Bytes as the client sent them (an old message format is converted on
    # append, so the log may hold a different number).
    assert s.value("kafka_server_brokertopicmetrics_bytesin_total", topic=topic) > 30 * 100


def test_the_gauges_describe_a_one_node_cluster(broker):
    create_topic(broker, "metrics-gauges", partitions=4)
    s = scrape(broker)
    assert s.value("kafka_server_replicamanager_partitioncount") >= 4
    assert s.value("kafka_server_replicamanager_leadercount") == \
        s.value("kafka_server_replicamanager_partitioncount")
    assert s.value("kafka_server_replicamanager_underreplicatedpartitions") == 0
    assert s.value("kafka_controller_kafkacontroller_activecontrollercount") == 1
    assert s.value("kafka_controller_kafkacontroller_offlinepartitionscount") == 0
    assert s.value("kafka_server_raftmetrics_current_leader") == broker.node_id
    assert s.value("kafka_server_kafkaserver_brokerstate") == 3
    # Every reactor reports its CPU time and its probe's lateness.
    reactors = s.samples["samsa_reactor_cpu_seconds_total"]
    assert reactors and all(v > 0 for _, v in reactors)
    assert len(s.samples["samsa_reactor_stalls_total"]) == len(reactors)
    assert all(v >= 0 for _, v in s.samples["samsa_reactor_lag_ms"])
    assert s.value("samsa_build_info", version=s.samples["samsa_build_info"][0][0]["version"]) == 1


def test_health_checks_and_what_is_not_served(broker):
    status, ctype, body = http_get(broker.metrics_url + "/v1/health/live")
    assert status == 200 and ctype == "application/json" and '"live":true' in body
    status, _, body = http_get(broker.metrics_url + "/v1/health/ready")
    assert status == 200 and '"ready":true' in body, body
    assert http_get(broker.metrics_url + "/nothing-here")[0] == 404
    req = urllib_request(broker.metrics_url + "/metrics", method="POST")
    assert req == 405


def urllib_request(url, method):
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=b"", method=method),
                                    timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_a_taken_metrics_port_stops_the_broker_naming_the_key(samsa_binary):
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    b = Broker(binary=samsa_binary,
               properties={"metrics.listener": f"127.0.0.1:{held.getsockname()[1]}"})
    try:
        with pytest.raises(BrokerError):
            b.start()
        assert "metrics.listener 127.0.0.1:" in b.log_text(), b.log_text()
    finally:
        held.close()
        b.cleanup()


def test_an_empty_metrics_listener_serves_no_http(start_broker):
    b = start_broker(properties={"metrics.listener": ""})
    with socket.socket() as s:
        s.settimeout(2)
        assert s.connect_ex(("127.0.0.1", b.metrics_port)) != 0


def test_a_groups_committed_offsets_and_lag_are_reported(broker):
    topic = "metrics-lag"
    create_topic(broker, topic)
    produce(broker, topic, 200)
    group = "metrics-lag-group"
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    got = 0
    deadline = time.monotonic() + 60
    try:
        while got < 150 and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got += 1
                last = m
        assert got == 150
        c.commit(message=last, asynchronous=False)  # offset 150: 50 records behind
    finally:
        c.close()
    labels = {"consumergroup": group, "topic": topic, "partition": "0"}
    s = scrape(broker)
    assert s.value("kafka_consumergroup_current_offset", **labels) == 150
    assert s.value("kafka_consumergroup_lag", **labels) == 50
    status, _, body = http_get(broker.metrics_url + "/v1/groups")
    assert status == 200
    groups = {g["group_id"]: g for g in json.loads(body)}
    assert groups[group]["lag"] == 50
    assert groups[group]["protocol_type"] == "consumer"
    assert groups[group]["offsets"] == [{"topic": topic, "partition": 0,
                                         "committed_offset": 150, "lag": 50}]


def test_requests_slower_than_log_slow_request_ms_are_logged(start_broker):
    b = start_broker(properties={"log.slow.request.ms": 100})
    create_topic(b, "metrics-slow")
    # A consumer of an empty partition long-polls: each Fetch waits its
    # fetch.wait.max.ms (300 ms) on the broker.
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "unused",
                  "fetch.wait.max.ms": 300})
    from confluent_kafka import TopicPartition
    c.assign([TopicPartition("metrics-slow", 0, 0)])
    try:
        deadline = time.monotonic() + 30
        while "event=slow_request api=Fetch" not in b.log_text() and time.monotonic() < deadline:
            c.poll(0.2)
    finally:
        c.close()
    line = next(line for line in b.log_text().splitlines()
                if "event=slow_request api=Fetch" in line)
    assert "client_id=\"rdkafka\"" in line and "local_ms=" in line, line


def test_a_waiting_fetch_is_counted_in_the_fetch_purgatory(broker):
    create_topic(broker, "purgatory")
    name = "kafka_server_delayedoperationpurgatory_numdelayedoperations"
    before = scrape(broker)
    assert before.value(name, delayedOperation="Fetch") == 0
    assert before.value(name, delayedOperation="Produce") == 0
    assert before.types["kafka_server_delayedoperationpurgatory_purgatorysize"] == "gauge"
    # Nothing to read: every fetch of this consumer waits its 10 s in the purgatory.
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "purgatory",
                  "fetch.wait.max.ms": 10000, "enable.auto.commit": False})
    try:
        c.assign([TopicPartition("purgatory", 0, 0)])
        deadline = time.monotonic() + 20
        while scrape(broker).value(name, delayedOperation="Fetch") != 1:
            c.poll(0.2)
            assert time.monotonic() < deadline, "no fetch waited in the purgatory"
        assert scrape(broker).value("kafka_server_delayedoperationpurgatory_purgatorysize",
                                    delayedOperation="Fetch") >= 1
    finally:
        c.close()
    wait_until(lambda: scrape(broker).value(name, delayedOperation="Fetch") == 0, 20,
               "the closed consumer's fetch left the purgatory")


def test_the_quorum_leader_reports_its_commit_latency(broker):
    # Each topic creation is a batch the one-node quorum's leader commits.
    create_topic(broker, "commit-latency")

    def latency():
        s = scrape(broker)
        avg = s.value("kafka_server_raftmetrics_commit_latency_avg")
        mx = s.value("kafka_server_raftmetrics_commit_latency_max")
        return (avg, mx) if avg is not None and not math.isnan(avg) else None

    avg, mx = wait_until(latency, 20, "a commit latency")
    assert 0 <= avg <= mx < 30000


def test_the_cleaners_figures_follow_a_cleaning(start_broker):
    b = start_broker(overrides=CLEANER_BROKER)
    s = scrape(b)
    assert s.value("samsa_log_cleaner_logs_cleaned_total") == 0
    assert s.value("kafka_log_logcleanermanager_time_since_last_run_ms") == -1
    compaction_support.create_topic(b.bootstrap, "cleaned", compacted_topic_config())
    # Ten keys written over and over: most of what is read is not written back.
    base = compaction_support.now_ms()
    produce_keyed(b.bootstrap, "cleaned",
                  [(f"k{i % 10}".encode(), b"v" * 200, None, base + i) for i in range(2000)])
    wait_for_cleaning(b, "cleaned")
    s = wait_until(lambda: (lambda s: s if s.value("samsa_log_cleaner_logs_cleaned_total") >= 1
                            else None)(scrape(b)), 20, "the cleaning counted")
    read = s.value("samsa_log_cleaner_bytes_read_total")
    written = s.value("samsa_log_cleaner_bytes_written_total")
    assert 0 < written < read
    assert 0 < s.value("kafka_log_logcleaner_cleaner_recopy_percent") < 100
    assert 0 < s.value("kafka_log_logcleaner_max_buffer_utilization_percent") <= 100
    assert s.value("kafka_log_logcleaner_max_clean_time_secs") >= 0
    assert s.value("kafka_log_logcleanermanager_time_since_last_run_ms") >= 0
    assert s.value("kafka_log_logcleanermanager_uncleanable_partitions_count") == 0
