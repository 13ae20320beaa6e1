"""The `samsa perf` verbs against a real broker: produce, consume and e2e in
the formats of Kafka's perf scripts (and as JSON), and replay: prebuilt record
batches sent over raw connections to the partitions' leaders (the broker's own
produce ceiling, bench/). Every answered batch is in the log; what it cannot
do it refuses with one line."""
import json
import re

import pytest

from samsa_cli import consume_all, create_topic, on, produce_lines


@pytest.fixture
def group_broker(start_broker):
    """A one-node cluster that can host __consumer_offsets (Kafka's default
    replication factor for it is 3) and starts rebalances without delay."""
    return start_broker(overrides={"offsets.topic.replication.factor": 1,
                                   "group.initial.rebalance.delay.ms": 0})


# --- produce, consume, e2e ------------------------------------------------------

PRODUCE_PROGRESS = re.compile(r"^\d+ records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), "
                              r"[\d.]+ ms avg latency, [\d.]+ ms max latency\.$")
PRODUCE_SUMMARY = re.compile(r"^(\d+) records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), "
                             r"[\d.]+ ms avg latency, [\d.]+ ms max latency, (\d+) ms 50th, "
                             r"(\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99.9th\.$")


def test_perf_produce_prints_kafkas_summary_and_progress(broker):
    create_topic(broker, "perf", 2)
    res = on(broker, "perf", "produce", "--topic", "perf", "--num-records", "20000",
             "--record-size", "100", "--throughput", "40000", "--reporting-interval",
             "100").ok()
    m = PRODUCE_SUMMARY.match(res.stdout.strip())
    assert m, res.stdout
    assert m.group(1) == "20000"
    p50, p95, p99, p999 = map(int, m.groups()[1:])
    assert p50 <= p95 <= p99 <= p999
    progress = [l for l in res.stderr.splitlines() if l]
    assert progress and all(PRODUCE_PROGRESS.match(l) for l in progress), res.stderr


def test_perf_produce_json_then_perf_consume(broker):
    create_topic(broker, "perfj")
    res = on(broker, "perf", "produce", "--topic", "perfj", "--num-records", "5000",
             "--record-size", "512", "--throughput", "-1", "--producer-props", "acks=1",
             "linger.ms=5", "--json").ok()
    summary = json.loads(res.stdout)
    assert summary["records"] == 5000 and summary["failed"] == 0
    assert summary["records_per_sec"] > 0 and summary["mb_per_sec"] > 0
    lat = summary["latency_ms"]
    assert lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["p99_9"] <= lat["max"]

    res = on(broker, "perf", "consume", "--topic", "perfj", "--messages", "5000", "--json").ok()
    consumed = json.loads(res.stdout)
    assert consumed["records"] == 5000
    assert consumed["bytes"] == 5000 * 512

    res = on(broker, "perf", "consume", "--topic", "perfj", "--messages", "100").ok()
    header, row = res.stdout.splitlines()
    assert header == ("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
                      "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec")
    fields = row.split(", ")
    assert len(fields) == 10 and fields[4] == "100"
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}$", fields[0])


def test_perf_produce_keys_spread_records_as_the_partitioner_does(broker):
    create_topic(broker, "keyed", 4)
    on(broker, "perf", "produce", "--topic", "keyed", "--num-records", "400", "--record-size",
       "10", "--throughput", "-1", "--keys", "8", "--producer-props",
       "partitioner=murmur2_random").ok()
    res = on(broker, "consume", "--topic", "keyed", "--from-beginning", "--max-messages", "400",
             "--timeout-ms", "20000", "--property", "print.key=true", "--property",
             "print.partition=true", "--property", "print.value=false").ok()
    where = {}
    for line in res.stdout.splitlines():
        partition, key = line.split("\t")[:2]
        where.setdefault(key, set()).add(partition)
    # Keys 0..7, 50 records each, every key in one partition, Kafka's murmur2
    # choosing more than one partition.
    assert sorted(where) == list("01234567")
    assert all(len(p) == 1 for p in where.values()), where
    assert len(set().union(*where.values())) > 1


def test_perf_consume_fails_when_records_run_out(broker):
    create_topic(broker, "short")
    produce_lines(broker, "short", ["a", "b"])
    res = on(broker, "perf", "consume", "--topic", "short", "--messages", "5", "--timeout",
             "1s").failed()
    assert "consumed 2 of 5 records" in res.error
    assert on(broker, "perf", "consume", "--topic", "ghost", "--messages",
              "1").failed().error == "Error: Topic 'ghost' does not exist"


def test_perf_e2e_reports_end_to_end_latency(broker):
    create_topic(broker, "e2e", 2)
    produce_lines(broker, "e2e", ["older record, not part of the run"])
    res = on(broker, "perf", "e2e", "--topic", "e2e", "--num-records", "500", "--throughput",
             "1000", "--json").ok()
    summary = json.loads(res.stdout)
    assert summary["records"] == 500 and summary["received"] == 500
    lat = summary["latency_ms"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["max"] < 5000
    res = on(broker, "perf", "e2e", "--topic", "e2e", "--num-records", "50").ok()
    assert re.match(r"^50 records received, [\d.]+ ms avg latency, [\d.]+ ms max latency, "
                    r"[\d.]+ ms 50th, [\d.]+ ms 95th, [\d.]+ ms 99th, [\d.]+ ms 99.9th\.$",
                    res.stdout.strip()), res.stdout
    assert "does not exist" in on(broker, "perf", "e2e", "--topic", "ghost").failed().error


def test_perf_consume_with_a_group(group_broker):
    create_topic(group_broker, "perfg")
    on(group_broker, "perf", "produce", "--topic", "perfg", "--num-records", "1000",
       "--record-size", "64").ok()
    res = on(group_broker, "perf", "consume", "--topic", "perfg", "--messages", "1000", "--group",
             "bench").ok()
    assert res.stdout.splitlines()[1].split(", ")[4] == "1000"
    assert "bench" in on(group_broker, "groups", "--list").ok().stdout.split()


# --- replay ---------------------------------------------------------------------

def log_end_offsets(broker, topic):
    out = on(broker, "get-offsets", "--topic", topic).ok().stdout.split()
    return {int(line.split(":")[1]): int(line.split(":")[2]) for line in out}


def test_every_answered_batch_is_in_the_log(broker):
    create_topic(broker, "replay", 2)
    res = on(broker, "perf", "replay", "--topic", "replay", "--bytes", "0.002",
             "--batch-bytes", "65536", "--record-size", "100", "--connections", "2",
             "--in-flight", "3", "--json").ok()
    summary = json.loads(res.stdout)
    assert summary["failed"] == 0 and summary["connections"] == 2
    # 2e6 bytes in batches of just under 64 KiB.
    assert summary["requests"] == int(2e6 // summary["batch_bytes"])
    assert summary["batch_bytes"] <= 65536
    per_batch = summary["records"] // summary["requests"]
    assert per_batch * summary["requests"] == summary["records"] and per_batch > 500
    lat = summary["latency_ms"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["max"]
    # The requests go to the partitions in turn, so each got half of them.
    ends = log_end_offsets(broker, "replay")
    assert sum(ends.values()) == summary["records"]
    assert abs(ends[0] - ends[1]) <= per_batch
    values = consume_all(broker, "replay", per_batch)
    assert len(values) == per_batch and all(len(v) == 100 for v in values)


def test_acks_all_and_the_human_summary(broker):
    create_topic(broker, "replay-all")
    res = on(broker, "perf", "replay", "--topic", "replay-all", "--bytes", "0.001",
             "--batch-bytes", "100000", "--acks", "-1").ok()
    assert res.stdout.startswith("10 requests of ")
    assert "answered on 1 connection(s)" in res.stdout
    assert sum(log_end_offsets(broker, "replay-all").values()) > 0


def test_what_it_cannot_do_is_refused_with_one_line(broker, tmp_path):
    create_topic(broker, "replay-e", 1)
    assert on(broker, "perf", "replay", "--topic", "ghost", "--bytes", "0.001").failed() \
        .error == "Error: topic ghost: UNKNOWN_TOPIC_OR_PARTITION"
    assert "acks must be 1 or -1" in on(broker, "perf", "replay", "--topic", "replay-e",
                                        "--acks", "0").failed().error
    assert on(broker, "perf", "replay", "--topic", "replay-e", "--partitions", "3") \
        .failed().error == "Error: topic replay-e has 1 partitions"
    ssl = tmp_path / "ssl.properties"
    ssl.write_text("security.protocol=SSL\n")
    assert "PLAINTEXT only" in on(broker, "perf", "replay", "--topic", "replay-e",
                                  "--command-config", str(ssl)).failed().error
    # A batch over message.max.bytes: every request is answered, and refused.
    res = on(broker, "perf", "replay", "--topic", "replay-e", "--bytes", "0.004",
             "--batch-bytes", "2000000").failed()
    assert "requests failed; the first with MESSAGE_TOO_LARGE" in res.stderr
    assert log_end_offsets(broker, "replay-e") == {0: 0}
