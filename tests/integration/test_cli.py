"""The `samsa` command-line verbs (topics, produce, consume, groups, configs,
cluster, delete-records, perf) against a real broker: output in the formats of
Kafka's scripts, exit codes, and the error cases (unknown topic, unreachable
broker within --timeout, invalid flags). What the perf verbs measure is in
test_cli_perf.py."""
import re
import time

import pytest

from samsa_cli import cli, consume_all, create_topic, on, produce_lines, start_on
from samsa_harness import free_ports, wait_until

VERBS = ["topics", "produce", "consume", "groups", "configs", "cluster", "delete-records",
         "perf produce", "perf consume", "perf e2e", "perf replay"]


# --- help and flags -----------------------------------------------------------

def test_help_lists_every_verb():
    out = cli("--help").ok().stdout
    for verb in ["server", "version", "topics", "produce", "consume", "groups", "configs",
                 "cluster", "delete-records", "perf"]:
        assert re.search(rf"^\s+{verb}\s", out, re.M), f"{verb} missing from --help:\n{out}"


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_help_lists_its_flags_with_defaults(verb):
    out = cli(*verb.split(), "--help").ok().stdout
    assert "--bootstrap-server TEXT=localhost:9092" in out
    assert "--timeout" in out and "=30s" in out
    assert "--command-config" in out


def test_invalid_flag_is_an_error_not_a_trace():
    res = cli("topics", "--list", "--no-such-flag").failed()
    assert "--no-such-flag" in res.stderr
    assert res.stdout == ""


def test_invalid_timeout_is_rejected():
    res = cli("topics", "--list", "--timeout", "soon").failed()
    assert "duration" in res.stderr


def test_topics_needs_exactly_one_action(broker):
    assert "exactly one action" in on(broker, "topics").failed().error
    assert "exactly one action" in on(broker, "topics", "--list", "--describe").failed().error


# --- unreachable broker ---------------------------------------------------------

UNREACHABLE_VERBS = [
    ("topics", "--list"),
    ("topics", "--describe", "--topic", "t"),
    ("topics", "--create", "--topic", "t"),
    ("consume", "--topic", "t"),
    ("groups", "--list"),
    ("configs", "--entity-type", "topics", "--describe"),
    ("cluster", "--describe"),
    ("delete-records", "--topic", "t", "--offset", "1"),
    ("perf", "consume", "--topic", "t", "--messages", "1"),
]


@pytest.mark.parametrize("args", UNREACHABLE_VERBS, ids=lambda a: " ".join(a[:2]))
def test_unreachable_broker_fails_within_the_timeout(args):
    (port,) = free_ports(1)
    started = time.monotonic()
    res = cli(*args, "--bootstrap-server", f"127.0.0.1:{port}", "--timeout", "1500ms",
              timeout=20).failed()
    elapsed = time.monotonic() - started
    assert elapsed < 10, f"took {elapsed:.1f}s with --timeout 1500ms"
    assert f"could not reach the cluster at 127.0.0.1:{port} within 1.5s" in res.error
    assert "Connection refused" in res.error
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_produce_to_unreachable_broker_fails_within_the_timeout():
    (port,) = free_ports(1)
    started = time.monotonic()
    res = cli("produce", "--topic", "t", "--bootstrap-server", f"127.0.0.1:{port}",
              "--timeout", "1500ms", input="a\nb\n", timeout=20).failed()
    assert time.monotonic() - started < 10
    assert "2 of 2 records were not delivered" in res.error
    assert "could not reach the cluster" in res.error


# --- topics -------------------------------------------------------------------------

DESCRIBE_TOPIC = re.compile(r"^Topic: (\S+)\tTopicId: ([A-Za-z0-9_-]{22})\tPartitionCount: (\d+)"
                            r"\tReplicationFactor: (\d+)\tConfigs: (.*)$")
DESCRIBE_PARTITION = re.compile(r"^\tTopic: (\S+)\tPartition: (\d+)\tLeader: (\d+|none)"
                                r"\tReplicas: ([\d,]*)\tIsr: ([\d,]*)$")


def describe(broker, topic):
    lines = on(broker, "topics", "--describe", "--topic", topic).ok().stdout.splitlines()
    head = DESCRIBE_TOPIC.match(lines[0])
    assert head, f"unexpected describe header: {lines[0]!r}"
    parts = [DESCRIBE_PARTITION.match(l) for l in lines[1:]]
    assert all(parts), f"unexpected partition lines: {lines[1:]}"
    return head, parts


def test_topics_create_describe_alter_list_delete(broker):
    res = on(broker, "topics", "--create", "--topic", "orders", "--partitions", "3",
             "--replication-factor", "1", "--config", "retention.ms=86400000",
             "--config", "cleanup.policy=compact").ok()
    assert res.stdout == "Created topic orders.\n"

    head, parts = describe(broker, "orders")
    assert head.group(1) == "orders"
    assert (head.group(3), head.group(4)) == ("3", "1")
    configs = dict(kv.split("=", 1) for kv in head.group(5).split(","))
    assert configs["retention.ms"] == "86400000" and configs["cleanup.policy"] == "compact"
    assert [(p.group(2), p.group(3), p.group(4), p.group(5)) for p in parts] == \
        [("0", "1", "1", "1"), ("1", "1", "1", "1"), ("2", "1", "1", "1")]

    on(broker, "topics", "--alter", "--topic", "orders", "--partitions", "5").ok()
    head2, parts2 = describe(broker, "orders")
    assert head2.group(3) == "5" and len(parts2) == 5
    assert head2.group(2) == head.group(2), "the topic id changed on --alter"

    create_topic(broker, "payments")
    listed = on(broker, "topics", "--list").ok().stdout.splitlines()
    assert {"orders", "payments"} <= set(listed)
    assert listed == sorted(listed)

    on(broker, "topics", "--delete", "--topic", "orders").ok()
    wait_until(lambda: "orders" not in on(broker, "topics", "--list").ok().stdout.split(),
               10, "orders to disappear from --list")


def test_topics_describe_all_and_by_pattern(broker):
    for t in ("logs.a", "logs.b", "metrics"):
        create_topic(broker, t, 2)
    out = on(broker, "topics", "--describe", "--topic", "logs\\..*").ok().stdout
    names = [m.group(1) for m in map(DESCRIBE_TOPIC.match, out.splitlines()) if m]
    assert names == ["logs.a", "logs.b"]
    out = on(broker, "topics", "--describe").ok().stdout
    names = [m.group(1) for m in map(DESCRIBE_TOPIC.match, out.splitlines()) if m]
    assert {"logs.a", "logs.b", "metrics"} <= set(names)


def test_topics_describe_only_under_replicated_prints_nothing_when_all_in_sync(broker):
    create_topic(broker, "healthy", 2)
    out = on(broker, "topics", "--describe", "--under-replicated-partitions").ok().stdout
    assert out == ""


def test_topics_create_existing_fails_unless_if_not_exists(broker):
    create_topic(broker, "dup")
    res = on(broker, "topics", "--create", "--topic", "dup").failed()
    assert res.error == "Error: Topic 'dup' already exists."
    assert on(broker, "topics", "--create", "--topic", "dup", "--if-not-exists").ok().stdout == ""


def test_topics_unknown_topic_errors(broker):
    for action in (["--describe"], ["--delete"], ["--alter", "--partitions", "4"]):
        res = on(broker, "topics", *action, "--topic", "ghost").failed()
        assert res.error == "Error: Topic 'ghost' does not exist as expected"
    on(broker, "topics", "--describe", "--topic", "ghost", "--if-exists").ok()


def test_topics_create_with_bad_arguments(broker):
    assert "greater than 0" in on(broker, "topics", "--create", "--topic", "x", "--partitions",
                                  "0").failed().error
    assert "Invalid topic config" in on(broker, "topics", "--create", "--topic", "x",
                                        "--config", "novalue").failed().error
    res = on(broker, "topics", "--create", "--topic", "x", "--config", "cleanup.policy=bogus")
    res.failed()


# --- produce and consume ------------------------------------------------------

def test_produce_three_lines_and_consume_them(broker):
    create_topic(broker, "lines")
    produce_lines(broker, "lines", ["first", "second", "third"])
    res = on(broker, "consume", "--topic", "lines", "--from-beginning", "--max-messages", "3").ok()
    assert res.stdout == "first\nsecond\nthird\n"
    assert "Processed a total of 3 messages" in res.stderr


def test_produce_keys_and_print_them(broker):
    create_topic(broker, "keyed")
    produce_lines(broker, "keyed", ["k1:v1", "k2:v2"], "--property", "parse.key=true",
                  "--property", "key.separator=:")
    res = on(broker, "consume", "--topic", "keyed", "--from-beginning", "--max-messages", "2",
             "--property", "print.key=true", "--property", "print.offset=true",
             "--property", "print.partition=true", "--property", "print.timestamp=true").ok()
    lines = res.stdout.splitlines()
    assert len(lines) == 2
    for i, line in enumerate(lines):
        assert re.fullmatch(rf"CreateTime:\d{{13}}\tPartition:0\tOffset:{i}\tk{i + 1}\tv{i + 1}",
                            line), line


def test_produce_missing_key_separator_fails(broker):
    create_topic(broker, "strict")
    res = on(broker, "produce", "--topic", "strict", "--property", "parse.key=true",
             input="no separator here\n").failed()
    assert "No key separator found on line number 1" in res.error


def test_produce_with_compression_and_acks(broker):
    create_topic(broker, "zipped")
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        produce_lines(broker, "zipped", [f"{codec}-1", f"{codec}-2"], "--compression-type", codec,
                      "--acks", "1")
    codecs = ("gzip", "snappy", "lz4", "zstd")
    assert consume_all(broker, "zipped", 8) == [f"{c}-{i}" for c in codecs for i in (1, 2)]


def test_consume_from_a_partition_and_offset(broker):
    create_topic(broker, "seek")
    produce_lines(broker, "seek", [f"m{i}" for i in range(5)], "--partition", "0")
    res = on(broker, "consume", "--topic", "seek", "--partition", "0", "--offset", "3",
             "--max-messages", "2", "--property", "print.offset=true").ok()
    assert res.stdout == "Offset:3\tm3\nOffset:4\tm4\n"


def test_consume_without_from_beginning_waits_for_new_records_and_exits_when_idle(broker):
    create_topic(broker, "idle")
    produce_lines(broker, "idle", ["old"])
    started = time.monotonic()
    res = on(broker, "consume", "--topic", "idle", "--timeout-ms", "1000").ok()
    assert res.stdout == ""
    assert "Processed a total of 0 messages" in res.stderr
    assert time.monotonic() - started < 10


def test_consume_unknown_topic_and_partition_fail(broker):
    assert on(broker, "consume", "--topic", "ghost").failed().error == \
        "Error: Topic 'ghost' does not exist"
    create_topic(broker, "one")
    assert "Partition 4 of topic 'one' does not exist" in \
        on(broker, "consume", "--topic", "one", "--partition", "4").failed().error
    assert "partition is required" in \
        on(broker, "consume", "--topic", "one", "--offset", "1").failed().error
    assert "unknown formatter property" in \
        on(broker, "consume", "--topic", "one", "--property", "print.kee=true").failed().error


# --- configs ------------------------------------------------------------------

def config_lines(out):
    return {l.split("=", 1)[0].strip(): l for l in out.splitlines()[1:]}


def test_configs_topic_add_describe_delete(broker):
    create_topic(broker, "conf")
    res = on(broker, "configs", "--entity-type", "topics", "--entity-name", "conf", "--alter",
             "--add-config", "retention.ms=3600000,max.message.bytes=20000").ok()
    assert res.stdout == "Completed updating config for topic conf.\n"
    out = on(broker, "configs", "--entity-type", "topics", "--entity-name", "conf",
             "--describe").ok().stdout
    assert out.splitlines()[0] == "Dynamic configs for topic conf are:"
    entries = config_lines(out)
    assert set(entries) == {"retention.ms", "max.message.bytes"}
    assert re.match(r"  retention.ms=3600000 sensitive=false synonyms=\{DYNAMIC_TOPIC_CONFIG:"
                    r"retention.ms=3600000(, .*)?\}$", entries["retention.ms"])

    on(broker, "configs", "--entity-type", "topics", "--entity-name", "conf", "--alter",
       "--delete-config", "retention.ms").ok()
    out = on(broker, "configs", "--entity-type", "topics", "--entity-name", "conf",
             "--describe").ok().stdout
    assert set(config_lines(out)) == {"max.message.bytes"}

    head, _ = describe(broker, "conf")
    assert "max.message.bytes=20000" in head.group(5)

    everything = on(broker, "configs", "--entity-type", "topics", "--entity-name", "conf",
                    "--describe", "--all").ok().stdout
    assert everything.startswith("All configs for topic conf are:\n")
    assert "cleanup.policy" in config_lines(everything)


def test_configs_errors(broker):
    assert on(broker, "configs", "--entity-type", "topics", "--entity-name", "ghost",
              "--describe").failed().error == "Error: Topic 'ghost' does not exist"
    create_topic(broker, "conf2")
    assert "Invalid config(s): retention.ms" in on(
        broker, "configs", "--entity-type", "topics", "--entity-name", "conf2", "--alter",
        "--delete-config", "retention.ms").failed().error
    on(broker, "configs", "--entity-type", "topics", "--entity-name", "conf2", "--alter",
       "--add-config", "cleanup.policy=nonsense").failed()
    assert "topics, brokers, broker-loggers, users, clients, ips or groups" in on(
        broker, "configs", "--entity-type", "nonsense", "--describe").failed().error


def test_configs_broker_describe_and_alter(broker):
    out = on(broker, "configs", "--entity-type", "brokers", "--entity-name", "1",
             "--describe").ok().stdout
    assert out.splitlines()[0] == "Dynamic configs for broker 1 are:"
    on(broker, "configs", "--entity-type", "brokers", "--entity-name", "1", "--alter",
       "--add-config", "log.cleaner.threads=2").ok()
    out = on(broker, "configs", "--entity-type", "brokers", "--entity-name", "1",
             "--describe").ok().stdout
    assert "log.cleaner.threads=2 sensitive=false" in out
    out = on(broker, "configs", "--entity-type", "brokers", "--entity-default",
             "--describe").ok().stdout
    assert out.splitlines()[0] == "Default configs for brokers in the cluster are:"


def test_configs_broker_default_is_altered_and_shown(broker):
    default = ("configs", "--entity-type", "brokers", "--entity-default")
    assert on(broker, *default, "--alter", "--add-config",
              "log.cleaner.threads=2,message.max.bytes=500000").ok().stdout == \
        "Completed updating default config for brokers in the cluster.\n"
    # The default's configs, as kafka-configs.sh prints them; a broker's own
    # describe shows the default as its value's synonym.
    lines = on(broker, *default, "--describe").ok().stdout.splitlines()
    assert lines[0] == "Default configs for brokers in the cluster are:"
    assert any(l.startswith("  log.cleaner.threads=2 sensitive=false") for l in lines), lines
    assert any(l.startswith("  message.max.bytes=500000 sensitive=false") for l in lines), lines
    on(broker, *default, "--alter", "--delete-config", "message.max.bytes").ok()
    lines = on(broker, *default, "--describe").ok().stdout.splitlines()
    assert not any("message.max.bytes" in l for l in lines), lines
    # A key that is no broker config is refused with the broker's message.
    assert "nonsense.key" in on(broker, *default, "--alter", "--add-config",
                                "nonsense.key=1").failed().error


# --- cluster and delete-records ---------------------------------------------------

def test_cluster_describe(broker):
    out = on(broker, "cluster", "--describe").ok().stdout.splitlines()
    assert out[0] == f"Cluster ID: {broker.meta_properties()['cluster.id']}"
    assert out[1] == "Controller: 1"
    assert out[2] == "Brokers: 1"
    assert out[3].split() == ["ID", "HOST", "PORT", "CONTROLLER"]
    assert out[4].split() == ["1", broker.host, str(broker.port), "yes"]


def test_delete_records_moves_the_log_start(broker):
    create_topic(broker, "trim")
    produce_lines(broker, "trim", [f"r{i}" for i in range(5)])
    res = on(broker, "delete-records", "--topic", "trim", "--partition", "0", "--offset", "3").ok()
    assert res.stdout == ("Executing records delete operation\n"
                          "Records delete operation completed:\n"
                          "partition: trim-0\tlow_watermark: 3\n")
    assert consume_all(broker, "trim", 2) == ["r3", "r4"]


def test_delete_records_errors(broker):
    assert on(broker, "delete-records", "--topic", "ghost", "--offset", "1").failed().error == \
        "Error: Topic 'ghost' does not exist"
    create_topic(broker, "trim2")
    assert "Partition 3 of topic 'trim2' does not exist" in on(
        broker, "delete-records", "--topic", "trim2", "--partition", "3",
        "--offset", "1").failed().error
    res = on(broker, "delete-records", "--topic", "trim2", "--offset", "10").failed()
    assert "partition: trim2-0\terror: " in res.stdout


def test_command_config_file_is_applied(broker, tmp_path):
    good = tmp_path / "client.properties"
    good.write_text("# shared with Java clients\nclient.id=from-file\n"
                    "key.serializer=org.apache.kafka.common.serialization.StringSerializer\n")
    res = on(broker, "topics", "--list", "--command-config", str(good)).ok()
    assert "ignoring client setting 'key.serializer'" in res.stderr
    bad = tmp_path / "bad.properties"
    bad.write_text("security.protocol=carrier-pigeon\n")
    assert "invalid client setting security.protocol=carrier-pigeon" in on(
        broker, "topics", "--list", "--command-config", str(bad)).failed().error


# --- consumer groups --------------------------------------------------------------

@pytest.fixture
def group_broker(start_broker):
    """A one-node cluster that can host __consumer_offsets (Kafka's default
    replication factor for it is 3) and starts rebalances without delay."""
    return start_broker(overrides={"offsets.topic.replication.factor": 1,
                                   "group.initial.rebalance.delay.ms": 0})


OFFSETS_HEADER = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
                  "CONSUMER-ID", "HOST", "CLIENT-ID"]


def table(out):
    """Rows of a Kafka-style table (after its leading blank line), split on blanks."""
    lines = [l for l in out.splitlines() if l.strip()]
    return [l.split() for l in lines]


def describe_rows(broker, group, *extra):
    res = on(broker, "groups", "--describe", "--group", group, *extra).ok()
    assert res.stdout.startswith("\n"), repr(res.stdout)
    return table(res.stdout), res


def test_consume_with_a_group_commits_and_describe_shows_offsets_and_lag(group_broker):
    create_topic(group_broker, "events")
    produce_lines(group_broker, "events", ["one", "two", "three"])
    res = on(group_broker, "consume", "--topic", "events", "--group", "readers", "--from-beginning",
             "--max-messages", "2").ok()
    assert res.stdout == "one\ntwo\n"

    rows, res = describe_rows(group_broker, "readers")
    assert "Consumer group 'readers' has no active members." in res.stderr
    assert rows[0] == OFFSETS_HEADER
    assert rows[1] == ["readers", "events", "0", "2", "3", "1", "-", "-", "-"]

    # A second run of the same group continues where the first one committed.
    res = on(group_broker, "consume", "--topic", "events", "--group", "readers", "--max-messages",
             "1").ok()
    assert res.stdout == "three\n"
    rows, _ = describe_rows(group_broker, "readers")
    assert rows[1][3:6] == ["3", "3", "0"]
    assert on(group_broker, "groups", "--list").ok().stdout.splitlines() == ["readers"]


def test_live_member_shows_in_members_state_and_offsets(group_broker):
    create_topic(group_broker, "live", 2)
    member = start_on(group_broker, "consume", "--topic", "live", "--group", "watchers")
    try:
        def members():
            res = on(group_broker, "groups", "--describe", "--group", "watchers", "--members",
                     "--verbose")
            rows = table(res.stdout) if res.returncode == 0 else []
            return rows if len(rows) == 2 and rows[1][-3] == "live:0,1" else None
        rows = wait_until(members, 30, "the consumer to join group watchers")
        # Kafka 4's columns; a classic group's members have no epochs or target.
        assert rows[0] == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
                           "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH",
                           "TARGET-ASSIGNMENT"]
        assert rows[1][5] == rows[1][7] == rows[1][8] == "-"
        assert rows[1][0] == "watchers" and rows[1][3] == "samsa-console-consumer"
        assert rows[1][4] == "2"
        consumer_id = rows[1][1]

        state = on(group_broker, "groups", "--describe", "--group", "watchers", "--state").ok()
        lines = [l for l in state.stdout.splitlines() if l]
        assert lines[0].split() == ["GROUP", "COORDINATOR", "(ID)", "ASSIGNMENT-STRATEGY",
                                    "STATE", "#MEMBERS"]
        coordinator = re.escape(group_broker.bootstrap)
        assert re.match(rf"^watchers\s+{coordinator}  \(1\)\s+\S+\s+Stable\s+1$",
                        lines[1]), lines[1]

        rows, _ = describe_rows(group_broker, "watchers")
        assert [r[:3] for r in rows[1:]] == [["watchers", "live", "0"], ["watchers", "live", "1"]]
        assert all(r[6] == consumer_id for r in rows[1:])

        # An active group's offsets cannot be reset, nor the group deleted.
        res = on(group_broker, "groups", "--reset-offsets", "--group", "watchers", "--all-topics",
                 "--to-earliest", "--execute").failed()
        assert "can only be reset if the group 'watchers' is inactive" in res.error
        assert "current state is Stable" in res.error
        res = on(group_broker, "groups", "--delete", "--group", "watchers").failed()
        assert "could not be deleted" in res.stderr

    finally:
        result = member.stop()
    assert result.returncode == 0, result.stderr
    assert "Processed a total of" in result.stderr


def test_reset_offsets_plans_and_executes(group_broker):
    create_topic(group_broker, "ledger", 2)
    produce_lines(group_broker, "ledger", [f"p0-{i}" for i in range(6)], "--partition", "0")
    produce_lines(group_broker, "ledger", [f"p1-{i}" for i in range(4)], "--partition", "1")
    on(group_broker, "consume", "--topic", "ledger", "--group", "audit", "--from-beginning",
       "--max-messages", "10").ok()

    def committed():
        rows, _ = describe_rows(group_broker, "audit")
        return {int(r[2]): int(r[3]) for r in rows[1:]}
    assert committed() == {0: 6, 1: 4}

    # No --execute: a plan only, with a warning, and nothing changes.
    res = on(group_broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger",
             "--to-earliest").ok()
    assert "No action will be performed" in res.stderr
    rows = table(res.stdout)
    assert rows[0] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]
    assert rows[1:] == [["audit", "ledger", "0", "0"], ["audit", "ledger", "1", "0"]]
    assert re.match(r"^GROUP {26}TOPIC {26}PARTITION  NEW-OFFSET$", res.stdout.splitlines()[1])
    assert committed() == {0: 6, 1: 4}

    on(group_broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger:0",
       "--to-offset", "2", "--execute").ok()
    assert committed() == {0: 2, 1: 4}
    res = on(group_broker, "groups", "--reset-offsets", "--group", "audit", "--all-topics",
             "--shift-by", "-3", "--execute").ok()
    assert "lower than earliest offset for topic partition ledger-0" in res.stderr
    assert committed() == {0: 0, 1: 1}
    on(group_broker, "groups", "--reset-offsets", "--group", "audit", "--all-topics", "--to-latest",
       "--execute").ok()
    assert committed() == {0: 6, 1: 4}
    on(group_broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger",
       "--to-datetime", "2000-01-01T00:00:00.000", "--execute").ok()
    assert committed() == {0: 0, 1: 0}
    res = on(group_broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger:1",
             "--to-offset", "99", "--dry-run").ok()
    assert "higher than latest offset" in res.stderr
    assert table(res.stdout)[1] == ["audit", "ledger", "1", "4"]
    assert "No action will be performed" not in res.stderr

    # The group reads again from where the reset put it.
    on(group_broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger:0",
       "--to-offset", "5", "--execute").ok()
    res = on(group_broker, "consume", "--topic", "ledger", "--group", "audit", "--partition", "0",
             "--max-messages", "1", "--timeout-ms", "20000").ok()
    assert res.stdout == "p0-5\n"


def test_reset_offsets_argument_errors(group_broker):
    create_topic(group_broker, "args")
    res = on(group_broker, "groups", "--reset-offsets", "--group", "g", "--topic", "args").failed()
    assert "exactly one of --to-earliest" in res.error
    res = on(group_broker, "groups", "--reset-offsets", "--group", "g", "--to-latest").failed()
    assert "--all-topics, --topic" in res.error
    res = on(group_broker, "groups", "--reset-offsets", "--group", "g", "--topic", "args",
             "--to-datetime", "last tuesday").failed()
    assert "--to-datetime expects" in res.error
    res = on(group_broker, "groups", "--reset-offsets", "--group", "g", "--topic", "nope",
             "--to-latest").failed()
    assert res.error == "Error: Topic 'nope' does not exist"


def test_delete_group_and_unknown_groups(group_broker):
    create_topic(group_broker, "gone")
    produce_lines(group_broker, "gone", ["x"])
    on(group_broker, "consume", "--topic", "gone", "--group", "temp", "--from-beginning",
       "--max-messages", "1").ok()
    res = on(group_broker, "groups", "--delete", "--group", "temp").ok()
    assert res.stdout == "Deletion of requested consumer groups ('temp') was successful.\n"
    res = on(group_broker, "groups", "--describe", "--group", "temp").failed()
    assert res.error == "Error: Consumer group 'temp' does not exist."
    assert "temp" not in on(group_broker, "groups", "--list").ok().stdout.split()
    assert "needs --group" in on(group_broker, "groups", "--describe").failed().error


def test_list_groups_with_states(group_broker):
    create_topic(group_broker, "st")
    produce_lines(group_broker, "st", ["x"])
    for g in ("alpha", "beta"):
        on(group_broker, "consume", "--topic", "st", "--group", g, "--from-beginning",
           "--max-messages", "1").ok()
    rows = table(on(group_broker, "groups", "--list", "--state").ok().stdout)
    assert rows == [["GROUP", "STATE"], ["alpha", "Empty"], ["beta", "Empty"]]
    assert table(on(group_broker, "groups", "--list", "--state", "Stable").ok().stdout) == \
        [["GROUP", "STATE"]]
