"""Installing and running Samsa as an operator would (docs/install.md):
`cmake --install` into a temporary prefix lays out the binary, Kafka's script
names as links to it, the config, the systemd unit and the docs; the
installed binary started as the unit starts it tells systemd it is ready
(Type=notify: READY=1 on $NOTIFY_SOCKET, answered here by a datagram socket
of the test's own) and that it stops; Kafka's scripts run unchanged against
it; and the version is the one CMakeLists.txt sets.
"""
import os
import re
import shlex
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from samsa_harness import free_ports, samsa_bin, wait_until

ROOT = Path(__file__).resolve().parents[2]


def project_version():
    m = re.search(r"project\(samsa VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    return m.group(1)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    build_dir = samsa_bin().parent
    prefix = tmp_path_factory.mktemp("prefix")
    r = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return prefix


def test_the_install_lays_out_binary_scripts_config_unit_and_docs(installed):
    assert os.access(installed / "bin/samsa", os.X_OK)
    for script in ["kafka-topics.sh", "kafka-server-start.sh", "kafka-console-consumer.sh",
                   "kafka-consumer-groups.sh", "kafka-configs.sh",
                   "kafka-reassign-partitions.sh", "kafka-storage.sh", "kafka-metadata-quorum.sh",
                   "kafka-log-dirs.sh", "kafka-get-offsets.sh", "kafka-features.sh"]:
        link = installed / "bin" / script
        assert link.is_symlink() and os.readlink(link) == "samsa", script
    assert (installed / "etc/samsa/server.properties").read_text() == \
        (ROOT / "config/server.properties").read_text()
    unit = (installed / "lib/systemd/system/samsa.service").read_text()
    assert "Type=notify" in unit
    assert re.search(r"^ExecStart=\S+/bin/samsa server \S+/etc/samsa/server.properties$", unit,
                     re.M), unit
    assert (installed / "share/doc/samsa/README.md").exists()
    assert (installed / "share/doc/samsa/architecture.md").exists()


def test_the_version_is_the_one_cmake_sets(installed):
    for args in (["--version"], ["version"]):
        out = subprocess.run([str(installed / "bin/samsa"), *args], capture_output=True,
                             text=True, timeout=30).stdout.strip()
        assert out == project_version()


def test_started_as_the_unit_starts_it_the_broker_notifies_systemd(installed, tmp_path):
    unit = (installed / "lib/systemd/system/samsa.service").read_text()
    exec_start = shlex.split(re.search(r"^ExecStart=(.*)$", unit, re.M).group(1))
    # The unit names the configured prefix; this install is in a temporary one.
    binary = installed / "bin" / Path(exec_start[0]).name
    config = installed / "etc/samsa" / Path(exec_start[2]).name
    assert exec_start[1] == "server"
    port, controller, metrics = free_ports(3)
    notify_path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(notify_path)
    sock.settimeout(1.0)
    # As the unit runs it: in its working directory (the data goes to ./data),
    # only ports moved off 9092, 9093 and 9644.
    workdir = tmp_path / "var-lib-samsa"
    workdir.mkdir()
    cmd = [str(binary), "server", str(config),
           "--override", f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
           "--override", f"controller.quorum.voters=1@127.0.0.1:{controller}",
           "--override", f"metrics.listener=127.0.0.1:{metrics}"]
    log = open(tmp_path / "broker.log", "w")
    proc = subprocess.Popen(cmd, cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "NOTIFY_SOCKET": notify_path})
    messages = []

    def got(prefix):
        try:
            messages.append(sock.recv(4096).decode())
        except socket.timeout:
            pass
        return any(m.startswith(prefix) for m in messages)

    try:
        wait_until(lambda: got("READY=1") or proc.poll() is not None, 60, "READY=1")
        assert proc.poll() is None, (tmp_path / "broker.log").read_text()
        assert any("STATUS=serving as node 1" in m for m in messages), messages
        assert (workdir / "data/meta.properties").exists()
        # Kafka's own script name, unchanged flags.
        r = subprocess.run([str(installed / "bin/kafka-topics.sh"), "--bootstrap-server",
                            f"127.0.0.1:{port}", "--create", "--topic", "installed",
                            "--partitions", "2"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr
        md = AdminClient({"bootstrap.servers": f"127.0.0.1:{port}"}).list_topics(timeout=10)
        assert len(md.topics["installed"].partitions) == 2
        r = subprocess.run([str(installed / "bin/kafka-topics.sh"), "--bootstrap-server",
                            f"127.0.0.1:{port}", "--list"], capture_output=True, text=True,
                           timeout=60)
        assert "installed" in r.stdout.split(), r.stdout + r.stderr
        proc.send_signal(signal.SIGTERM)
        wait_until(lambda: got("STOPPING=1") or proc.poll() is not None, 60, "STOPPING=1")
        assert proc.wait(timeout=120) == 0
        assert any(m.startswith("STOPPING=1") for m in messages), messages
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
        log.close()


def test_a_kafka_script_name_not_known_is_samsa_itself(installed, tmp_path):
    # Any other name is the samsa binary with its own verbs.
    other = tmp_path / "samsa-renamed"
    other.symlink_to(installed / "bin/samsa")
    r = subprocess.run([str(other), "--version"], capture_output=True, text=True, timeout=30)
    assert r.stdout.strip() == project_version()
    r = subprocess.run([str(installed / "bin/kafka-topics.sh"), "--help"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and "--bootstrap-server" in r.stdout, r.stdout + r.stderr
    # Two-word verbs and sub-verbs keep their arguments.
    r = subprocess.run([str(installed / "bin/kafka-storage.sh"), "random-uuid"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and re.fullmatch(r"[A-Za-z0-9_-]{22}\n", r.stdout), r.stdout
    r = subprocess.run([str(installed / "bin/kafka-producer-perf-test.sh"), "--help"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "--num-records" in r.stdout, r.stdout + r.stderr
