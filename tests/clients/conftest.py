"""Fixtures for the client suites: Kafka clients that do not sit on librdkafka
(kafka-python, sarama, kafkajs) against real `samsa server` processes.

The broker fixtures are the integration suite's (tests/integration/conftest.py):
    broker          a started one-node broker with default settings
    start_broker    factory: start_broker(overrides={...}, wait_ready=True)

    client_dir      $SAMSA_CLIENTS_DIR, where scripts/setup-clients.sh put the
                    clients that do not come from Debian (kafkajs from npm, the
                    sarama test program built with Debian's Go); default
                    build/clients. Never inside the source tree.
"""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from broker_fixtures import broker, samsa_binary, start_broker  # noqa: E402,F401
from samsa_harness import REPO_ROOT  # noqa: E402


@pytest.fixture(scope="session")
def client_dir() -> Path:
    return Path(os.environ.get("SAMSA_CLIENTS_DIR") or REPO_ROOT / "build" / "clients")
