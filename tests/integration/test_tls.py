"""SSL listeners (docs/tls.md): librdkafka (confluent-kafka, kcat) produce and
consume over TLS, client certificates are required when the listener says so,
and what must be refused is refused: an untrusted certificate, no certificate,
a plaintext client on the TLS port, a listener without a usable keystore, and
TLS between brokers, not served yet."""
import socket
import struct
import subprocess
import time

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from samsa_harness import wait_until
from tls_support import client_config, make_certs, tls_broker


@pytest.fixture
def certs(tmp_path):
    return make_certs(tmp_path)


@pytest.fixture
def start_tls(certs):
    brokers = []

    def start(settings=None, keystore=True, wait_ready=True, **kwargs):
        b = tls_broker(certs, settings, keystore, **kwargs)
        brokers.append(b)
        return b.start(wait_ready=wait_ready)

    yield start
    for b in brokers:
        b.cleanup()


def round_trip(conf, topic, n=200):
    admin = AdminClient(conf)
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)
    p = Producer({**conf, "linger.ms": 5})
    acked = []
    for i in range(n):
        p.produce(topic, key=b"k%d" % i, value=b"v%d" % i + b"." * 2000,
                  on_delivery=lambda e, m: acked.append((e, m.offset())))
    assert p.flush(30) == 0
    assert all(e is None for e, _ in acked), acked[:3]
    c = Consumer({**conf, "group.id": "tls-readers", "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < n and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None:
            assert m.error() is None, m.error()
            got.append(m.value())
    c.close()
    assert got == [b"v%d" % i + b"." * 2000 for i in range(n)]


def kcat_round_trip(bootstrap, settings, topic, lines=(b"one", b"two")):
    """kcat -P then -C -e through `bootstrap` with `settings` (-X key=value)."""
    kcat = ["kcat", "-b", bootstrap]
    for kv in settings:
        kcat += ["-X", kv]
    subprocess.run(kcat + ["-P", "-t", topic], input=b"\n".join(lines) + b"\n", check=True,
                   timeout=60, capture_output=True)
    out = subprocess.run(kcat + ["-C", "-t", topic, "-o", "beginning", "-e"], check=True,
                         timeout=60, capture_output=True).stdout
    assert out.split() == list(lines)


def refused(conf, timeout=10.0):
    """The client cannot get metadata through this configuration."""
    admin = AdminClient({**conf, "socket.timeout.ms": 3000})
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=timeout)


def test_produce_and_consume_over_tls(start_tls, certs):
    b = start_tls()
    round_trip(client_config(certs, b), "over-tls")
    # Metadata through the SSL listener names the SSL listener.
    md = AdminClient(client_config(certs, b)).list_topics(timeout=10)
    assert md.brokers[1].port == b.ssl_port
    # The plaintext listener still serves.
    md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10)
    assert md.brokers[1].port == b.port


def test_kcat_over_tls_with_an_inline_pem_keystore(start_tls, certs):
    b = start_tls(keystore=False, settings={
        "ssl.keystore.type": "PEM",
        # Inline PEM, as Kafka takes it in a properties file: one line.
        "ssl.keystore.certificate.chain": certs.server_cert.read_text().replace("\n", "\\n"),
        "ssl.keystore.key": certs.server_key.read_text().replace("\n", "\\n"),
    })
    kcat = ["kcat", "-b", b.ssl_bootstrap, "-X", "security.protocol=SSL",
            "-X", f"ssl.ca.location={certs.ca}"]
    subprocess.run(kcat + ["-P", "-t", "kcat-tls", "-K:"], input=b"a:1\nb:2\nc:3\n",
                   check=True, timeout=60, capture_output=True)
    out = subprocess.run(kcat + ["-C", "-t", "kcat-tls", "-o", "beginning", "-e", "-f",
                                 "%k=%s\\n"],
                         check=True, timeout=60, capture_output=True).stdout
    assert out.decode().split() == ["a=1", "b=2", "c=3"]


def test_required_client_certificates(start_tls, certs):
    b = start_tls(settings={"ssl.client.auth": "required",
                            "ssl.truststore.type": "PEM",
                            "ssl.truststore.location": str(certs.ca)})
    round_trip(client_config(certs, b, with_cert=True), "mtls")
    refused(client_config(certs, b))                             # no certificate
    refused(client_config(certs, b, with_cert=True, rogue=True))  # untrusted certificate
    log = b.log_text()
    assert "TLS handshake failed" in log


def test_a_plaintext_client_on_the_tls_port_gets_no_answer(start_tls, certs):
    b = start_tls()
    with socket.create_connection(("127.0.0.1", b.ssl_port), timeout=10) as s:
        # ApiVersions v0, correlation id 7, client id "plain".
        body = struct.pack(">hhih", 18, 0, 7, 5) + b"plain"
        s.sendall(struct.pack(">i", len(body)) + body)
        s.settimeout(10)
        data = b""
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except (ConnectionResetError, socket.timeout):
            pass
    # Whatever came back (a TLS alert at most) is no Kafka response.
    assert len(data) < 8 or struct.unpack(">i", data[4:8])[0] != 7
    wait_until(lambda: "TLS handshake failed" in b.log_text(), 10, "the refusal logged")
    # The broker is fine.
    round_trip(client_config(certs, b), "after-plaintext")


@pytest.mark.parametrize("settings, needle", [
    ({}, "no keystore"),
    ({"ssl.keystore.type": "JKS", "ssl.keystore.location": "/nonexistent.jks"},
     "ssl.keystore.type JKS is not supported"),
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "/nonexistent.pem"},
     "ssl.keystore.location /nonexistent.pem"),
    ({"ssl.client.auth": "required"}, "ssl.client.auth needs a truststore"),
    ({"ssl.enabled.protocols": "TLSv1.2", "ssl.protocol": "TLSv1.2",
      "ssl.cipher.suites": "TLS_NOT_A_SUITE"}, "TLS_NOT_A_SUITE"),
])
def test_a_listener_without_a_usable_tls_setup_stops_the_broker(start_tls, certs, settings,
                                                                needle):
    keystore = "ssl.keystore.location" not in settings and settings != {}
    b = start_tls(settings=settings, keystore=keystore, wait_ready=False)
    assert b.wait(30) != 0
    assert needle in b.log_text()


def test_tls_versions_and_cipher_suites_act(start_tls, certs):
    b = start_tls(settings={"ssl.enabled.protocols": "TLSv1.2", "ssl.protocol": "TLSv1.2",
                            "ssl.cipher.suites": "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"})
    out = subprocess.run(["openssl", "s_client", "-connect", b.ssl_bootstrap, "-CAfile",
                          str(certs.ca), "-brief"], input=b"", capture_output=True, timeout=30)
    text = (out.stdout + out.stderr).decode(errors="replace")
    assert "TLSv1.2" in text and "ECDHE-RSA-AES256-GCM-SHA384" in text, text
    # TLS 1.3 is refused.
    out = subprocess.run(["openssl", "s_client", "-connect", b.ssl_bootstrap, "-tls1_3",
                          "-CAfile", str(certs.ca), "-brief"], input=b"", capture_output=True,
                         timeout=30)
    assert out.returncode != 0


def test_an_ssl_inter_broker_listener_is_served(certs):
    # The broker's own connections speak TLS (tests/cluster/test_tls_cluster.py
    # replicates over it): a broker whose inter-broker listener is SSL starts
    # and serves clients there.
    b = tls_broker(certs, {"ssl.truststore.type": "PEM",
                           "ssl.truststore.location": str(certs.ca)})
    b.extra_properties["inter.broker.listener.name"] = "SSL"
    b._write_properties()
    try:
        b.start()
        admin = AdminClient(client_config(certs, b))
        md = admin.list_topics(timeout=30)
        assert [x.port for x in md.brokers.values()] == [b.ssl_port]
    finally:
        b.cleanup()


def test_cli_raw_calls_speak_tls_with_a_client_certificate(start_tls, certs, tmp_path):
    # The verbs that make raw calls (here features, DescribeQuorum and
    # ListOffsets) read --command-config as the Java client or librdkafka
    # would: the CA to trust, and a client certificate for a listener that
    # requires one.
    from samsa_cli import cli
    b = start_tls(settings={"ssl.client.auth": "required", "ssl.truststore.type": "PEM",
                            "ssl.truststore.location": str(certs.ca)})
    conf = tmp_path / "client.properties"
    conf.write_text(f"security.protocol=SSL\nssl.ca.location={certs.ca}\n"
                    f"ssl.certificate.location={certs.client_cert}\n"
                    f"ssl.key.location={certs.client_key}\n")
    out = cli("features", "describe", "--bootstrap-server", b.ssl_bootstrap,
              "--command-config", str(conf)).ok().stdout
    assert "Feature: metadata.version" in out
    out = cli("metadata-quorum", "--bootstrap-server", b.ssl_bootstrap, "--command-config",
              str(conf), "describe", "--status").ok().stdout
    assert "LeaderId:" in out
    # Trusting another CA: the handshake fails and says so; nothing is sent in plaintext.
    conf.write_text(f"security.protocol=SSL\nssl.truststore.location={certs.rogue_cert}\n"
                    f"ssl.certificate.location={certs.client_cert}\n"
                    f"ssl.key.location={certs.client_key}\n")
    err = cli("features", "describe", "--bootstrap-server", b.ssl_bootstrap,
              "--command-config", str(conf)).failed().error
    assert "certificate verify failed" in err


def test_principal_mapping_rules_name_the_certificate_principal(start_tls, certs):
    """ssl.principal.mapping.rules make "writer" of the subject
    CN=writer,OU=apps,O=example: as User:writer, a super user here, the client
    is served where every other principal is denied; a subject no rule applies
    to is refused at the handshake."""
    mtls = {"ssl.client.auth": "required", "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(certs.ca)}
    acl = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
           # The node's own PLAINTEXT peers (controller) are ANONYMOUS.
           "super.users": "User:writer;User:ANONYMOUS"}
    b = start_tls(settings={**mtls, "ssl.principal.mapping.rules":
                            "RULE:^CN=([^,]*),OU=apps,.*$/$1/L, RULE:^CN=(.*)$/other-$1/, DEFAULT"},
                  overrides=acl)
    round_trip(client_config(certs, b, with_cert=True), "mapped")

    b2 = start_tls(settings={**mtls, "ssl.principal.mapping.rules": "RULE:^CN=admin,.*$/admin/"},
                   overrides=acl)
    refused(client_config(certs, b2, with_cert=True))
    wait_until(lambda: 'no ssl.principal.mapping.rules rule applies to '
               '"CN=writer,OU=apps,O=example"' in b2.log_text(), 10, "the refusal logged")
