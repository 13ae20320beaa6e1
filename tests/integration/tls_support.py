"""Certificates for TLS tests, made with the `openssl` command in a temp dir,
and a broker with an SSL listener beside its PLAINTEXT one.

    certs = make_certs(tmp_path)   # ca, server, client, and an untrusted client
    b = start_tls_broker(start_broker, certs, {"ssl.client.auth": "required"})
    b.ssl_bootstrap                # "127.0.0.1:<port>"
"""
import subprocess
from dataclasses import dataclass
from pathlib import Path

from samsa_harness import Broker, free_ports


@dataclass
class Certs:
    dir: Path
    ca: Path            # the CA certificate (what clients and the broker trust)
    server: Path        # server key + chain in one PEM (ssl.keystore.location)
    server_cert: Path
    server_key: Path
    client_cert: Path   # signed by the CA, CN=writer
    client_key: Path
    rogue_cert: Path    # self-signed: chains to nothing the broker trusts
    rogue_key: Path


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(root: Path) -> Certs:
    d = Path(root) / "certs"
    d.mkdir(parents=True, exist_ok=True)
    days = "30"
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.pem", "-days", days, "-subj", "/CN=samsa-test-ca", cwd=d)
    (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
             "server.csr", "-subj", "/CN=localhost", cwd=d)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.pem", "-days", days, "-extfile", "server.ext",
             cwd=d)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out",
             "client.csr", "-subj", "/O=example/OU=apps/CN=writer", cwd=d)
    _openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "client.pem", "-days", days, cwd=d)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "rogue.key", "-out",
             "rogue.pem", "-days", days, "-subj", "/CN=rogue", cwd=d)
    keystore = d / "server-keystore.pem"
    keystore.write_text((d / "server.key").read_text() + (d / "server.pem").read_text())
    return Certs(d, d / "ca.pem", keystore, d / "server.pem", d / "server.key",
                 d / "client.pem", d / "client.key", d / "rogue.pem", d / "rogue.key")


def tls_broker(certs: Certs, settings=None, keystore=True, **kwargs) -> Broker:
    """A broker (not started) with PLAINTEXT, SSL and CONTROLLER listeners.
    `settings` are added as listener.name.ssl.<key> (the per-listener form)."""
    b = Broker(**kwargs)
    # All three at once: ports picked in two calls may coincide.
    b.port, b.controller_port, b.ssl_port = free_ports(3)
    props = {
        "listeners": f"PLAINTEXT://127.0.0.1:{b.port},SSL://127.0.0.1:{b.ssl_port},"
                     f"CONTROLLER://127.0.0.1:{b.controller_port}",
        # With TLS in use Kafka wants every listener mapped explicitly.
        "listener.security.protocol.map":
            "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT",
    }
    if keystore:
        props["ssl.keystore.type"] = "PEM"
        props["ssl.keystore.location"] = str(certs.server)
    for k, v in (settings or {}).items():
        props[f"listener.name.ssl.{k}"] = v
    b.extra_properties.update({k: str(v) for k, v in props.items()})
    b._write_properties()
    b.ssl_bootstrap = f"127.0.0.1:{b.ssl_port}"
    return b


def client_config(certs: Certs, broker: Broker, with_cert=False, rogue=False, **extra):
    c = {"bootstrap.servers": broker.ssl_bootstrap, "security.protocol": "SSL",
         "ssl.ca.location": str(certs.ca)}
    if with_cert:
        c["ssl.certificate.location"] = str(certs.rogue_cert if rogue else certs.client_cert)
        c["ssl.key.location"] = str(certs.rogue_key if rogue else certs.client_key)
    c.update(extra)
    return c
