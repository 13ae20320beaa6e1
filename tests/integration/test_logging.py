"""Logging: named loggers whose levels change at run time through the Kafka
protocol (BROKER_LOGGER, KIP-412) with `samsa configs --entity-type
broker-loggers`, log.level and log.level.overrides at start, JSON lines, and
a rotated log file."""
import json

from confluent_kafka.admin import AdminClient, NewTopic

from metrics_support import http_get
from samsa_cli import cli
from samsa_harness import wait_until


def create_topic(broker, name):
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    a.create_topics([NewTopic(name, num_partitions=1, replication_factor=1)])[name] \
        .result(timeout=30)


def loggers(broker):
    """{logger: level} as `samsa configs --describe` prints them."""
    out = cli("configs", "--bootstrap-server", broker.bootstrap, "--entity-type",
              "broker-loggers", "--entity-name", str(broker.node_id), "--describe").ok().stdout
    lines = out.splitlines()
    assert lines[0] == f"All configs for broker-logger {broker.node_id} are:"
    levels = {}
    for line in lines[1:]:
        name_value, sensitive, synonyms = line.strip().split(" ")
        assert (sensitive, synonyms) == ("sensitive=false", "synonyms={}")
        name, value = name_value.split("=")
        levels[name] = value
    return levels


def alter(broker, *args):
    return cli("configs", "--bootstrap-server", broker.bootstrap, "--entity-type",
               "broker-loggers", "--entity-name", str(broker.node_id), "--alter", *args)


def became_leader(broker, topic):
    return f"event=became_leader partition={topic}-0 " in broker.log_text()


def test_a_logger_level_changes_at_run_time_and_returns_to_the_roots(broker):
    levels = loggers(broker)
    assert levels["root"] == "INFO"
    assert {"kafka.log", "kafka.log.LogCleaner", "state.change.logger",
            "org.apache.kafka.raft", "kafka.coordinator.group"} <= set(levels)
    assert set(levels.values()) == {"INFO"}

    create_topic(broker, "loud")
    wait_until(lambda: became_leader(broker, "loud"), 15, "the state change line")
    assert "(state.change.logger)" in broker.log_text()

    assert alter(broker, "--add-config", "state.change.logger=WARN").ok().stdout == \
        f"Completed updating config for broker-logger {broker.node_id}.\n"
    assert loggers(broker)["state.change.logger"] == "WARN"
    broker.wait_for_log("event=log_level_changed target=state.change.logger new_level=WARN")
    create_topic(broker, "quiet")
    # The topic is led here (its metadata says so) and no line said it.
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics("quiet", timeout=10)
    assert md.topics["quiet"].partitions[0].leader == broker.node_id
    assert not became_leader(broker, "quiet")

    alter(broker, "--delete-config", "state.change.logger").ok()
    assert loggers(broker)["state.change.logger"] == "INFO"
    create_topic(broker, "loud-again")
    wait_until(lambda: became_leader(broker, "loud-again"), 15, "the state change line again")

    # The root's level is followed by every logger without one of its own.
    alter(broker, "--add-config", "root=ERROR,kafka.log=DEBUG").ok()
    levels = loggers(broker)
    assert levels["root"] == "ERROR" and levels["kafka.log"] == "DEBUG"
    assert levels["state.change.logger"] == "ERROR"


def test_refused_changes_answer_as_kafka_does(broker):
    res = alter(broker, "--add-config", "kafka.nope=DEBUG").failed()
    assert "Logger kafka.nope does not exist!" in res.stderr
    res = alter(broker, "--add-config", "kafka.log=LOUD").failed()
    assert "Cannot set the log level of kafka.log to LOUD as it is not a supported log level. " \
           "Valid log levels are FATAL, ERROR, WARN, INFO, DEBUG, TRACE" in res.stderr
    res = alter(broker, "--delete-config", "root").failed()
    assert "Removing the log level of the root logger is not allowed" in res.stderr
    assert set(loggers(broker).values()) == {"INFO"}


def test_start_levels_json_lines_and_the_log_file(start_broker, tmp_path):
    path = tmp_path / "server.log"
    b = start_broker(properties={
        "log.level": "WARN",
        "log.level.overrides": "kafka.server:INFO, state.change.logger:DEBUG",
        "log.format": "json",
        "log.file.path": str(path),
    })
    levels = loggers(b)
    assert (levels["root"], levels["kafka.server"], levels["state.change.logger"],
            levels["kafka.log"]) == ("WARN", "INFO", "DEBUG", "WARN")
    create_topic(b, "json")
    wait_until(lambda: "event=became_leader partition=json-0" in path.read_text(), 15,
               "the state change line in the file")
    lines = [json.loads(line) for line in b.log_text().splitlines() if line.startswith("{")]
    assert lines, b.log_text()
    started = [e for e in lines if e.get("event") == "started"]
    assert started and started[0]["logger"] == "kafka.server"
    assert started[0]["level"] == "INFO" and started[0]["node_id"] == str(b.node_id)
    assert started[0]["time"].endswith("Z")
    leader = [e for e in lines if e.get("event") == "became_leader"]
    assert leader[0]["partition"] == "json-0" and leader[0]["logger"] == "state.change.logger"
    # Every line the broker wrote after reading its config is a JSON object,
    # and the file holds the same lines as standard output.
    file_lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in file_lines)
    assert {e["message"] for e in lines} >= {json.loads(x)["message"] for x in file_lines[:5]}


def test_a_bad_logging_config_stops_the_broker_naming_the_key(start_broker):
    for key, value, says in [
        ("log.level.overrides", "kafka.nope:DEBUG", "Logger kafka.nope does not exist!"),
        ("log.level.overrides", "kafka.log=DEBUG", "expected logger:LEVEL"),
        ("log.level", "LOUD", "log.level"),
        ("log.format", "xml", "log.format"),
    ]:
        b = start_broker(properties={key: value}, wait_ready=False)
        assert b.wait() != 0
        assert key in b.log_text() and says in b.log_text(), b.log_text()


def test_the_admin_api_lists_the_levels_the_protocol_set(broker):
    alter(broker, "--add-config", "kafka.log.LogCleaner=TRACE").ok()
    status, ctype, body = http_get(broker.metrics_url + "/v1/loggers")
    assert (status, ctype) == (200, "application/json")
    got = {x["name"]: x["level"] for x in json.loads(body)["loggers"]}
    assert got == loggers(broker)
    assert got["kafka.log.LogCleaner"] == "TRACE" and got["root"] == "INFO"


def test_the_log_file_rotates_at_its_size_keeping_its_backups(start_broker, tmp_path):
    path = tmp_path / "server.log"
    b = start_broker(properties={"log.file.path": str(path), "log.file.max.bytes": 4096,
                                 "log.file.max.backups": 2})
    for i in range(30):
        create_topic(b, f"rotate-{i}")
    wait_until(lambda: (tmp_path / "server.2.log").exists(), 15, "two rotations")
    assert path.stat().st_size <= 4096
    assert (tmp_path / "server.1.log").stat().st_size <= 4096
    assert not (tmp_path / "server.3.log").exists()
    # Nothing is lost between the files: the newest lines are in server.log.
    wait_until(lambda: "partition=rotate-29-0" in path.read_text()
               + (tmp_path / "server.1.log").read_text(), 15, "the last topic's lines")


def test_legacy_alter_configs_refuses_broker_loggers_as_kafka_does(broker):
    """AlterConfigs (v0, not the incremental API) has no BROKER_LOGGER: Kafka
    answers INVALID_REQUEST 'Unknown resource type 8'."""
    import kafka_wire as kw

    body = kw.array([kw.int8(8) + kw.string(str(broker.node_id)) +
                     kw.array([kw.string("kafka.log") + kw.string("DEBUG")])])
    body += kw.boolean(False)
    with kw.KafkaConnection.to(broker) as conn:
        r = kw.Reader(conn.roundtrip(33, 0, body))
    r.int32()  # throttle
    assert r.array_length(False) == 1
    assert r.int16() == kw.INVALID_REQUEST
    assert r.string() == "Unknown resource type 8"
    assert r.int8() == 8 and r.string() == str(broker.node_id)
    r.end()
    assert loggers(broker)["kafka.log"] == "INFO"
