"""sarama (Go, Debian's 1.22.1) against real `samsa server` processes.

The client is tests/clients/sarama/*.go, built by scripts/setup-clients.sh into
$SAMSA_CLIENTS_DIR/sarama/sarama-client: one subcommand per scenario, each
printing one JSON object that the tests assert on. Every client sets
sarama's Config.Version explicitly; with sarama 1.22.1 that picks:

    2.1.0     Produce v3 / Fetch v4 (record batches, headers), Metadata v5,
              CreateTopics v2, DeleteTopics v1, JoinGroup v1, OffsetCommit v1/v2
    0.10.2.0  Produce v2 / Fetch v3, message format v1 (timestamps, relative
              offsets in compressed wrappers)
    0.8.2.0   Produce v0 / Fetch v0, message format v0

Where useful the outcome is cross-checked with kcat (librdkafka), `samsa
dump-log` on the broker's segment files, and `samsa groups`.
"""
import json
import re
import subprocess
from pathlib import Path

import pytest

from acl_support import USERS, denials
from samsa_harness import run_kcat

CLIENT_TIMEOUT_S = 90
BATCH, SINGLE = 20, 5
BASE_TS_MS = 1_700_000_000_000  # the client's CreateTime of record 0 (record i: +i ms)

# Kafka error codes.
UNKNOWN_TOPIC_OR_PARTITION = 3
TOPIC_AUTHORIZATION_FAILED = 29
GROUP_AUTHORIZATION_FAILED = 30
CLUSTER_AUTHORIZATION_FAILED = 31
UNSUPPORTED_VERSION = 35
TOPIC_ALREADY_EXISTS = 36
INVALID_PARTITIONS = 37
INVALID_REPLICATION_FACTOR = 38
INVALID_CONFIG = 40
UNSUPPORTED_COMPRESSION_TYPE = 76

GROUP_OVERRIDES = {
    # One node: the offsets topic cannot have Kafka's default 3 replicas.
    "offsets.topic.replication.factor": 1,
    # The first member of an empty group joins at once (Kafka waits 3 s).
    "group.initial.rebalance.delay.ms": 0,
}


@pytest.fixture
def sarama_client(client_dir) -> Path:
    path = Path(client_dir) / "sarama" / "sarama-client"
    if not path.exists():
        pytest.fail(f"sarama test program not found at {path}: run scripts/setup-clients.sh "
                    f"{client_dir} (it builds tests/clients/sarama with Debian's Go)",
                    pytrace=False)
    return path


def run_client(binary: Path, broker, scenario: str, *, bootstrap: str | None = None,
               timeout: float = CLIENT_TIMEOUT_S, **flags) -> dict:
    """Runs one scenario against `broker` (at `bootstrap`, default its PLAINTEXT
    listener); `flags` become --flag value (a list: the flag repeated)."""
    cmd = [str(binary), scenario, "--bootstrap", bootstrap or broker.bootstrap]
    for name, value in flags.items():
        values = value if isinstance(value, list) else [value]
        for v in values:
            cmd += [f"--{name.replace('_', '-')}", str(v)]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"{cmd} still running after {timeout}s\nstdout: {e.stdout}"
                             f"\nstderr: {e.stderr}\n--- broker log ---\n{broker.log_text()}")
    lines = res.stdout.strip().splitlines()
    assert res.returncode == 0 and lines, (
        f"{cmd} exited {res.returncode}\nstdout: {res.stdout}\nstderr: {res.stderr}"
        f"\n--- broker log ---\n{broker.log_text()}")
    return json.loads(lines[-1])


def dump_batches(samsa_binary, broker, topic: str, partition: int = 0) -> list[dict]:
    """The batch headers of the partition's first segment, as `samsa dump-log`
    prints them (baseOffset, count, producerId, magic, compresscodec, ...)."""
    segment = broker.data_dir / f"{topic}-{partition}" / "00000000000000000000.log"
    res = subprocess.run([str(samsa_binary), "dump-log", str(segment)], capture_output=True,
                         text=True, timeout=30)
    assert res.returncode == 0, f"dump-log {segment}: {res.stdout}\n{res.stderr}"
    return [dict(re.findall(r"(\w+): (\S+)", line))
            for line in res.stdout.splitlines() if line.startswith("baseOffset:")]


def kcat_records(broker, topic: str, partition: int = 0) -> list[tuple[int, str, str]]:
    """(offset, key, value) of every record of the partition, read by kcat."""
    out = run_kcat("-C", "-b", broker.bootstrap, "-t", topic, "-p", str(partition),
                   "-o", "beginning", "-e", "-q", "-f", "%o\t%k\t%s\n").stdout
    return [(int(o), k, v) for o, k, v in (line.split("\t") for line in out.splitlines())]


def expected_records(n: int, headers: bool) -> list[dict]:
    return [{"partition": 0, "offset": i, "key": f"k-{i}",
             "value": f"value-{i}-abcdefghij abcdefghij abcdefghij",
             "headers": [["seq", str(i)], ["client", "sarama"]] if headers else [],
             "timestamp_ms": BASE_TS_MS + i}
            for i in range(n)]


def check_round_trip(res: dict, broker, topic: str, headers: bool, timestamps: bool = True):
    n = BATCH + SINGLE
    assert "produce_error" not in res and "consume_error" not in res, res
    assert res["produced"] == [{"partition": 0, "offset": i} for i in range(n)]
    consumed = res["consumed"]
    if not timestamps:
        for r in consumed:
            r.pop("timestamp_ms")
        expected = [{k: v for k, v in r.items() if k != "timestamp_ms"}
                    for r in expected_records(n, headers)]
    else:
        expected = expected_records(n, headers)
    assert consumed == expected
    assert res["high_watermark"] == n
    assert kcat_records(broker, topic) == [(r["offset"], r["key"], r["value"])
                                           for r in expected_records(n, headers)]


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4"])
def test_sync_producer_acks_all_round_trip(sarama_client, broker, samsa_binary, codec):
    """SyncProducer, acks=all: 20 records in one SendMessages (one batch), then 5
    one by one; consecutive offsets; a PartitionConsumer from OffsetOldest reads
    back exactly the keys, values, headers and timestamps, in order."""
    topic = f"sarama-{codec}"
    res = run_client(sarama_client, broker, "produce-consume", topic=topic, compression=codec,
                     version="2.1.0", batch=BATCH, single=SINGLE)
    check_round_trip(res, broker, topic, headers=True)
    batches = dump_batches(samsa_binary, broker, topic)
    assert [int(b["baseOffset"]) for b in batches] == [0] + list(range(BATCH, BATCH + SINGLE))
    assert [b["count"] for b in batches] == [str(BATCH)] + ["1"] * SINGLE
    assert {(b["magic"], b["compresscodec"]) for b in batches} == {("2", codec)}


def test_zstd_in_produce_v3_is_unsupported_compression(sarama_client, broker, samsa_binary):
    """sarama 1.22.1 sends zstd batches in Produce v3 (it never uses v7);
    Kafka refuses zstd below Produce v7 with UNSUPPORTED_COMPRESSION_TYPE for
    the partition, and appends nothing."""
    topic = "sarama-zstd"
    res = run_client(sarama_client, broker, "produce-consume", topic=topic, compression="zstd",
                     version="2.1.0", batch=BATCH, single=SINGLE)
    assert res.get("produce_error_code") == UNSUPPORTED_COMPRESSION_TYPE, res
    assert dump_batches(samsa_binary, broker, topic) == []
    assert kcat_records(broker, topic) == []


def test_idempotent_producer_exactly_once_in_order(sarama_client, broker, samsa_binary):
    """Idempotent AsyncProducer (InitProducerId, acks=all, one request in
    flight): 200 records in batches of at most 25 land once each, in order,
    with one producer id and contiguous sequence numbers."""
    topic = "sarama-idempotent"
    n = 200
    res = run_client(sarama_client, broker, "idempotent", topic=topic, count=n, version="2.1.0")
    assert res["produce_errors"] == [], res["produce_errors"]
    assert res.get("consume_error") is None, res
    assert res["successes"] == [{"partition": 0, "offset": i, "key": f"k-{i}"} for i in range(n)]
    assert [(r["offset"], r["key"]) for r in res["consumed"]] == [(i, f"k-{i}") for i in range(n)]
    assert res["high_watermark"] == n
    batches = dump_batches(samsa_binary, broker, topic)
    assert len(batches) >= n // 25
    assert len({b["producerId"] for b in batches}) == 1 and int(batches[0]["producerId"]) >= 0
    assert {b["producerEpoch"] for b in batches} == {"0"}
    assert all(b["baseSequence"] == b["baseOffset"] and b["lastSequence"] == b["lastOffset"]
               for b in batches), batches
    assert sum(int(b["count"]) for b in batches) == n


def test_cluster_admin(sarama_client, broker):
    """ClusterAdmin through a topic's life, with Kafka's error codes for the
    requests that must fail."""
    topic = "sarama-admin"
    res = run_client(sarama_client, broker, "admin", topic=topic, version="2.1.0")
    assert res["create"] == 0
    assert res["create_again"] == TOPIC_ALREADY_EXISTS
    assert res["create_validate_only"] == 0
    assert res[f"describe_{topic}-v"] == UNKNOWN_TOPIC_OR_PARTITION  # validate only: not created
    assert res["create_rf3"] == INVALID_REPLICATION_FACTOR
    assert res[f"describe_{topic}-rf3"] == UNKNOWN_TOPIC_OR_PARTITION
    assert res["create_bad_config"] == INVALID_CONFIG
    assert res[f"describe_{topic}-badcfg"] == UNKNOWN_TOPIC_OR_PARTITION

    assert res["describe"] == {"code": 0, "partitions": [0, 1, 2], "leaders": [1, 1, 1],
                               "replicas": [[1], [1], [1]]}
    assert topic in res["list_names"]
    assert res["list_detail"] == {"partitions": 3, "replication_factor": 1,
                                  "config_entries": {"retention.ms": "123456"}}
    configs = res["configs"]
    assert configs["retention.ms"] == {"value": "123456", "default": False, "read_only": False}
    assert configs["cleanup.policy"]["value"] == "delete" and configs["cleanup.policy"]["default"]
    assert configs["segment.bytes"] == {"value": "1073741824", "default": True, "read_only": False}

    assert res["alter"] == 0
    assert res["configs_after_alter"] == {
        "retention.ms": {"value": "654321", "default": False, "read_only": False}}

    assert res["create_partitions"] == 0
    assert res["describe_after_create_partitions"]["partitions"] == [0, 1, 2, 3, 4]
    assert res["describe_after_create_partitions"]["leaders"] == [1] * 5
    assert res["create_partitions_fewer"] == INVALID_PARTITIONS

    assert res["delete"] == 0
    assert res["describe_after_delete"] == UNKNOWN_TOPIC_OR_PARTITION
    assert res["listed_after_delete"] is False
    assert res["delete_again"] == UNKNOWN_TOPIC_OR_PARTITION


def samsa_group_offsets(samsa_binary, broker, group: str) -> dict[int, tuple[int, int]]:
    """partition -> (committed offset, log end offset), by `samsa groups --describe`."""
    res = subprocess.run([str(samsa_binary), "groups", "--bootstrap-server", broker.bootstrap,
                          "--describe", "--group", group], capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0, f"samsa groups: {res.stdout}\n{res.stderr}"
    out = {}
    for line in res.stdout.splitlines():
        cols = line.split()
        if len(cols) >= 5 and cols[0] == group and cols[2].isdigit():
            out[int(cols[2])] = (int(cols[3]), int(cols[4]))
    return out


@pytest.mark.parametrize("version", ["2.1.0", "0.10.2.0"])
def test_consumer_group(sarama_client, start_broker, samsa_binary, version):
    """Two ConsumerGroup members divide a 4-partition topic (range: 2 + 2, no
    overlap), consume what is produced then and commit the offsets below 6; a
    third member, after both left, resumes at 6 on every partition and
    commits 10; last, the offset manager outside any generation (OffsetCommit
    v2, generation -1, on the empty group) reads 10 and rewinds to p+1."""
    broker = start_broker(overrides=GROUP_OVERRIDES)
    topic, group = "sarama-group", f"sarama-group-{version}"
    res = run_client(sarama_client, broker, "group", topic=topic, group=group, version=version)
    parts = {0, 1, 2, 3}

    # A and B in one generation, dividing the partitions.
    sa, sb = res["shared_generation"]
    assert sa["member"] == "A" and sb["member"] == "B" and sa["generation"] == sb["generation"]
    assert sorted(len(s["claims"]) for s in (sa, sb)) == [2, 2]
    assert set(sa["claims"]) | set(sb["claims"]) == parts
    assert not set(sa["claims"]) & set(sb["claims"])
    assert res["sessions_a"][0]["claims"] == [0, 1, 2, 3]  # alone first
    d = res["describe_group"]
    assert (d["code"], d["state"], d["protocol_type"], d["protocol"]) == (0, "Stable", "consumer",
                                                                          "range")
    assert d["members"] == {sa["member_id"]: sa["claims"], sb["member_id"]: sb["claims"]}

    # Every record consumed, each by a member that held its partition then.
    claims = {(s["member"], s["generation"]): set(s["claims"])
              for s in res["sessions_a"] + res["sessions_b"] + res["sessions_c"]}
    ab = (res["records_a"] or []) + (res["records_b"] or [])
    for r in ab + (res["records_c"] or []):
        assert r["partition"] in claims[(r["member"], r["generation"])], r
        assert r["value"] == f"p{r['partition']}-{r['offset']}", r
    assert {(r["partition"], r["offset"]) for r in ab} == {(p, o) for p in parts for o in range(10)}
    owner = {p: s["member"] for s in (sa, sb) for p in s["claims"]}
    assert res["committed_phase1"] == {
        str(p): {"offset": 6, "metadata": f"meta-{owner[p]}", "code": 0} for p in parts}

    # C resumes from the commits: offsets 6..9 of every partition, none before.
    assert res["sessions_c"][0]["claims"] == [0, 1, 2, 3]
    rc = res["records_c"]
    assert {(r["partition"], r["offset"]) for r in rc} == {(p, o) for p in parts
                                                             for o in range(6, 10)}
    for p in parts:
        assert [r["offset"] for r in rc if r["partition"] == p][0] == 6
    assert res["committed_phase2"] == {
        str(p): {"offset": 10, "metadata": "meta-C", "code": 0} for p in parts}

    # The standalone offset manager.
    assert res["offset_manager_next"] == {
        str(p): {"offset": 10, "metadata": "meta-C", "code": 0} for p in parts}
    assert not res["offset_manager_errors"]
    assert res["committed_phase3"] == {
        str(p): {"offset": p + 1, "metadata": f"om-{p}", "code": 0} for p in parts}

    # Only the coordinator's load after creating __consumer_offsets may have
    # failed a first JoinGroup (COORDINATOR_LOAD_IN_PROGRESS; sarama 1.22.1
    # does not retry it itself, the program's Consume loop does).
    for who in ("a", "b", "c"):
        errors = [e for e in res[f"errors_{who}"] or [] if "still loading offsets" not in e]
        assert errors == [], (who, res[f"errors_{who}"])

    assert samsa_group_offsets(samsa_binary, broker, group) == {p: (p + 1, 10) for p in parts}


@pytest.mark.parametrize("version,codec", [("0.10.2.0", "none"), ("0.10.2.0", "gzip"),
                                           ("0.10.2.0", "snappy"), ("0.8.2.0", "none"),
                                           ("0.8.2.0", "gzip")])
def test_old_protocol_round_trip(sarama_client, broker, samsa_binary, version, codec):
    """Old clients: message format v1 (0.10.2: Produce v2, Fetch v3; a
    compressed set is one wrapper message with relative inner offsets) and v0
    (0.8.2: Produce v0, Fetch v0, no timestamps). The broker assigns
    consecutive offsets to the inner messages; the old consumer and kcat read
    the same records back."""
    topic = f"sarama-old-{codec}"
    res = run_client(sarama_client, broker, "produce-consume", topic=topic, compression=codec,
                     version=version, batch=BATCH, single=SINGLE)
    check_round_trip(res, broker, topic, headers=False, timestamps=version != "0.8.2.0")
    batches = dump_batches(samsa_binary, broker, topic)
    assert sum(int(b["count"]) for b in batches) == BATCH + SINGLE
    assert batches[0]["baseOffset"] == "0" and batches[0]["count"] == str(BATCH)
    if version == "0.8.2.0":
        # Message format v0 has no timestamp: NO_TIMESTAMP once up-converted.
        assert {b["CreateTime"] for b in batches} == {"-1"}
    else:
        assert batches[0]["CreateTime"] == str(BASE_TS_MS + BATCH - 1)  # max timestamp


# Kafka's LogValidator keeps the producer's codec when it up-converts a magic
# 0/1 set and compression.type is "producer".
def test_old_compressed_set_keeps_its_codec(sarama_client, broker, samsa_binary):
    topic = "sarama-old-gzip-codec"
    res = run_client(sarama_client, broker, "produce-consume", topic=topic, compression="gzip",
                     version="0.10.2.0", batch=BATCH, single=SINGLE)
    check_round_trip(res, broker, topic, headers=False)
    assert {b["compresscodec"] for b in dump_batches(samsa_binary, broker, topic)} == {"gzip"}


# A topic's compression.type other than "producer": Kafka recompresses the
# batch with it (here gzip from the client, stored as lz4).
def test_topic_compression_type_recompresses(sarama_client, broker, samsa_binary):
    topic = "sarama-recompress"
    res = run_client(sarama_client, broker, "produce-consume", topic=topic, compression="gzip",
                     version="2.1.0", batch=BATCH, single=SINGLE,
                     topic_config="compression.type=lz4")
    check_round_trip(res, broker, topic, headers=True)
    assert {b["compresscodec"] for b in dump_batches(samsa_binary, broker, topic)} == {"lz4"}



def acl(resource_type, name, pattern, principal, operation, permission):
    """An ACL as the `acls` scenario reports it (Kafka's names for the ids)."""
    return {"resource_type": resource_type, "resource_name": name, "pattern_type": pattern,
            "principal": principal, "host": "*", "operation": operation,
            "permission": permission}


def test_acls_create_describe_enforce_delete(sarama_client, start_acl_broker):
    """sarama (Version 2.1.0) signed in with SASL/PLAIN to a broker with the
    StandardAuthorizer. sarama 1.22.1's ClusterAdmin sends ACL requests at v0
    (no pattern type: Kafka reads its filters and new ACLs as LITERAL) and
    drops their per-ACL error codes, so the scenario uses it for LITERAL ACLs
    and sends v1 CreateAcls, DescribeAcls and DeleteAcls itself for the rest.
    admin creates ACLs and describes them with filters (principal, PREFIXED,
    MATCH on the topic, operation); alice's produce is refused until a
    PREFIXED WRITE covers the topic, her group's JoinGroup until READ on the
    group is granted (FindCoordinator passes on a PREFIXED DESCRIBE), then she
    reads her records back; she may not create, describe or delete ACLs.
    Deleting her ACLs answers the deleted ones (v0 only the LITERAL ones, v1
    the rest), and she is refused again."""
    broker = start_acl_broker()
    topic, group, prefix = "sarama-acl-orders", "sarama-acl-g", "sarama-acl-"
    res = run_client(sarama_client, broker, "acls", bootstrap=broker.sasl_bootstrap,
                     topic=topic, group=group, prefix=prefix, version="2.1.0",
                     sasl_user=[f"{u}={p}" for u, p in USERS.items()], timeout=150)
    read_topic = acl("TOPIC", topic, "LITERAL", "User:alice", "READ", "ALLOW")
    describe_groups = acl("GROUP", prefix, "PREFIXED", "User:alice", "DESCRIBE", "ALLOW")
    deny_carol = acl("TOPIC", prefix, "PREFIXED", "User:carol", "ALL", "DENY")
    write_prefix = acl("TOPIC", f"{prefix}ord", "PREFIXED", "User:alice", "WRITE", "ALLOW")
    read_group = acl("GROUP", group, "LITERAL", "User:alice", "READ", "ALLOW")

    # (The scenario sorts every list of ACLs: type, name, pattern, principal.)
    assert res["create_acl"] == ""
    assert res["create_acls_v1"] == [{"code": 0}, {"code": 0}]
    assert res["describe_all"] == [describe_groups, read_topic, deny_carol]
    assert res["describe_alice"] == {"code": 0, "acls": [describe_groups, read_topic]}
    assert res["describe_prefixed"] == {"code": 0, "acls": [describe_groups, deny_carol]}
    assert res["describe_match"] == {"code": 0, "acls": [read_topic, deny_carol]}
    # DescribeAcls v0: a LITERAL filter, and a response without pattern types
    # (sarama leaves the field UNKNOWN).
    assert res["list_acls_v0"] == [{**read_topic, "pattern_type": "UNKNOWN"}]

    # Every record of the refused SendMessages fails with the Produce's error.
    refused = {"codes": [TOPIC_AUTHORIZATION_FAILED] * 3,
               "error": "kafka: Failed to deliver 3 messages."}
    assert res["produce_refused"] == refused
    assert res["create_acls_write"] == [{"code": 0}]
    assert res["produced"] == {"offsets": [0, 1, 2]}

    assert res["consume_refused"] == {
        "code": GROUP_AUTHORIZATION_FAILED,
        "error": "kafka server: The client is not authorized to access this group."}
    assert res["create_acl_read_group"] == ""
    assert res["describe_group_read"] == {"code": 0, "acls": [read_group]}
    assert [(r["partition"], r["offset"], r["value"]) for r in res["consumed"]] == [
        (0, i, f"a{i}") for i in range(3)]
    # (Only the coordinator's load of the new __consumer_offsets may have
    # failed a JoinGroup, as in test_consumer_group.)
    assert [e for e in res["consume_errors"] if "still loading offsets" not in e] == []
    assert res["committed"] == 3

    # sarama's ClusterAdmin.CreateACL drops the per-ACL error (the broker logs
    # the refusal, below); the v1 request shows it.
    assert res["alice_create_acl"] == ""
    assert [c["code"] for c in res["alice_create_acls_v1"]] == [CLUSTER_AUTHORIZATION_FAILED]
    described = res["alice_describe_acls_v1"]
    assert (described["code"], described["acls"]) == (CLUSTER_AUTHORIZATION_FAILED, [])
    (deleted,) = res["alice_delete_acls_v1"]
    assert (deleted["code"], deleted["matching"]) == (CLUSTER_AUTHORIZATION_FAILED, [])
    assert res["describe_after_alice"] == [read_group, describe_groups, read_topic, write_prefix,
                                           deny_carol]

    # DeleteAcls v0 reaches the LITERAL ACLs only; v1 (pattern ANY) the others.
    assert res["delete_acl_v0"] == [{"code": 0, **a, "pattern_type": "UNKNOWN"}
                                    for a in (read_group, read_topic)]
    assert res["delete_acls_v1"] == [{"code": 0, "matching": [
        {"code": 0, **a} for a in (describe_groups, write_prefix)]}]
    assert res["describe_after_delete"] == [deny_carol]

    # Refused again: the topic is hidden from her (Metadata), so are the
    # group's offsets (FindCoordinator).
    assert res["produce_after_delete"] == refused
    assert res["consume_after_delete"] == {
        "code": TOPIC_AUTHORIZATION_FAILED,
        "error": "kafka server: The client is not authorized to access this topic."}
    assert res["fetch_offsets_after_delete"] == {
        "code": GROUP_AUTHORIZATION_FAILED,
        "error": "kafka server: The client is not authorized to access this group."}
    assert res["high_watermark"] == 3

    last = ("User:alice", "DESCRIBE", f"GROUP:{group}", "FindCoordinator")
    assert denials(broker, last) == [
        ("User:alice", "WRITE", f"TOPIC:{topic}", "Produce"),
        ("User:alice", "READ", f"GROUP:{group}", "JoinGroup"),
        ("User:alice", "ALTER", "CLUSTER:kafka-cluster", "CreateAcls"),  # v0, then v1
        ("User:alice", "DESCRIBE", "CLUSTER:kafka-cluster", "DescribeAcls"),
        ("User:alice", "ALTER", "CLUSTER:kafka-cluster", "DeleteAcls"),
        ("User:alice", "DESCRIBE", f"TOPIC:{topic}", "Metadata"),
        last,
    ]
