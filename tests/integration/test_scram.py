"""SASL/SCRAM (docs/tls.md): users created with AlterUserScramCredentials on the
wire (the client salts and hashes the password, as Kafka's admin client does),
listed with DescribeUserScramCredentials, and authenticated by librdkafka
(confluent-kafka, kcat) and kafka-python with SCRAM-SHA-256 and -512; wrong
passwords, unknown and deleted users are refused, and the credentials outlive a
restart."""
import hashlib
import os

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from kafka_wire import KafkaConnection, Reader, compact_array, compact_string, int8, int32, uvarint
from samsa_cli import cli
from samsa_harness import Broker, free_ports, wait_until
from test_tls import kcat_round_trip, round_trip

SHA256, SHA512 = 1, 2
HASHES = {SHA256: "sha256", SHA512: "sha512"}
FAILED = ("Authentication failed during authentication due to invalid credentials with SASL "
          "mechanism ")


def scram_broker(cluster_id=None):
    b = Broker(cluster_id=cluster_id)
    b.port, b.controller_port, b.sasl_port = free_ports(3)
    b.extra_properties.update({
        "listeners": f"PLAINTEXT://127.0.0.1:{b.port},"
                     f"SASL_PLAINTEXT://127.0.0.1:{b.sasl_port},"
                     f"CONTROLLER://127.0.0.1:{b.controller_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "CONTROLLER:PLAINTEXT",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config":
            "org.apache.kafka.common.security.scram.ScramLoginModule required;",
    })
    b._write_properties()
    return b


@pytest.fixture
def broker():
    b = scram_broker()
    yield b.start()
    b.cleanup()


def compact_bytes(b):
    return uvarint(len(b) + 1) + b


def alter(b, upsertions=(), deletions=()):
    """AlterUserScramCredentials v0: {user: (error code, message)}."""
    ups = []
    for name, mechanism, password, iterations in upsertions:
        salt = os.urandom(16)
        salted = hashlib.pbkdf2_hmac(HASHES.get(mechanism, "sha256"), password.encode(), salt,
                                     iterations)
        ups.append(compact_string(name) + int8(mechanism) + int32(iterations) +
                   compact_bytes(salt) + compact_bytes(salted) + b"\0")
    dels = [compact_string(name) + int8(mechanism) + b"\0" for name, mechanism in deletions]
    with KafkaConnection.to(b) as conn:
        body = conn.roundtrip(51, 0, compact_array(dels) + compact_array(ups) + b"\0")
    r = Reader(body)
    r.int32()
    out = {}
    for _ in range(r.array_length(True)):
        user, code, message = r.compact_string(), r.int16(), r.compact_string()
        r.tagged_fields()
        out[user] = (code, message)
    return out


def describe(b, users=None):
    """DescribeUserScramCredentials v0: {user: (error code, message, {mechanism: iterations})}."""
    names = None if users is None else [compact_string(u) + b"\0" for u in users]
    with KafkaConnection.to(b) as conn:
        body = conn.roundtrip(50, 0, compact_array(names) + b"\0")
    r = Reader(body)
    r.int32()
    assert r.int16() == 0
    r.compact_string()
    out = {}
    for _ in range(r.array_length(True)):
        user, code, message = r.compact_string(), r.int16(), r.compact_string()
        infos = {}
        for _ in range(r.array_length(True)):
            mechanism, iterations = r.int8(), r.int32()
            r.tagged_fields()
            infos[mechanism] = iterations
        r.tagged_fields()
        out[user] = (code, message, infos)
    return out


def scram(b, user, password, mechanism="SCRAM-SHA-256"):
    return {"bootstrap.servers": f"127.0.0.1:{b.sasl_port}", "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password}


def refused_with(conf, message):
    errors = []
    admin = AdminClient({**conf, "socket.timeout.ms": 3000, "error_cb": errors.append})
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=10)
    admin.poll(1)
    assert any(e.code() == KafkaError._AUTHENTICATION and message in e.str() for e in errors), \
        errors


def test_users_are_created_described_and_authenticated(broker):
    assert alter(broker, [("alice", SHA256, "alice-secret", 4096),
                          ("bob", SHA512, "bob-secret", 8192)]) == {
        "alice": (0, None), "bob": (0, None)}
    assert describe(broker) == {"alice": (0, None, {SHA256: 4096}),
                                "bob": (0, None, {SHA512: 8192})}
    round_trip(scram(broker, "alice", "alice-secret"), "scram-256")
    round_trip(scram(broker, "bob", "bob-secret", "SCRAM-SHA-512"), "scram-512")
    # A user has only the mechanisms it was given.
    refused_with(scram(broker, "alice", "alice-secret", "SCRAM-SHA-512"), FAILED + "SCRAM-SHA-512")


def test_kcat_and_kafka_python_with_scram(broker):
    alter(broker, [("carol", SHA512, "carol-secret", 4096)])
    kcat_round_trip(f"127.0.0.1:{broker.sasl_port}",
                    ["security.protocol=SASL_PLAINTEXT", "sasl.mechanisms=SCRAM-SHA-512",
                     "sasl.username=carol", "sasl.password=carol-secret"], "kcat-scram")

    from kafka import KafkaConsumer, KafkaProducer
    conf = dict(bootstrap_servers=f"127.0.0.1:{broker.sasl_port}",
                security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
                sasl_plain_username="carol", sasl_plain_password="carol-secret")
    p = KafkaProducer(**conf)
    for i in range(20):
        p.send("kcat-scram", b"kp%d" % i)
    p.flush(30)
    p.close()
    c = KafkaConsumer("kcat-scram", auto_offset_reset="earliest", consumer_timeout_ms=10000,
                      **conf)
    got = [m.value for m in c]
    c.close()
    assert got == [b"one", b"two"] + [b"kp%d" % i for i in range(20)]


def test_wrong_passwords_unknown_and_deleted_users_are_refused(broker):
    alter(broker, [("alice", SHA256, "alice-secret", 4096)])
    refused_with(scram(broker, "alice", "wrong"), FAILED + "SCRAM-SHA-256")
    refused_with(scram(broker, "mallory", "alice-secret"), FAILED + "SCRAM-SHA-256")
    wait_until(lambda: "event=sasl_authentication_failed" in broker.log_text(), 10,
               "the failure logged")
    assert "alice-secret" not in broker.log_text()
    assert alter(broker, deletions=[("alice", SHA256)]) == {"alice": (0, None)}
    refused_with(scram(broker, "alice", "alice-secret"), FAILED + "SCRAM-SHA-256")
    assert describe(broker, ["alice"])["alice"][:2] == (
        91, "Attempt to describe a user credential that does not exist: alice")


def test_alterations_kafka_refuses(broker):
    got = alter(broker, [("few", SHA256, "x", 1024), ("many", SHA256, "x", 20000),
                         ("", SHA256, "x", 4096), ("unknown", 3, "x", 4096)],
                [("never", SHA256)])
    assert got == {"few": (93, "Too few iterations"), "many": (93, "Too many iterations"),
                   "": (93, "Username must not be empty"),
                   "unknown": (33, "Unknown SCRAM mechanism"),
                   "never": (91, "Attempt to delete a user credential that does not exist")}
    assert describe(broker) == {}
    assert describe(broker, ["x", "x"])["x"][:2] == (
        92, "Cannot describe SCRAM credentials for the same user twice in a single request: x")


def test_credentials_outlive_a_restart(broker):
    alter(broker, [("dave", SHA256, "dave-secret", 4096)])
    broker.restart()
    round_trip(scram(broker, "dave", "dave-secret"), "scram-restart")


def test_a_scram_listener_with_another_login_module_stops_the_broker():
    b = scram_broker()
    b.extra_properties["listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config"] = (
        "org.apache.kafka.common.security.plain.PlainLoginModule required;")
    b._write_properties()
    try:
        b.start(wait_ready=False)
        assert b.wait(30) != 0
        assert "needs org.apache.kafka.common.security.scram.ScramLoginModule" in b.log_text()
    finally:
        b.cleanup()


def test_the_configs_verb_manages_scram_users(broker, tmp_path):
    from samsa_cli import on
    users = ["configs", "--entity-type", "users"]
    on(broker, *users, "--alter", "--entity-name", "erin", "--add-config",
       "SCRAM-SHA-256=[iterations=8192,password=erin,secret],SCRAM-SHA-512=[password=erin-512]"
       ).ok()
    out = on(broker, *users, "--describe", "--entity-name", "erin").ok().stdout
    assert out == ("SCRAM credential configs for user-principal 'erin' are "
                   "SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096\n")
    # The password may hold a comma; what the verb salted logs in.
    round_trip(scram(broker, "erin", "erin,secret"), "scram-cli")
    round_trip(scram(broker, "erin", "erin-512", "SCRAM-SHA-512"), "scram-cli-512")

    on(broker, *users, "--alter", "--entity-name", "erin", "--delete-config", "SCRAM-SHA-256").ok()
    assert on(broker, *users, "--describe").ok().stdout == (
        "SCRAM credential configs for user-principal 'erin' are SCRAM-SHA-512=iterations=4096\n")
    assert "Too few iterations" in on(
        broker, *users, "--alter", "--entity-name", "erin", "--add-config",
        "SCRAM-SHA-256=[iterations=10,password=x]").failed().error
    # Quota keys and SCRAM credentials live side by side on one user.
    on(broker, *users, "--alter", "--entity-name", "erin", "--add-config",
       "consumer_byte_rate=1024").ok()
    assert "consumer_byte_rate=1024.0" in on(broker, *users, "--describe", "--entity-name",
                                             "erin").ok().stdout
    # Over the SASL listener, logged in as erin with her SCRAM-SHA-512
    # password (Java's sasl.jaas.config form); a config with no login is
    # refused, never spoken to in plaintext.
    props = tmp_path / "client.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule "
                     'required username="erin" password="erin-512";\n')
    over_sasl = cli("configs", "--bootstrap-server", f"127.0.0.1:{broker.sasl_port}",
                    "--command-config", str(props), *users[1:], "--describe").ok().stdout
    assert "user-principal 'erin'" in over_sasl
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n")
    assert "has no SASL login" in cli(
        "configs", "--bootstrap-server", f"127.0.0.1:{broker.sasl_port}", "--command-config",
        str(props), *users[1:], "--describe").failed().error
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                     "sasl.username=erin\nsasl.password=wrong\n")
    assert "Authentication failed" in cli(
        "configs", "--bootstrap-server", f"127.0.0.1:{broker.sasl_port}", "--command-config",
        str(props), *users[1:], "--describe").failed().error


def test_users_added_at_format_time_exist_from_the_first_start():
    """kafka-storage.sh format --add-scram (KIP-554): the users are in the
    cluster before anything could reach a listener to create them."""
    cluster_id = cli("storage", "random-uuid").ok().stdout.strip()
    b = scram_broker(cluster_id)
    try:
        config = str(b.properties_path)
        bad = cli("storage", "format", "-t", cluster_id, "-c", config,
                  "--add-scram", "SCRAM-SHA-256=[name=admin,password=x,iterations=100]").failed()
        assert ("The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256"
                in bad.stderr), bad.stderr
        assert not (b.data_dir / "meta.properties").exists()
        cli("storage", "format", "-t", cluster_id, "-c", config,
            "--add-scram", "SCRAM-SHA-256=[name=admin,password=admin-secret]",
            "-S", "SCRAM-SHA-512=[name=ops,iterations=8192,password=ops-secret]").ok()
        assert (b.data_dir / "bootstrap.checkpoint").exists()
        b.start()
        assert describe(b) == {"admin": (0, None, {SHA256: 4096}),
                               "ops": (0, None, {SHA512: 8192})}
        round_trip(scram(b, "admin", "admin-secret"), "bootstrap-256")
        round_trip(scram(b, "ops", "ops-secret", "SCRAM-SHA-512"), "bootstrap-512")
        refused_with(scram(b, "admin", "wrong"), FAILED + "SCRAM-SHA-256")
    finally:
        b.cleanup()
