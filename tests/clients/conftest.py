"""Fixtures for the client suites: Kafka clients other than Debian's librdkafka
(kafka-python, sarama, kafkajs, and librdkafka 2.15.1 for KIP-848 consumer
groups) against real `samsa server` processes.

The broker fixtures are the integration suite's (tests/integration/conftest.py):
    broker          a started one-node broker with default settings
    start_broker    factory: start_broker(overrides={...}, wait_ready=True)

    tls_certs       tls_support.make_certs in the test's tmp_path: a CA, the
                    broker's key and chain (SAN IP:127.0.0.1, DNS:localhost), a
                    client certificate the CA signed, a self-signed one
    start_tls_broker  factory: start_tls_broker(settings={...}, overrides={...}),
                    a broker with PLAINTEXT and SSL listeners (tls_support.tls_broker;
                    `settings` are the SSL listener's, listener.name.ssl.<key>);
                    its SSL address is .ssl_bootstrap

    start_acl_broker  factory: start_acl_broker(overrides={...}), a broker with
                    the StandardAuthorizer behind a SASL/PLAIN listener
                    (acl_support.acl_broker: users admin, a super user, and
                    alice); clients sign in at its .sasl_bootstrap

    clients         kafka-python clients for one test, closed at teardown, the
                    test under a deadline (kafka_python_support.py)
    group_broker    a broker that can create __consumer_offsets alone
    kafkajs_modules the kafkajs install scenarios run with (kafkajs_support.py)

    client_dir      $SAMSA_CLIENTS_DIR, where scripts/setup-clients.sh put the
                    clients that do not come from Debian (kafkajs from npm, the
                    sarama test program built with Debian's Go, librdkafka
                    2.15.1 built from the copy an npm package bundles); default
                    build/clients. Never inside the source tree.
"""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from broker_fixtures import (broker, pytest_runtest_makereport,  # noqa: E402,F401
                             samsa_binary, start_broker)
from acl_support import acl_broker  # noqa: E402
from samsa_harness import REPO_ROOT, port_accepts, wait_until  # noqa: E402
from tls_support import make_certs, tls_broker  # noqa: E402
from kafka_python_support import clients, group_broker  # noqa: E402,F401
from kafkajs_support import kafkajs_modules  # noqa: E402,F401


@pytest.fixture(scope="session")
def client_dir() -> Path:
    return Path(os.environ.get("SAMSA_CLIENTS_DIR") or REPO_ROOT / "build" / "clients")


@pytest.fixture
def tls_certs(tmp_path):
    return make_certs(tmp_path)


@pytest.fixture
def start_tls_broker(samsa_binary, tls_certs):
    brokers = []

    def start(settings=None, wait_ready=True, **kwargs):
        b = tls_broker(tls_certs, settings, binary=samsa_binary, **kwargs)
        brokers.append(b)
        return b.start(wait_ready=wait_ready)

    yield start
    for b in brokers:
        b.cleanup()



@pytest.fixture
def start_acl_broker(samsa_binary):
    brokers = []

    def start(overrides=None):
        b = acl_broker(binary=samsa_binary, overrides=overrides)
        brokers.append(b)
        b.start()
        wait_until(lambda: port_accepts("127.0.0.1", b.sasl_port), 20,
                   f"the SASL_PLAINTEXT listener on {b.sasl_bootstrap}")
        return b

    yield start
    for b in brokers:
        b.cleanup()
