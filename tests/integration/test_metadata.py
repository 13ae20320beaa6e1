"""Metadata as real clients see it: kcat, confluent-kafka's AdminClient, and raw
requests in every version the broker advertises."""
import json
import re
import uuid

import pytest
from confluent_kafka import KafkaError
from confluent_kafka.admin import AdminClient

import kafka_wire as kw
from samsa_harness import free_ports, run_kcat

NO_AUTO_CREATE = {"auto.create.topics.enable": "false"}


def admin_for(broker):
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def test_kcat_lists_the_one_broker_as_controller_with_no_topics(broker):
    out = run_kcat("-L", "-b", broker.bootstrap, "-m", "10").stdout

    assert re.search(r"^ 1 brokers:$", out, re.M), out
    brokers = re.findall(r"^\s+broker (\d+) at (\S+):(\d+)( \(controller\))?$", out, re.M)
    assert brokers == [("1", "127.0.0.1", str(broker.port), " (controller)")], out
    assert re.search(r"^ 0 topics:$", out, re.M), out


def test_kcat_json_metadata_names_broker_and_controller(broker):
    md = json.loads(run_kcat("-L", "-J", "-b", broker.bootstrap, "-m", "10").stdout)

    assert md["controllerid"] == 1
    assert md["brokers"] == [{"id": 1, "name": f"127.0.0.1:{broker.port}"}]
    assert md["topics"] == []
    assert md["originating_broker"]["id"] == 1


def test_admin_client_sees_cluster_id_from_meta_properties_and_the_controller(broker):
    md = admin_for(broker).list_topics(timeout=10)

    meta = broker.meta_properties()
    assert meta["cluster.id"], meta
    assert md.cluster_id == meta["cluster.id"]
    assert meta["node.id"] == "1"
    assert md.controller_id == 1
    assert md.orig_broker_id == 1
    assert list(md.brokers) == [1]
    b = md.brokers[1]
    assert (b.id, b.host, b.port) == (1, "127.0.0.1", broker.port)
    assert md.topics == {}


def test_admin_client_gets_unknown_topic_error_for_missing_topic(start_broker):
    broker = start_broker(overrides=NO_AUTO_CREATE)

    md = admin_for(broker).list_topics(topic="no-such-topic", timeout=10)

    assert list(md.topics) == ["no-such-topic"]
    t = md.topics["no-such-topic"]
    assert t.error is not None
    assert t.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    assert t.partitions == {}


def test_restart_with_same_data_dir_keeps_cluster_id(broker):
    before = admin_for(broker).list_topics(timeout=10).cluster_id
    meta_before = broker.meta_properties()

    broker.restart()

    after = admin_for(broker).list_topics(timeout=10).cluster_id
    assert before == meta_before["cluster.id"]
    assert after == before
    assert broker.meta_properties() == meta_before
    # Only the first start formats the log dir.
    assert broker.log_text().count("event=log_dir_formatted") == 1


def test_broker_and_controller_ids_follow_node_id(start_broker):
    broker = start_broker(node_id=7)

    md = admin_for(broker).list_topics(timeout=10)

    assert md.controller_id == 7
    assert list(md.brokers) == [7]
    assert broker.meta_properties()["node.id"] == "7"


@pytest.mark.parametrize("version", [0, 1, 4, 9, 12])
def test_broker_advertises_configured_advertised_listener(start_broker, version):
    adv_port = free_ports(1)[0]
    broker = start_broker(overrides={
        "advertised.listeners": f"PLAINTEXT://broker1.samsa.test:{adv_port}"})

    with kw.KafkaConnection.to(broker) as conn:
        md = conn.metadata(version=version, topics=None)

    assert [(b.node_id, b.host, b.port) for b in md.brokers] == \
        [(1, "broker1.samsa.test", adv_port)]


@pytest.mark.parametrize("version", range(0, 13))
def test_metadata_lists_broker_cluster_id_and_controller_in_every_version(broker, version):
    with kw.KafkaConnection.to(broker) as conn:
        md = conn.metadata(version=version, topics=None)

    assert [(b.node_id, b.host, b.port) for b in md.brokers] == [(1, "127.0.0.1", broker.port)]
    if version >= 1:
        assert md.brokers[0].rack is None
        assert md.controller_id == 1
    if version >= 2:
        assert md.cluster_id == broker.meta_properties()["cluster.id"]
    if version >= 3:
        assert md.throttle_time_ms == 0
    assert md.topics == []


@pytest.mark.parametrize("version", range(0, 13))
def test_metadata_reports_unknown_and_invalid_topic_names(start_broker, version):
    broker = start_broker(overrides=NO_AUTO_CREATE)
    names = ["no-such-topic", "bad/name", "..", "x" * 250, "ok.name_249" + "y" * 238]
    assert len(names[-1]) == 249

    with kw.KafkaConnection.to(broker) as conn:
        md = conn.metadata(version=version, topics=names, allow_auto_topic_creation=False)

    got = {t.name: t for t in md.topics}
    assert sorted(got) == sorted(names)
    assert got["no-such-topic"].error_code == kw.UNKNOWN_TOPIC_OR_PARTITION
    assert got["bad/name"].error_code == kw.INVALID_TOPIC_EXCEPTION
    assert got[".."].error_code == kw.INVALID_TOPIC_EXCEPTION
    assert got["x" * 250].error_code == kw.INVALID_TOPIC_EXCEPTION
    assert got[names[-1]].error_code == kw.UNKNOWN_TOPIC_OR_PARTITION
    for t in md.topics:
        assert t.partitions == []
        assert t.is_internal is False
        if version >= 10:
            assert t.topic_id.int == 0


def test_metadata_answers_each_requested_topic_once(start_broker):
    # Kafka treats the requested names as a set.
    broker = start_broker(overrides=NO_AUTO_CREATE)

    with kw.KafkaConnection.to(broker) as conn:
        md = conn.metadata(12, ["dup", "dup", "other"], allow_auto_topic_creation=False)

    assert sorted(t.name for t in md.topics) == ["dup", "other"]
    assert all(t.error_code == kw.UNKNOWN_TOPIC_OR_PARTITION for t in md.topics)


def test_metadata_v12_by_unknown_topic_id_gets_unknown_topic_id(broker):
    topic_id = uuid.UUID("6c1f2e9a-3b4d-4e5f-8a7b-9c0d1e2f3a4b")

    with kw.KafkaConnection.to(broker) as conn:
        md = conn.metadata(12, [(topic_id, None)], allow_auto_topic_creation=False)

    assert [(t.error_code, t.name, t.topic_id) for t in md.topics] == \
        [(kw.UNKNOWN_TOPIC_ID, None, topic_id)]


@pytest.mark.parametrize("version", [10, 11])
@pytest.mark.parametrize("name", [None, "named-topic"])
def test_metadata_v10_v11_request_by_topic_id_gets_invalid_request(broker, version, name):
    # Topic ids in Metadata requests are supported from v12 on; Kafka rejects a
    # v10/v11 topic with a null name or a non-zero id (InvalidRequestException),
    # answering each topic with INVALID_REQUEST and, since the response's name
    # is not nullable before v12, an empty name in place of null.
    topic_id = uuid.UUID("6c1f2e9a-3b4d-4e5f-8a7b-9c0d1e2f3a4b")

    with kw.KafkaConnection.to(broker) as conn:
        md = conn.metadata(version, [(topic_id, name)], allow_auto_topic_creation=False)

    assert len(md.topics) == 1
    t = md.topics[0]
    assert t.name is not None, f"null topic name in a Metadata v{version} response"
    assert (t.error_code, t.name) == (kw.INVALID_REQUEST, name or "")
