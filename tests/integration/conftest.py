"""Fixtures for the integration tests: real `samsa server` processes on loopback
(broker_fixtures.py: broker, start_broker)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from broker_fixtures import (broker, pytest_runtest_makereport,  # noqa: E402,F401
                             samsa_binary, start_broker)
