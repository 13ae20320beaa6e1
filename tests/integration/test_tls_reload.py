"""A listener's keystore changed without a restart (KIP-226): an
IncrementalAlterConfigs of listener.name.ssl.ssl.keystore.location on the
broker makes the connections accepted after it use the new certificate; a
keystore that does not load is reported and the old one kept.

The new certificate comes from a second CA, so which of the two a handshake
met shows in whether a client trusting only that CA connects."""
import subprocess

from confluent_kafka.admin import AdminClient

from samsa_harness import wait_until
from test_dynamic_broker_configs import alter
from tls_support import _openssl, client_config, make_certs, tls_broker

DEADLINE_S = 30.0


def second_keystore(certs):
    """A server keystore (127.0.0.1) signed by a new CA: (keystore, ca)."""
    d = certs.dir
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca2.key", "-out",
             "ca2.pem", "-days", "30", "-subj", "/CN=samsa-test-ca-2", cwd=d)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server2.key", "-out",
             "server2.csr", "-subj", "/CN=localhost", cwd=d)
    _openssl("x509", "-req", "-in", "server2.csr", "-CA", "ca2.pem", "-CAkey", "ca2.key",
             "-CAcreateserial", "-out", "server2.pem", "-days", "30", "-extfile", "server.ext",
             cwd=d)
    keystore = d / "server2-keystore.pem"
    keystore.write_text((d / "server2.key").read_text() + (d / "server2.pem").read_text())
    return keystore, d / "ca2.pem"


def handshake_trusting(broker, ca) -> bool:
    """Whether a TLS handshake with the SSL listener succeeds for a client
    that trusts only `ca` (openssl s_client verifies, then hangs up)."""
    out = subprocess.run(["openssl", "s_client", "-connect", broker.ssl_bootstrap, "-CAfile",
                          str(ca), "-verify_return_error", "-brief"],
                         input=b"", capture_output=True, timeout=30)
    return out.returncode == 0


def test_a_new_keystore_is_served_without_a_restart(tmp_path):
    certs = make_certs(tmp_path)
    keystore2, ca2 = second_keystore(certs)
    b = tls_broker(certs)
    try:
        b.start()
        assert handshake_trusting(b, certs.ca)
        assert not handshake_trusting(b, ca2)
        # A connection open across the change keeps working.
        admin = AdminClient(client_config(certs, b))
        assert admin.list_topics(timeout=30).brokers

        alter(b, str(b.node_id), "listener.name.ssl.ssl.keystore.location", str(keystore2))
        wait_until(lambda: handshake_trusting(b, ca2), DEADLINE_S,
                   "the SSL listener to present the new certificate")
        assert not handshake_trusting(b, certs.ca)
        assert "event=tls_reloaded listener=SSL" in b.log_text()
        assert admin.list_topics(timeout=30).brokers

        # A keystore that does not load: said, and the one in use stays.
        alter(b, str(b.node_id), "listener.name.ssl.ssl.keystore.location",
              str(tmp_path / "missing.pem"))
        line = b.wait_for_log("event=tls_reload_failed", timeout=DEADLINE_S)
        assert "missing.pem" in line
        assert handshake_trusting(b, ca2)
    finally:
        b.cleanup()
