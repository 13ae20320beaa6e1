"""SASL listeners (docs/tls.md): SASL/PLAIN over SASL_PLAINTEXT and SASL_SSL
with librdkafka (confluent-kafka, kcat); wrong passwords and unknown users are
refused with SASL_AUTHENTICATION_FAILED, requests before authentication close
the connection, and a listener whose SASL setup cannot work stops the broker."""

import re
import time

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from kafka_wire import KafkaConnection, Reader, int32, string
from samsa_harness import Broker, free_ports, wait_until
from test_tls import kcat_round_trip, round_trip
from tls_support import make_certs

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" '
        'user_admin="admin-secret" user_alice="alice-secret";')


def sasl_broker(certs, extra=None):
    b = Broker()
    # All four at once: ports picked in two calls may coincide.
    b.port, b.controller_port, b.sasl_port, b.sasl_ssl_port = free_ports(4)
    props = {
        "listeners": f"PLAINTEXT://127.0.0.1:{b.port},"
                     f"SASL_PLAINTEXT://127.0.0.1:{b.sasl_port},"
                     f"SASL_SSL://127.0.0.1:{b.sasl_ssl_port},"
                     f"CONTROLLER://127.0.0.1:{b.controller_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "listener.name.sasl_ssl.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.server),
    }
    props.update(extra or {})
    b.extra_properties.update({k: None if v is None else str(v) for k, v in props.items()})
    b._write_properties()
    return b


@pytest.fixture
def certs(tmp_path):
    return make_certs(tmp_path)


@pytest.fixture
def brokers():
    started = []
    yield started
    for b in started:
        b.cleanup()


@pytest.fixture
def broker(certs, brokers):
    b = sasl_broker(certs)
    brokers.append(b)
    return b.start()


def plain(b, user="alice", password="alice-secret", tls=False, certs=None):
    c = {"bootstrap.servers": f"127.0.0.1:{b.sasl_ssl_port if tls else b.sasl_port}",
         "security.protocol": "SASL_SSL" if tls else "SASL_PLAINTEXT",
         "sasl.mechanism": "PLAIN", "sasl.username": user, "sasl.password": password}
    if tls:
        c["ssl.ca.location"] = str(certs.ca)
    return c


def test_plain_over_sasl_plaintext_and_sasl_ssl(broker, certs):
    round_trip(plain(broker), "sasl-plain")
    round_trip(plain(broker, "admin", "admin-secret", tls=True, certs=certs), "sasl-ssl")


def test_kcat_with_sasl_plain(broker):
    kcat_round_trip(f"127.0.0.1:{broker.sasl_port}",
                    ["security.protocol=SASL_PLAINTEXT", "sasl.mechanisms=PLAIN",
                     "sasl.username=alice", "sasl.password=alice-secret"], "kcat-sasl")


@pytest.mark.parametrize("user, password", [("alice", "wrong"), ("mallory", "alice-secret")])
def test_bad_credentials_are_refused(broker, user, password):
    errors = []
    admin = AdminClient({**plain(broker, user, password), "socket.timeout.ms": 3000,
                         "error_cb": errors.append})
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=10)
    # The client is told why (librdkafka's _AUTHENTICATION, with the broker's message).
    admin.poll(1)
    assert any(e.code() == KafkaError._AUTHENTICATION and
               "Invalid username or password" in e.str() for e in errors), errors
    wait_until(lambda: "event=sasl_authentication_failed" in broker.log_text(), 10,
               "the failure logged")
    assert "Invalid username or password" in broker.log_text()
    assert password not in broker.log_text()
    round_trip(plain(broker), "after-refusal")


def sasl_handshake(conn, mechanism):
    body = conn.roundtrip(17, 1, string(mechanism))
    r = Reader(body)
    code = r.int16()
    mechanisms = [r.string() for _ in range(r.int32())]
    return code, mechanisms


def sasl_authenticate(conn, token):
    body = conn.roundtrip(36, 0, int32(len(token)) + token)
    r = Reader(body)
    return r.int16(), r.string()


def test_the_sasl_exchange_on_the_wire(broker):
    # Anything but ApiVersions and SASL before authentication closes the connection.
    with KafkaConnection("127.0.0.1", broker.sasl_port) as conn:
        conn.api_versions()
        conn.send_request(3, 12, b"\x01\x00\x00")  # Metadata, no topics
        assert conn.read_until_eof() == b""
    # An unknown mechanism: UNSUPPORTED_SASL_MECHANISM, naming the enabled ones.
    with KafkaConnection("127.0.0.1", broker.sasl_port) as conn:
        assert sasl_handshake(conn, "SCRAM-SHA-256") == (33, ["PLAIN"])
        assert conn.read_until_eof() == b""
    # SaslAuthenticate before a handshake: ILLEGAL_SASL_STATE.
    with KafkaConnection("127.0.0.1", broker.sasl_port) as conn:
        code, _ = sasl_authenticate(conn, b"\0alice\0alice-secret")
        assert code == 34
    # The whole exchange, then a request.
    with KafkaConnection("127.0.0.1", broker.sasl_port) as conn:
        assert sasl_handshake(conn, "PLAIN") == (0, ["PLAIN"])
        assert sasl_authenticate(conn, b"\0alice\0alice-secret")[0] == 0
        assert conn.metadata(12).brokers
        # Another SaslAuthenticate without a handshake: Kafka's answer, and the
        # connection stays.
        assert sasl_authenticate(conn, b"\0alice\0alice-secret") == (
            34, "SaslAuthenticate request received after successful authentication")
        assert conn.metadata(12).brokers
    # A failed one: SASL_AUTHENTICATION_FAILED with Kafka's message, then closed.
    with KafkaConnection("127.0.0.1", broker.sasl_port) as conn:
        sasl_handshake(conn, "PLAIN")
        assert sasl_authenticate(conn, b"\0alice\0nope") == (
            58, "Authentication failed: Invalid username or password")
        assert conn.read_until_eof() == b""
    # SaslHandshake on a PLAINTEXT listener: ILLEGAL_SASL_STATE.
    with KafkaConnection.to(broker) as conn:
        assert sasl_handshake(conn, "PLAIN")[0] == 34


@pytest.mark.parametrize("extra, needle", [
    ({"listener.name.sasl_plaintext.sasl.enabled.mechanisms": None},
     "GSSAPI is not served by this broker"),
    ({"listener.name.sasl_plaintext.plain.sasl.jaas.config": None},
     "listener.name.sasl_plaintext.plain.sasl.jaas.config"),
    ({"listener.name.sasl_plaintext.plain.sasl.jaas.config":
      'org.apache.kafka.common.security.plain.PlainLoginModule required user_a="b"'},
     "not closed by ';'"),
    ({"listener.name.sasl_plaintext.plain.sasl.jaas.config":
      'org.apache.kafka.common.security.plain.PlainLoginModule required username="a";'},
     "names no user"),
])
def test_a_sasl_listener_that_cannot_work_stops_the_broker(certs, brokers, extra, needle):
    b = sasl_broker(certs, extra)
    brokers.append(b)
    b.start(wait_ready=False)
    assert b.wait(30) != 0
    assert needle in b.log_text()


def sasl_authenticate_v1(conn, token):
    body = conn.roundtrip(36, 1, int32(len(token)) + token)
    r = Reader(body)
    code, message = r.int16(), r.string()
    r.raw(r.int32())
    return code, message, r.int64()


REAUTH_MS = 2000


@pytest.fixture
def reauth_broker(certs, brokers):
    b = sasl_broker(certs, {
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "listener.name.sasl_plaintext.plain.connections.max.reauth.ms": REAUTH_MS,
    })
    brokers.append(b)
    return b.start()


def test_sessions_expire_and_re_authenticate(reauth_broker):
    """KIP-368: SaslAuthenticate v1 reports the mechanism's
    connections.max.reauth.ms; a client may re-authenticate as itself with
    the same mechanism; anything else fails, and a request after the session
    ended closes the connection."""
    b = reauth_broker
    alice = b"\0alice\0alice-secret"
    with KafkaConnection("127.0.0.1", b.sasl_port) as conn:
        assert sasl_handshake(conn, "PLAIN")[0] == 0
        assert sasl_authenticate_v1(conn, alice) == (0, "", REAUTH_MS)
        assert conn.metadata(12).brokers
        assert sasl_handshake(conn, "PLAIN")[0] == 0
        assert sasl_authenticate_v1(conn, alice) == (0, "", REAUTH_MS)
        assert conn.metadata(12).brokers
    # Re-authentication as another user.
    with KafkaConnection("127.0.0.1", b.sasl_port) as conn:
        sasl_handshake(conn, "PLAIN")
        sasl_authenticate_v1(conn, alice)
        assert sasl_handshake(conn, "PLAIN")[0] == 0
        assert sasl_authenticate_v1(conn, b"\0admin\0admin-secret")[:2] == (
            58, "Cannot change principals during re-authentication from User.alice: User.admin")
        assert conn.read_until_eof() == b""
    # Re-authentication with another mechanism: the handshake is answered, the exchange fails.
    with KafkaConnection("127.0.0.1", b.sasl_port) as conn:
        sasl_handshake(conn, "PLAIN")
        sasl_authenticate_v1(conn, alice)
        assert sasl_handshake(conn, "SCRAM-SHA-256")[0] == 0
        assert sasl_authenticate_v1(conn, b"n,,n=alice,r=abc")[:2] == (
            58, "SASL mechanism 'SCRAM-SHA-256' requested by client is not supported for "
                "re-authentication of mechanism 'PLAIN'")
        assert conn.read_until_eof() == b""
    # SaslAuthenticate v0 cannot re-authenticate (Kafka's rule): a second handshake is refused.
    with KafkaConnection("127.0.0.1", b.sasl_port) as conn:
        sasl_handshake(conn, "PLAIN")
        assert sasl_authenticate(conn, alice)[0] == 0
        assert sasl_handshake(conn, "PLAIN")[0] == 34
    # A request after the session ended closes the connection.
    with KafkaConnection("127.0.0.1", b.sasl_port) as conn:
        sasl_handshake(conn, "PLAIN")
        ended = time.monotonic() + REAUTH_MS / 1000
        sasl_authenticate_v1(conn, alice)
        wait_until(lambda: time.monotonic() > ended + 0.2, REAUTH_MS / 1000 + 5,
                   "the session's lifetime to pass")
        conn.send_request(3, 12, b"\x01\x00\x00")
        assert conn.read_until_eof() == b""
    b.wait_for_log("event=sasl_session_expired")
    # SCRAM sessions on this listener do not expire (no setting for that mechanism).
    with KafkaConnection("127.0.0.1", b.sasl_port) as conn:
        assert sasl_handshake(conn, "SCRAM-SHA-256")[0] == 0
        assert sasl_authenticate_v1(conn, b"n,,n=alice,r=abc")[0] == 58  # no SCRAM users


def test_a_negative_reauth_setting_stops_the_broker(certs, brokers):
    b = sasl_broker(certs, {"connections.max.reauth.ms": -1})
    brokers.append(b)
    b.start(wait_ready=False)
    assert b.wait(30) != 0
    assert "connections.max.reauth.ms" in b.log_text()


def test_groups_describe_over_sasl(certs, brokers, tmp_path):
    """`samsa groups --describe` with a SASL client config: the consumer
    group (KIP-848) lookup logs in too (it finds no such group), and the
    classic group is described through the admin client."""
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic
    from samsa_cli import cli

    broker = sasl_broker(certs, {"offsets.topic.replication.factor": 1})
    brokers.append(broker)
    broker.start()
    topic = "sasl-described-topic"
    # The group's offsets committed over the PLAINTEXT listener.
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "sasl-described",
                  "enable.auto.commit": False})
    try:
        c.assign([TopicPartition(topic, 0)])
        c.commit(offsets=[TopicPartition(topic, 0, 0)], asynchronous=False)
    finally:
        c.close()
    conf = tmp_path / "client.properties"
    conf.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                    "sasl.username=alice\nsasl.password=alice-secret\n")
    res = cli("groups", "--bootstrap-server", f"127.0.0.1:{broker.sasl_port}",
              "--command-config", str(conf), "--describe", "--group", "sasl-described",
              "--state")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "consumer-protocol groups are not described" not in res.stderr
    assert "Consumer group 'sasl-described' has no active members." in res.stderr
    assert "sasl-described" in res.stdout


def test_a_java_client_config_serves_every_kind_of_verb(broker, certs, tmp_path):
    """A --command-config written for Kafka's Java tools (sasl.jaas.config,
    a PEM truststore) works for the verbs built on librdkafka (topics) and
    for those making raw calls (features), over SASL_SSL."""
    from samsa_cli import cli
    conf = tmp_path / "java-client.properties"
    conf.write_text(
        "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="alice" password="alice-secret";\n'
        f"ssl.truststore.type=PEM\nssl.truststore.location={certs.ca}\n")
    at = f"127.0.0.1:{broker.sasl_ssl_port}"
    listed = cli("topics", "--bootstrap-server", at, "--command-config", str(conf), "--list")
    assert listed.ok().stderr.count("ignoring client setting") == 0, listed.stderr
    described = cli("features", "describe", "--bootstrap-server", at, "--command-config",
                    str(conf)).ok().stdout
    assert "Feature: metadata.version" in described
    # --describe prints the topic id, which it asks for with a raw Metadata call
    # over the same SASL_SSL settings.
    cli("topics", "--bootstrap-server", at, "--command-config", str(conf), "--create",
        "--topic", "sasl-ids").ok()
    described = cli("topics", "--bootstrap-server", at, "--command-config", str(conf),
                    "--describe", "--topic", "sasl-ids").ok().stdout
    assert re.search(r"Topic: sasl-ids\tTopicId: [A-Za-z0-9_-]{22}\t", described), described
