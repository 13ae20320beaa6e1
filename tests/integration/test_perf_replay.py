"""`samsa perf replay`: prebuilt record batches sent over raw connections to
the partitions' leaders (the broker's own produce ceiling, bench/). Every
answered batch is in the log; what it cannot do it refuses with one line."""
import json

from samsa_cli import consume_all, create_topic, on


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
