"""The operator verbs that stand for Kafka's kafka-storage.sh,
kafka-metadata-quorum.sh, kafka-log-dirs.sh and kafka-get-offsets.sh, against
real brokers and log directories, with Kafka's flags and output formats."""
import json
import re
import time
from pathlib import Path

from confluent_kafka import OFFSET_INVALID, Consumer, Producer, TopicPartition

from samsa_cli import cli, create_topic, on, produce_lines
from samsa_harness import Broker, free_ports, read_properties, samsa_bin

ROOT = Path(__file__).resolve().parents[2]


# --- storage --------------------------------------------------------------------

def storage_config(tmp_path, dirs, extra=""):
    port, controller = free_ports(2)
    path = tmp_path / "server.properties"
    path.write_text(
        "process.roles=broker,controller\nnode.id=4\n"
        f"controller.quorum.voters=4@127.0.0.1:{controller}\n"
        f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}\n"
        "controller.listener.names=CONTROLLER\n"
        f"log.dirs={','.join(str(d) for d in dirs)}\n" + extra)
    return path


def test_storage_random_uuid_is_a_cluster_id():
    a = cli("storage", "random-uuid").ok().stdout.strip()
    b = cli("storage", "random-uuid").ok().stdout.strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", a) and a != b


def test_storage_format_then_info_then_the_broker_starts_on_it(tmp_path):
    dirs = [tmp_path / "d1", tmp_path / "d2"]
    meta = tmp_path / "meta"
    config = storage_config(tmp_path, dirs, f"metadata.log.dir={meta}\n")
    cluster_id = cli("storage", "random-uuid").ok().stdout.strip()

    res = cli("storage", "info", "-c", config)
    assert res.returncode == 1
    assert "Found problems:" in res.stdout and "does not exist" in res.stdout

    out = cli("storage", "format", "-t", cluster_id, "-c", config).ok().stdout
    assert f"Formatting metadata directory {meta} with cluster.id {cluster_id}." in out
    assert f"Formatting data directory {dirs[0]} with cluster.id {cluster_id}." in out
    ids = set()
    for d in [*dirs, meta]:
        props = read_properties(d / "meta.properties")
        assert props["cluster.id"] == cluster_id and props["node.id"] == "4"
        assert props["version"] == "1"
        ids.add(props["directory.id"])
    assert len(ids) == 3

    out = cli("storage", "info", "-c", config).ok().stdout
    assert out.startswith("Found log directories:\n  " + str(dirs[0]) + "\n"), out
    assert re.search(rf"Found metadata: {{cluster.id={cluster_id}, directory.id=\S+, "
                     r"node.id=4, version=1}", out), out

    # Formatted already: refused, unless told to leave such directories alone.
    res = cli("storage", "format", "-t", cluster_id, "-c", config).failed()
    assert f"Log directory {dirs[0]} is already formatted. Use --ignore-formatted" in res.error
    assert "already formatted" in cli("storage", "format", "-t", cluster_id, "-c", config,
                                      "--ignore-formatted").ok().stdout
    # A third directory added later is formatted with the same identity.
    config2 = storage_config(tmp_path, [*dirs, tmp_path / "d3"], f"metadata.log.dir={meta}\n")
    cli("storage", "format", "-t", cluster_id, "-c", config2, "-g").ok()
    assert read_properties(tmp_path / "d3/meta.properties")["cluster.id"] == cluster_id

    # The broker takes the formatted directories as they are.
    b = Broker(binary=samsa_bin(), node_id=4,
               properties={"log.dirs": f"{dirs[0]},{dirs[1]}", "metadata.log.dir": str(meta)})
    try:
        b.start()
        assert f"cluster_id={cluster_id}" in b.log_text()
    finally:
        b.cleanup()


def test_storage_format_refuses_a_bad_id_a_stray_dir_and_a_standalone_that_is_not(tmp_path):
    d = tmp_path / "d"
    config = storage_config(tmp_path, [d])
    assert "does not appear to be a valid UUID" in cli(
        "storage", "format", "-t", "not-a-uuid", "-c", config).failed().error
    d.mkdir()
    (d / "stray").write_text("x")
    assert "is not empty and has no meta.properties" in cli(
        "storage", "format", "-t", "MkU3OEVBNTcwNTJENDM2Qg", "-c", config).failed().error
    # A quorum of three voters is not a standalone one.
    port, c1, c2 = free_ports(3)
    three = tmp_path / "three.properties"
    three.write_text(config.read_text().replace(
        "controller.quorum.voters=4@", f"controller.quorum.voters=5@127.0.0.1:{c1},"
        f"6@127.0.0.1:{c2},4@"))
    (d / "stray").unlink()
    assert "--standalone" in cli("storage", "format", "--standalone", "-t",
                                 "MkU3OEVBNTcwNTJENDM2Qg", "-c", three).failed().error


def test_kafka_4_quickstart_formats_standalone_with_the_shipped_style_config(tmp_path):
    """Kafka 4's quickstart: kafka-storage.sh format --standalone on a config with
    controller.quorum.bootstrap.servers naming this controller."""
    port, controller = free_ports(2)
    config = tmp_path / "server.properties"
    config.write_text(
        "process.roles=broker,controller\nnode.id=1\n"
        f"controller.quorum.bootstrap.servers=localhost:{controller}\n"
        f"listeners=PLAINTEXT://:{port},CONTROLLER://:{controller}\n"
        f"advertised.listeners=PLAINTEXT://localhost:{port},CONTROLLER://localhost:{controller}\n"
        "controller.listener.names=CONTROLLER\n"
        f"log.dirs={tmp_path / 'kraft-combined-logs'}\n")
    cluster_id = cli("storage", "random-uuid").ok().stdout.strip()
    cli("storage", "format", "--standalone", "-t", cluster_id, "-c", config).ok()
    assert read_properties(tmp_path / "kraft-combined-logs/meta.properties")["cluster.id"] == \
        cluster_id


# --- metadata-quorum ------------------------------------------------------------

def test_metadata_quorum_describe_status_and_replication(broker):
    out = on(broker, "metadata-quorum", "describe", "--status").ok().stdout
    cluster_id = broker.meta_properties()["cluster.id"]
    lines = out.splitlines()
    assert lines[0] == f"ClusterId:              {cluster_id}"
    assert lines[1] == "LeaderId:               1"
    assert re.fullmatch(r"LeaderEpoch:            \d+", lines[2])
    assert re.fullmatch(r"HighWatermark:          \d+", lines[3])
    assert lines[4] == "MaxFollowerLag:         0"
    assert lines[5] == "MaxFollowerLagTimeMs:   0"
    m = re.fullmatch(r"CurrentVoters:          \[(.*)\]", lines[6])
    assert m and re.fullmatch(r'\{"id": 1(, "directoryId": "[A-Za-z0-9_-]{22}")?'
                              r', "endpoints": \["CONTROLLER://127.0.0.1:\d+"\]\}', m.group(1)), \
        lines[6]
    assert lines[7] == "CurrentObservers:       []"

    out = on(broker, "metadata-quorum", "describe", "--replication").ok().stdout
    header, row = out.splitlines()
    assert header.split() == ["NodeId", "DirectoryId", "LogEndOffset", "Lag",
                              "LastFetchTimestamp", "LastCaughtUpTimestamp", "Status"]
    # Kafka's table: every cell padded and followed by a tab.
    assert header.endswith("\t") and row.endswith("\t")
    cells = row.split("\t")[:-1]
    assert cells[0].strip() == "1" and cells[3].strip() == "0" and cells[6].strip() == "Leader"
    human = on(broker, "metadata-quorum", "describe", "--replication",
               "--human-readable").ok().stdout
    assert re.search(r"\d+ ms ago", human) or "-1" in human
    assert "One of --status or --replication" in on(
        broker, "metadata-quorum", "describe").failed().error


# --- log-dirs -------------------------------------------------------------------

def test_log_dirs_describe_prints_kafkas_json(broker):
    create_topic(broker, "dirs", partitions=2)
    p = Producer({"bootstrap.servers": broker.bootstrap})
    p.produce("dirs", b"x" * 100, partition=1)
    p.flush(10)
    out = on(broker, "log-dirs", "--describe", "--topic-list", "dirs").ok().stdout
    lines = out.splitlines()
    assert lines[0] == "Querying brokers for log directories information"
    assert lines[1] == "Received log directory information from brokers 1"
    # Key order as Kafka's tool writes it.
    assert lines[2].startswith('{"brokers":[{"broker":1,"logDirs":[{"partitions":[')
    assert lines[2].endswith('"version":1}')
    doc = json.loads(lines[2])
    [d] = doc["brokers"][0]["logDirs"]
    assert d["error"] is None and d["logDir"] == str(broker.data_dir)
    parts = {p["partition"]: p for p in d["partitions"]}
    assert set(parts) == {"dirs-0", "dirs-1"}
    assert parts["dirs-1"]["size"] > 100 and parts["dirs-0"]["size"] == 0
    assert parts["dirs-1"]["isFuture"] is False and parts["dirs-1"]["offsetLag"] == 0
    assert "Missing required argument" in on(broker, "log-dirs").failed().error


# --- get-offsets ----------------------------------------------------------------

def test_get_offsets_at_each_kind_of_time(broker):
    create_topic(broker, "offs", partitions=3)
    create_topic(broker, "other", partitions=1)
    p = Producer({"bootstrap.servers": broker.bootstrap})
    base = int(time.time() * 1000) - 100_000
    for i in range(5):
        p.produce("offs", b"v%d" % i, partition=0, timestamp=base + i * 1000)
    p.produce("offs", b"w", partition=1, timestamp=base)
    p.flush(10)

    assert on(broker, "get-offsets", "--topic", "offs").ok().stdout == \
        "offs:0:5\noffs:1:1\noffs:2:0\n"
    assert on(broker, "get-offsets", "--topic", "offs", "--time", "earliest").ok().stdout == \
        "offs:0:0\noffs:1:0\noffs:2:0\n"
    # The record with the largest timestamp: offset 4 in partition 0.
    assert "offs:0:4\n" in on(broker, "get-offsets", "--topic", "offs", "--partitions", "0",
                              "--time", "-3").ok().stdout
    # The first offset at or after a timestamp.
    assert on(broker, "get-offsets", "--topic", "offs", "--partitions", "0", "--time",
              str(base + 2500)).ok().stdout == "offs:0:3\n"
    # --topic is a regular expression a whole name must match.
    assert on(broker, "get-offsets", "--topic", "o.*", "--exclude-internal-topics").ok() \
        .stdout.splitlines() == ["offs:0:5", "offs:1:1", "offs:2:0", "other:0:0"]
    assert on(broker, "get-offsets", "--topic-partitions", "offs:1-3,other").ok().stdout == \
        "offs:1:1\noffs:2:0\nother:0:0\n"
    assert on(broker, "get-offsets", "--topic-partitions", "offs:-1").ok().stdout == \
        "offs:0:5\n"
    # No tiered storage: no latest-tiered offset (KIP-1005); all of the log is local.
    assert on(broker, "get-offsets", "--topic", "offs", "--partitions", "0", "--time",
              "latest-tiered").ok().stdout == "offs:0:-1\n"
    assert on(broker, "get-offsets", "--topic", "offs", "--partitions", "0", "--time",
              "earliest-local").ok().stdout == "offs:0:0\n"
    assert "Malformed time argument" in on(broker, "get-offsets", "--topic", "offs", "--time",
                                           "yesterday").failed().error
    assert "Could not match any topic-partitions" in on(
        broker, "get-offsets", "--topic", "nothing-here").failed().error


# --- delete-records --offset-json-file ---------------------------------------

def test_delete_records_from_an_offset_json_file(broker, tmp_path):
    create_topic(broker, "trim", 2)
    for p in (0, 1):
        produce_lines(broker, "trim", [f"r{i}" for i in range(5)], "--partition", str(p))
    plan = tmp_path / "offsets.json"
    plan.write_text(json.dumps({"partitions": [{"topic": "trim", "partition": 0, "offset": 3},
                                               {"topic": "trim", "partition": 1, "offset": -1}],
                                "version": 1}))
    out = on(broker, "delete-records", "--offset-json-file", plan).ok().stdout
    assert out.splitlines() == ["Executing records delete operation",
                                "Records delete operation completed:",
                                "partition: trim-0\tlow_watermark: 3",
                                "partition: trim-1\tlow_watermark: 5"], out
    plan.write_text(json.dumps({"partitions": [{"topic": "trim", "partition": 0, "offset": 4},
                                               {"topic": "trim", "partition": 0, "offset": 4}],
                                "version": 1}))
    assert "Offset json file contains duplicate topic partitions: trim-0" in on(
        broker, "delete-records", "--offset-json-file", plan).failed().error
    assert "cannot be used with" in on(broker, "delete-records", "--offset-json-file", plan,
                                       "--topic", "trim", "--offset", "1").failed().error


# --- consume --include ------------------------------------------------------

# Group verbs need __consumer_offsets, of one replica on one broker.
GROUPS = {"offsets.topic.replication.factor": 1, "group.initial.rebalance.delay.ms": 0}


def test_consume_include_subscribes_by_regular_expression(start_broker):
    broker = start_broker(overrides=GROUPS)
    for t in ("inc-a", "inc-b", "other"):
        create_topic(broker, t, 1)
        produce_lines(broker, t, [f"from-{t}"])
    res = on(broker, "consume", "--include", "inc-.*", "--from-beginning", "--max-messages", "2",
             "--timeout-ms", "30000").ok()
    assert sorted(res.stdout.split()) == ["from-inc-a", "from-inc-b"]
    assert "Exactly one of include/topic is required." in on(
        broker, "consume", "--include", "x", "--topic", "y").failed().error


# --- topics: replica assignment and the min-ISR filters -----------------------

def test_topics_replica_assignment_and_min_isr_filters(broker):
    on(broker, "topics", "--create", "--topic", "placed", "--replica-assignment", "1,1").ok()
    out = on(broker, "topics", "--describe", "--topic", "placed").ok().stdout
    assert "PartitionCount: 2\tReplicationFactor: 1" in out
    assert out.count("\tReplicas: 1\tIsr: 1") == 2
    on(broker, "topics", "--alter", "--topic", "placed", "--partitions", "3",
       "--replica-assignment", "1,1,1").ok()
    assert on(broker, "topics", "--describe", "--topic", "placed").ok().stdout.count(
        "\tReplicas: 1\tIsr: 1") == 3
    assert "duplicate entries" in on(broker, "topics", "--create", "--topic", "dup",
                                     "--replica-assignment", "1:1").failed().error
    assert "can't be used with option" in on(broker, "topics", "--create", "--topic", "both",
                                             "--replica-assignment", "1",
                                             "--partitions", "2").failed().error

    create_topic(broker, "strict", 1, "--config", "min.insync.replicas=2")
    under = on(broker, "topics", "--describe", "--under-min-isr-partitions").ok().stdout
    assert "\tTopic: strict\tPartition: 0\t" in under and "placed" not in under
    at = on(broker, "topics", "--describe", "--at-min-isr-partitions").ok().stdout
    assert "\tTopic: placed\tPartition: 0\t" in at and "strict" not in at


# --- groups --delete-offsets ------------------------------------------------

def test_groups_delete_offsets(start_broker):
    broker = start_broker(overrides=GROUPS)
    create_topic(broker, "committed", 2)
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "forgetful",
                  "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition("committed", 0, 4), TopicPartition("committed", 1, 2)],
             asynchronous=False)
    c.close()
    out = on(broker, "groups", "--delete-offsets", "--group", "forgetful", "--topic",
             "committed:0").ok().stdout
    lines = out.splitlines()
    assert lines[0] == "Request succeed for deleting offsets with topic committed group forgetful"
    assert lines[2].split() == ["TOPIC", "PARTITION", "STATUS"]
    assert lines[3].split() == ["committed", "0", "Successful"]
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "forgetful"})
    got = {p.partition: p.offset for p in c.committed(
        [TopicPartition("committed", 0), TopicPartition("committed", 1)], timeout=20)}
    c.close()
    assert got == {0: OFFSET_INVALID, 1: 2}
    res = on(broker, "groups", "--delete-offsets", "--group", "nobody", "--topic", "committed")
    assert res.returncode == 1 and "Error: 'nobody' does not exist." in res.stdout, res.stdout


def test_features_describe_prints_the_finalized_metadata_version(broker):
    """kafka-features.sh describe: each supported feature with its range and
    finalized level (metadata.version in Kafka's names) and the metadata epoch,
    from ApiVersions v3 (KIP-584); either order of verb and options."""
    out = on(broker, "features", "describe").ok().stdout
    lines = out.splitlines()
    assert len(lines) == 1, out
    fields = dict(f.split(": ", 1) for f in lines[0].split("\t"))
    assert fields["Feature"] == "metadata.version"
    assert fields["SupportedMinVersion"] == "3.3-IV3"
    assert fields["SupportedMaxVersion"] == "3.6-IV2"
    assert fields["FinalizedVersionLevel"] == "3.6-IV2"
    assert int(fields["Epoch"]) >= 0
    again = cli("features", "--bootstrap-server", broker.bootstrap, "describe").ok().stdout
    assert again.split("\tEpoch")[0] == out.split("\tEpoch")[0]


def test_features_upgrade_downgrade_and_disable_as_kafka_features_does(broker):
    """UpdateFeatures through `samsa features` (kafka-features.sh's flags and
    lines): the formatted metadata.version can be set again, a higher one is
    refused by the controller's range, every downgrade from it is refused as
    Kafka refuses it, an unknown feature cannot be set; --dry-run says "can be"."""
    ok = on(broker, "features", "upgrade", "--release-version", "3.6").ok().stdout
    assert ok.strip() == "metadata.version was upgraded to 14."
    dry = on(broker, "features", "upgrade", "--feature", "metadata.version=14", "--dry-run")
    assert dry.ok().stdout.strip() == "metadata.version can be upgraded to 14."

    too_new = on(broker, "features", "upgrade", "--feature", "metadata.version=15")
    assert too_new.returncode == 1
    assert too_new.stdout.strip() == (
        "Could not upgrade metadata.version to 15. The update failed for all features since "
        "the following feature had an error: Invalid update version 15 for feature "
        "metadata.version. Local controller 1 only supports versions 7-14")
    assert "1 out of 1 operation(s) failed." in too_new.stderr

    down = on(broker, "features", "downgrade", "--metadata", "3.5-IV2")
    assert down.returncode == 1
    assert "Could not downgrade metadata.version to 11. The update failed for all features " \
           "since the following feature had an error: Invalid metadata.version 11. Refusing " \
           "to perform the requested downgrade because it might delete metadata information." \
           in down.stdout
    unsafe = on(broker, "features", "downgrade", "--feature", "metadata.version=13", "--unsafe")
    assert "Invalid metadata.version 13. Unsafe metadata downgrade is not supported in this " \
           "version." in unsafe.stdout
    as_upgrade = on(broker, "features", "upgrade", "--feature", "metadata.version=13")
    assert "Can't downgrade the version of this feature without setting the upgrade type to " \
           "either safe or unsafe downgrade." in as_upgrade.stdout

    unknown = on(broker, "features", "disable", "--feature", "group.version")
    assert unknown.returncode == 1
    assert unknown.stdout.startswith("Could not disable group.version. ")
    assert unknown.stdout.strip().endswith("Feature group.version not found.")
    bad = on(broker, "features", "upgrade", "--release-version", "9.9")
    assert bad.returncode == 1
    assert "Unknown metadata.version 9.9. Supported metadata.version are 3.3-IV3, 3.4-IV0, " \
           "3.5-IV0, 3.5-IV1, 3.5-IV2, 3.6-IV0, 3.6-IV1, 3.6-IV2" in bad.stderr
    # Nothing changed.
    out = on(broker, "features", "describe").ok().stdout
    assert "FinalizedVersionLevel: 3.6-IV2" in out
