"""Starting and stopping the `samsa server` process: signals, configuration
errors, unknown keys, --help-config, restarts on the same data dir."""
import re
import resource
import signal
import socket
import subprocess

import pytest
from confluent_kafka.admin import AdminClient

import kafka_wire as kw
from samsa_harness import Broker, free_ports, port_accepts, run_kcat

STOP_DEADLINE_S = 20.0


def cluster_id_seen_by_client(broker):
    return AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(
        timeout=10).cluster_id


def expect_start_failure(start_broker, **kwargs) -> tuple[Broker, str]:
    """Starts a broker that must exit non-zero; returns it and its log."""
    broker = start_broker(wait_ready=False, **kwargs)
    code = broker.wait(STOP_DEADLINE_S)
    log = broker.log_text()
    assert code != 0, f"samsa exited 0 despite the bad configuration\n{log}"
    assert "event=listening" not in log, log
    return broker, log


def error_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if " error " in line]


def parse_help_config(text: str) -> dict[str, str]:
    """{key: default} from --help-config: a block per key, the key alone on an
    unindented line, its default on an indented line ("default: X" or
    "Default: X", possibly among other comma-separated attributes)."""
    entries, key = {}, None
    for line in text.splitlines():
        if re.fullmatch(r"[a-z0-9][a-z0-9._-]*", line):
            key = line
            entries[key] = None
        elif key and line.startswith(" "):
            m = re.search(r"\b[Dd]efault: ([^,]+)", line)
            if m and entries[key] is None:
                entries[key] = m.group(1).strip()
    return entries


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_shutdown_signal_exits_zero_and_logs_stopped(broker, sig):
    with kw.KafkaConnection.to(broker) as conn:
        assert conn.api_versions(3).error_code == kw.NONE

    broker.stop(timeout=STOP_DEADLINE_S, sig=sig)  # asserts exit code 0

    log = broker.log_text()
    assert f"event=shutdown_requested signal={int(sig)}" in log, log
    assert "event=stopped node_id=1" in log, log
    assert not port_accepts(broker.host, broker.port)


def test_sigterm_with_open_connections_exits_zero_and_closes_them(broker):
    idle = kw.KafkaConnection.to(broker)
    used = kw.KafkaConnection.to(broker)
    partial = kw.KafkaConnection.to(broker)
    try:
        assert used.api_versions(3).error_code == kw.NONE
        partial.send_raw(kw.int32(100) + b"\x00\x12")  # half a frame, never finished

        broker.stop(timeout=STOP_DEADLINE_S)

        for conn in (idle, used, partial):
            assert conn.read_until_eof(STOP_DEADLINE_S) == b""
        assert "event=stopped node_id=1" in broker.log_text()
    finally:
        for conn in (idle, used, partial):
            conn.close()


@pytest.mark.parametrize("key,value", [
    ("num.partitions", "abc"),
    ("num.partitions", "0"),
    ("socket.request.max.bytes", "-5"),
    ("auto.create.topics.enable", "maybe"),
    ("log.retention.hours", "1.5"),
])
def test_invalid_config_override_exits_nonzero_naming_the_key(start_broker, key, value):
    _, log = expect_start_failure(start_broker, overrides={key: value})

    assert any(key in line and value in line for line in error_lines(log)), log


def test_invalid_value_in_properties_file_exits_nonzero_naming_the_key(start_broker):
    _, log = expect_start_failure(start_broker, properties={"num.io.threads": "many"})

    assert any("num.io.threads" in line and "many" in line for line in error_lines(log)), log


def test_unknown_config_key_is_warned_about_but_broker_starts(start_broker):
    broker = start_broker(overrides={"no.such.samsa.key": "42"},
                          properties={"another.unknown.key": "x"})

    log = broker.log_text()
    warnings = [line for line in log.splitlines() if " warning " in line]
    assert any("no.such.samsa.key" in line for line in warnings), log
    assert any("another.unknown.key" in line for line in warnings), log
    with kw.KafkaConnection.to(broker) as conn:
        assert [b.port for b in conn.metadata(12).brokers] == [broker.port]


def test_help_config_lists_every_key_with_its_default(samsa_binary):
    res = subprocess.run([str(samsa_binary), "server", "--help-config"], capture_output=True,
                         text=True, timeout=30)

    assert res.returncode == 0, res.stderr
    entries = parse_help_config(res.stdout)
    assert entries.get("log.retention.hours") == "168", res.stdout[:2000]
    assert entries.get("num.partitions") == "1"
    assert entries.get("socket.request.max.bytes") == "104857600"
    assert entries.get("auto.create.topics.enable") == "true"
    assert "node.id" in entries
    assert all(d is not None for d in entries.values()), \
        [k for k, d in entries.items() if d is None]
    assert len(entries) >= 50, sorted(entries)


def kafka4_server_properties(port: int, controller_port: int, log_dirs: str) -> dict:
    """Kafka 4's shipped config/server.properties (combined mode), its ports moved."""
    return {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.bootstrap.servers": f"localhost:{controller_port}",
        "controller.quorum.voters": None,
        "listeners": f"PLAINTEXT://:{port},CONTROLLER://:{controller_port}",
        "inter.broker.listener.name": "PLAINTEXT",
        "advertised.listeners":
            f"PLAINTEXT://localhost:{port},CONTROLLER://localhost:{controller_port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,"
                                          "SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
        "num.network.threads": "3",
        "num.io.threads": "8",
        "socket.send.buffer.bytes": "102400",
        "socket.receive.buffer.bytes": "102400",
        "socket.request.max.bytes": "104857600",
        "log.dirs": log_dirs,
        "num.partitions": "1",
        "num.recovery.threads.per.data.dir": "1",
        "offsets.topic.replication.factor": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "log.retention.hours": "168",
        "log.segment.bytes": "1073741824",
        "log.retention.check.interval.ms": "300000",
    }


def test_kafka4_shipped_server_properties_start_a_standalone_quorum(start_broker, tmp_path):
    port, controller_port = free_ports(2)
    broker = start_broker(port=port, properties=kafka4_server_properties(
        port, controller_port, str(tmp_path / "kraft-combined-logs")))
    with kw.KafkaConnection("127.0.0.1", port) as conn:
        md = conn.metadata(12)
        assert [(b.host, b.port) for b in md.brokers] == [("localhost", port)]
        assert md.controller_id == 1
    res = run_kcat("-b", f"127.0.0.1:{port}", "-L")
    assert res.returncode == 0 and "1 brokers" in res.stdout, res.stdout + res.stderr
    assert broker.is_running()


def test_an_inter_broker_login_the_broker_cannot_make_stops_it(start_broker):
    # A SASL inter-broker listener needs a mechanism this broker speaks as a
    # client and a login in the listener's JAAS config (tests/cluster/
    # test_sasl_cluster.py runs one). Kafka's default mechanism, GSSAPI, is
    # not spoken: the broker refuses to start and says why, never running
    # its own connections without the login.
    port, controller_port = free_ports(2)
    _, log = expect_start_failure(start_broker, properties={
        "listeners": f"SASL_PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
        "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name": "SASL_PLAINTEXT",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config":
            'org.apache.kafka.common.security.plain.PlainLoginModule required '
            'user_admin="admin-secret";',
    })
    assert any("sasl.mechanism.inter.broker.protocol" in line and "GSSAPI" in line
               for line in error_lines(log)), log
    assert not port_accepts("127.0.0.1", port)


def test_broker_on_a_port_already_in_use_exits_nonzero(start_broker):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        _, log = expect_start_failure(start_broker, port=port)

    assert any(f"127.0.0.1:{port}" in line for line in error_lines(log)), log


def test_restart_after_sigkill_serves_with_same_cluster_id(broker):
    cluster_id = cluster_id_seen_by_client(broker)
    pid = broker.pid

    broker.kill(signal.SIGKILL)
    assert broker.wait(STOP_DEADLINE_S) == -signal.SIGKILL
    broker.start()

    assert broker.pid != pid
    assert cluster_id_seen_by_client(broker) == cluster_id
    assert broker.meta_properties()["cluster.id"] == cluster_id


def test_restart_with_a_different_node_id_is_refused(broker):
    broker.stop()
    broker.overrides.update({
        "node.id": "2",
        "controller.quorum.voters": f"2@127.0.0.1:{broker.controller_port}",
    })

    broker.start(wait_ready=False)
    code = broker.wait(STOP_DEADLINE_S)

    log = broker.log_text()
    assert code != 0, log
    assert any(re.search(r"[Ss]tored node id 1 doesn't match .*node id 2", line)
               for line in error_lines(log)), log
    assert broker.meta_properties()["node.id"] == "1"


def test_restart_uses_same_port_and_answers_immediately(broker):
    for _ in range(3):
        broker.restart()
        with kw.KafkaConnection.to(broker) as conn:
            assert conn.metadata(12).controller_id == 1
    assert broker.log_text().count("event=listening listener=PLAINTEXT") == 4


def _open_file_limits(pid):
    for line in open(f"/proc/{pid}/limits"):
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no Max open files line")


def test_the_broker_takes_as_many_open_files_as_it_may(broker):
    """Three descriptors per idle partition: a broker raises its soft limit to
    the hard one, and one allowed to (root here) the hard one to the kernel's
    ceiling (fs.nr_open, at most 1,048,576); it logs what it got."""
    soft, hard = _open_file_limits(broker.pid)
    assert soft == hard
    ceiling = min(int(open("/proc/sys/fs/nr_open").read()), 1 << 20)
    # Whether a process here may raise its hard limit (a container may drop
    # CAP_SYS_RESOURCE even for root).
    may_raise = subprocess.run(
        ["/usr/bin/python3", "-c", "import resource, sys; c = int(sys.argv[1]); "
         "resource.setrlimit(resource.RLIMIT_NOFILE, (c, c))", str(ceiling)],
        capture_output=True).returncode == 0
    mine = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard >= (ceiling if may_raise else mine)
    assert f"event=open_file_limit limit={soft} was=" in broker.log_text()
