"""kafkajs (npm, pure JavaScript: its own protocol code, no librdkafka) against
real `samsa server` processes.

The scenarios are tests/clients/kafkajs/scenarios.js, run with the machine's
node and NODE_PATH at the kafkajs that scripts/setup-clients.sh installed under
$SAMSA_CLIENTS_DIR/kafkajs (the version tests/clients/kafkajs/package.json pins).
Each prints one JSON line of what it observed; the assertions are here. A
missing kafkajs fails the tests (it is never a reason to skip).

TLS, ACLs, SASL/SCRAM and client quotas are in test_kafkajs_security.py.

Brokers run with offsets.topic.replication.factor=1 (one node; Kafka's default of
3 could never be met) and rebalance without the initial delay.
"""

from compaction_support import (CLEANER_BROKER, Rec, active_base, survivors, wait_compacted,
                                wait_for_cleaning)
from kafkajs_support import GROUP_BROKER, TXN_BROKER, offsets_of, run_scenario
from samsa_cli import on
from samsa_harness import free_ports


# --- 1. produce, acks=-1, none and gzip ---------------------------------------------
def test_produce_acks_all_none_and_gzip_then_group_consume(kafkajs_modules, start_broker):
    """Five sends with acks=-1 over two partitions, uncompressed and gzip, with
    keys (one null), values (binary, ~114 KB, a tombstone), headers (repeated
    keys, binary) and explicit timestamps; a group consumer from the beginning
    reads back exactly those messages, in order per partition."""
    broker = start_broker(overrides=GROUP_BROKER)
    r = run_scenario(kafkajs_modules, broker, "produce-consume")

    # Offsets are consecutive per partition, across codecs.
    assert r["sends"] == [
        [{"partition": 0, "errorCode": 0, "baseOffset": 0}],
        [{"partition": 0, "errorCode": 0, "baseOffset": 5}],
        [{"partition": 1, "errorCode": 0, "baseOffset": 0}],
        [{"partition": 1, "errorCode": 0, "baseOffset": 4}],
        [{"partition": 0, "errorCode": 0, "baseOffset": 11}],
    ]
    assert r["watermarks"] == {"0": {"low": 0, "high": 13}, "1": {"low": 0, "high": 7}}

    expected, received = r["expected"], r["received"]
    assert len(received) == len(expected) == 20
    for p, n in ((0, 13), (1, 7)):
        want = [m for m in expected if m["partition"] == p]
        have = [m for m in received if m["partition"] == p]
        assert offsets_of(have) == list(range(n))
        assert [{k: v for k, v in m.items() if k != "offset"} for m in have] == want
    # ... and those were the awkward ones: binary, large, null.
    values = [m["value"] for m in expected]
    assert None in values and None in [m["key"] for m in expected]
    assert any(isinstance(v, dict) and v["len"] == 256 for v in values)
    assert any(isinstance(v, dict) and v["len"] > 100_000 for v in values)
    assert expected[0]["headers"]["multi"] == ["first", "second"]
    assert any(isinstance(m["headers"].get("bin"), dict) for m in expected)


# --- 2. idempotent producer, exactly once -------------------------------------------
def test_idempotent_producer_exactly_once_with_lost_responses(kafkajs_modules, start_broker):
    """idempotent: true, maxInFlightRequests: 1. kafkajs reaches the broker through
    a proxy (the broker advertises it) that swallows the responses to four
    Produce requests and cuts the connection: the broker appended, kafkajs
    retries the same batch (same producer id and sequence). Every message is in
    the log once, in order, and the retried sends learn the original offsets."""
    broker_port, proxy_port = free_ports(2)
    broker = start_broker(port=broker_port, overrides={
        **GROUP_BROKER, "advertised.listeners": f"PLAINTEXT://127.0.0.1:{proxy_port}"})
    drop = [2, 5, 6, 11]
    r = run_scenario(kafkajs_modules, broker, "idempotent",
                     {"proxyPort": proxy_port, "brokerPort": broker.port, "dropProduce": drop})

    assert r["dropped"] == len(drop), r
    # 16 sequential sends, each lost response costing one more request.
    assert r["produceRequests"] >= 16 + len(drop)
    assert r["connections"] > len(drop)

    sent, received = r["sent"], r["received"]
    assert len(sent["0"]) == 11 * 5 + 6 * 4 and len(sent["1"]) == 5 * 5
    for p in ("0", "1"):
        log = received[p]
        # exactly once: the log holds each message sent, once
        assert offsets_of(log) == list(range(len(log)))
        assert sorted(m["value"] for m in log) == sorted(sent[p])
        assert r["watermarks"][p] == {"low": 0, "high": len(sent[p])}
        # in order: the sequential sends' messages in the order they were sent
        seq_sent = [v for v in sent[p] if v.startswith("seq-")]
        assert [m["value"] for m in log if m["value"].startswith("seq-")] == seq_sent
        # one producer id and epoch; sequence numbers count from 0 with no gap or
        # repeat, so every batch's first sequence is its first offset
        assert len({(m["producerId"], m["producerEpoch"]) for m in log}) == 1
        assert int(log[0]["producerId"]) >= 0 and log[0]["producerEpoch"] >= 0
        assert all(m["firstSequence"] == m["firstOffset"] for m in log)

    # Every send (retried or not) was told the offset its messages are at.
    by_offset = {(p, m["offset"]): m["value"] for p in ("0", "1") for m in received[p]}
    seq_bases = {"0": [], "1": []}
    for s in r["sendResults"]:
        p = str(s["partition"])
        assert [by_offset[(p, s["baseOffset"] + i)] for i in range(len(s["values"]))] == s["values"]
        if s["values"][0].startswith("seq-"):
            seq_bases[p].append(s["baseOffset"])
    assert seq_bases["0"] == list(range(0, 55, 5)) and seq_bases["1"] == list(range(0, 25, 5))
    # Concurrent sends (no losses) each land contiguously.
    conc = [s for s in r["sendResults"] if s["values"][0].startswith("conc-")]
    assert sorted(s["baseOffset"] for s in conc) == list(range(55, 55 + 6 * 4, 4))


# --- 3. admin -------------------------------------------------------------------------
def test_admin_topics_configs_partitions_offsets(kafkajs_modules, broker):
    r = run_scenario(kafkajs_modules, broker, "admin")
    a, b = "kjs-admin-a", "kjs-admin-b"

    assert r["created"] is True
    assert r["createdAgain"] is False  # kafkajs' answer to TOPIC_ALREADY_EXISTS
    assert r["createMixed"] == ["INVALID_PARTITIONS", "TOPIC_ALREADY_EXISTS"]
    assert r["listed"] == [a, b]
    md = {t["name"]: t["partitions"] for t in r["metadata"]}
    assert set(md) == {a, b}
    assert [p["id"] for p in md[a]] == [0, 1, 2] and [p["id"] for p in md[b]] == [0]
    for p in md[a] + md[b]:
        assert (p["leader"], p["replicas"], p["isr"], p["error"]) == (1, [1], [1], 0)

    # configSource 1 = DYNAMIC_TOPIC_CONFIG (set on the topic), 5 = DEFAULT_CONFIG
    c = r["configs"]
    assert c["errorCode"] == 0
    assert c["retention.ms"] == {"value": "3600000", "isDefault": False, "source": 1,
                                 "readOnly": False}
    assert c["cleanup.policy"]["value"] == "delete" and c["cleanup.policy"]["source"] == 1
    assert c["max.message.bytes"]["value"] == "200000" and c["max.message.bytes"]["source"] == 1
    assert c["segment.bytes"] == {"value": "1073741824", "isDefault": True, "source": 5,
                                  "readOnly": False}
    assert {"retention.ms", "cleanup.policy", "segment.bytes", "min.insync.replicas",
            "compression.type", "message.timestamp.type"} <= set(r["allConfigNames"])

    assert r["partitionsAfter"] == [0, 1, 2, 3, 4]
    assert r["shrink"] == "INVALID_PARTITIONS"
    assert r["produced"] == [{"partition": 0, "baseOffset": 0, "errorCode": 0},
                             {"partition": 4, "baseOffset": 0, "errorCode": 0}]
    empty = {"low": 0, "high": 0}
    assert r["offsets"] == {"0": {"low": 0, "high": 2}, "1": empty, "2": empty, "3": empty,
                            "4": {"low": 0, "high": 3}}
    assert r["offsetsAfterDeleteRecords"] == {**r["offsets"], "4": {"low": 2, "high": 3}}
    # first offset with timestamp >= base+5: p0 offset 1; p4 offset 2, since offset 1
    # (base+10) was deleted; empty partitions have none (kafkajs shows the high, 0)
    assert r["offsetsByTimestamp"] == {"0": 1, "1": 0, "2": 0, "3": 0, "4": 2}

    # AlterConfigs replaces the topic's whole config set.
    after = r["configsAfterAlter"]
    assert after["retention.ms"] == {"value": "7200000", "isDefault": False, "source": 1,
                                     "readOnly": False}
    assert after["max.message.bytes"] == {"value": "1048588", "isDefault": True, "source": 5,
                                          "readOnly": False}
    assert after["cleanup.policy"]["isDefault"] is True

    assert r["listedAfterDelete"] == []
    assert r["createdAfterDelete"] is True
    assert r["offsetsRecreated"] == {"0": empty, "1": empty}


def test_broker_loggers_are_described_as_kafka_describes_them(kafkajs_modules, broker):
    on(broker, "configs", "--entity-type", "broker-loggers", "--entity-name",
       str(broker.node_id), "--alter", "--add-config", "kafka.log.LogCleaner=DEBUG").ok()
    r = run_scenario(kafkajs_modules, broker, "broker-loggers", {"brokerId": broker.node_id})
    assert r["errorCode"] == 0
    assert r["loggers"]["root"] == "INFO"
    assert r["loggers"]["kafka.log.LogCleaner"] == "DEBUG"
    assert {"kafka.log", "state.change.logger", "org.apache.kafka.raft"} <= set(r["loggers"])
    assert set(r["sources"]) == {6}  # DYNAMIC_BROKER_LOGGER_CONFIG
    # kafkajs sends a BROKER_LOGGER request to the broker it names, as Kafka's
    # admin client does: there is no broker 2 to send it to.
    assert r["otherError"].startswith("KafkaJSBrokerNotFound"), r


def test_partition_reassignment_apis_as_kafkajs_speaks_them(kafkajs_modules, broker):
    r = run_scenario(kafkajs_modules, broker, "reassignments", {"brokerId": broker.node_id})
    assert r["listedBefore"] == []
    assert r["sameReplicas"] == "ok"
    assert r["unknownBroker"] == ["INVALID_REPLICA_ASSIGNMENT"], r
    assert r["listedAfter"] == []


# --- 4. consumer group ----------------------------------------------------------------
def test_consumer_group_split_commit_resume_and_admin(kafkajs_modules, start_broker):
    broker = start_broker(overrides=GROUP_BROKER)
    r = run_scenario(kafkajs_modules, broker, "group")
    topic_parts = [0, 1, 2, 3]

    assert r["c1Alone"] == topic_parts
    c1, c2 = r["assignments"]["c1"], r["assignments"]["c2"]
    assert sorted(c1 + c2) == topic_parts and not set(c1) & set(c2)
    assert len(c1) == len(c2) == 2  # kafkajs' round robin over two members

    d = r["describeStable"]
    assert (d["state"], d["protocolType"], d["protocol"]) == ("Stable", "consumer",
                                                              "RoundRobinAssigner")
    members = {m["memberId"]: m for m in d["members"]}
    assert set(members) == {r["memberIds"]["c1"], r["memberIds"]["c2"]}
    assert members[r["memberIds"]["c1"]]["assignment"] == c1
    assert members[r["memberIds"]["c2"]]["assignment"] == c2
    assert all(m["metadataTopics"] == ["kjs-group-t"] and m["clientId"] == "kjs-group-client"
               for m in d["members"])

    # Each member fetched only its own partitions; together, every message once.
    for name, owned in (("c1", c1), ("c2", c2)):
        got = r["consumed"][name]
        assert {m["partition"] for m in got} == set(owned)
        for p in owned:
            assert [(m["offset"], m["value"]) for m in got if m["partition"] == p] == \
                [(i, f"m-{p}-{i}") for i in range(5)]
    assert len(r["consumed"]["c1"]) + len(r["consumed"]["c2"]) == 20

    assert r["committed"] == {str(p): 3 for p in topic_parts}
    assert r["describeEmpty"] == {"state": "Empty", "members": 0}
    assert r["listGroups"] == [{"groupId": "kjs-group-g", "protocolType": "consumer"}]

    # A new member resumes at the committed offsets: messages 3 and 4 only.
    resumed = r["resumed"]
    assert len(resumed) == 8
    for p in topic_parts:
        assert [(m["offset"], m["value"]) for m in resumed if m["partition"] == p] == \
            [(3, f"m-{p}-3"), (4, f"m-{p}-4")]
    assert r["committedAfterC3"] == {str(p): 5 for p in topic_parts}

    # resetOffsets(earliest) commits kafkajs' "earliest" sentinel, -2; the next
    # member starts over from offset 0.
    assert r["committedAfterReset"] == {str(p): -2 for p in topic_parts}
    again = r["afterReset"]
    assert len(again) == 20
    for p in topic_parts:
        assert [m["offset"] for m in again if m["partition"] == p] == list(range(5))

    assert r["deleteGroups"] == [{"groupId": "kjs-group-g", "errorCode": 0}]
    assert r["listGroupsAfterDelete"] == []


# --- 5. transactions --------------------------------------------------------------------
def test_transactions_commit_visible_abort_invisible(kafkajs_modules, start_broker):
    """Three transactions on one partition: commit [c0 c1 c2], abort [a0 a1],
    commit [c3] with a TxnOffsetCommit for a group. Each transaction ends with a
    control record taking an offset: c0-c2 at 0-2, commit marker 3, a0-a1 at
    4-5, abort marker 6, c3 at 7, commit marker 8.

    Against today's samsa it fails in a few seconds at the first
    producer.transaction(): FindCoordinator (key_type 1, transaction) answers
    COORDINATOR_NOT_AVAILABLE, which kafkajs reports as "Failed to find group
    coordinator"."""
    broker = start_broker(overrides=TXN_BROKER)
    r = run_scenario(kafkajs_modules, broker, "transactions")

    assert r["baseOffsets"] == [0, 4, 7]
    assert r["readCommitted"] == [
        {"offset": 0, "value": "c0", "inTransaction": True},
        {"offset": 1, "value": "c1", "inTransaction": True},
        {"offset": 2, "value": "c2", "inTransaction": True},
        {"offset": 7, "value": "c3", "inTransaction": True},
    ]
    # read_uncommitted sees the aborted records too, never the control records
    assert r["readUncommitted"] == [
        {"offset": 0, "value": "c0"}, {"offset": 1, "value": "c1"},
        {"offset": 2, "value": "c2"}, {"offset": 4, "value": "a0"},
        {"offset": 5, "value": "a1"}, {"offset": 7, "value": "c3"},
    ]
    assert r["watermarks"] == {"0": {"low": 0, "high": 9}}
    assert r["txnCommittedOffset"] == 2


# --- 6. a compacted topic ---------------------------------------------------------------
def test_compacted_topic_latest_value_per_key_and_tombstone(kafkajs_modules, start_broker):
    """kafkajs writes keyed messages (k9 once, in the first send; k5 deleted by a
    tombstone after its last value) and fillers to a compacted topic with 16 KiB
    segments; once the cleaner has cleaned everything below the active segment
    (event=log_cleaned, then read back with librdkafka until it is), a kafkajs
    group consumer from the beginning is handed the latest message of each key,
    at the offset it was acknowledged at, with its headers and timestamp, the
    tombstone (delete.retention.ms=3600000 has not passed) as a null value, and
    then every message of the active segment."""
    broker = start_broker(overrides={**GROUP_BROKER, **CLEANER_BROKER})
    r = run_scenario(kafkajs_modules, broker, "compaction", {"phase": "produce"})
    topic = "kjs-compaction-t"
    sent = r["sent"]
    assert [m["offset"] for m in sent] == list(range(len(sent)))

    def as_rec(m):
        return Rec(m["offset"], m["key"].encode(),
                   None if m["value"] is None else m["value"].encode(),
                   tuple((k, v.encode()) for k, v in m["headers"].items()), int(m["timestamp"]))
    wait_for_cleaning(broker, topic)
    wait_compacted(broker, topic, [as_rec(m) for m in sent])
    boundary = active_base(broker.data_dir, topic)
    assert boundary > r["lastKeyedOffset"]

    kept = {x.offset for x in survivors([as_rec(m) for m in sent], boundary)}
    expected = [m for m in sent if m["offset"] in kept]
    c = run_scenario(kafkajs_modules, broker, "compaction",
                     {"phase": "consume", "lastOffset": sent[-1]["offset"]})
    assert c["received"] == expected
    assert c["watermarks"] == {"0": {"low": 0, "high": len(sent)}}

    cleaned = [m for m in c["received"] if m["offset"] < boundary and
               not m["key"].startswith("filler-")]
    assert sorted(m["key"] for m in cleaned) == [f"k{i}" for i in range(10)]
    latest = {}
    for m in sent:
        latest[m["key"]] = m
    assert all(m == latest[m["key"]] for m in cleaned)
    tombstone = next(m for m in cleaned if m["key"] == "k5")
    assert tombstone["value"] is None and tombstone["headers"] == {"why": "deleted"}
    assert next(m for m in cleaned if m["key"] == "k9")["offset"] < 3
    assert any(m["headers"] for m in cleaned)
