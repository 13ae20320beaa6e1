"""The broker fixtures, shared by every suite that runs real `samsa server`
processes (tests/integration, tests/clients):

    broker          a started one-node broker with default settings
    start_broker    factory: start_broker(overrides={...}, wait_ready=True)

Every broker gets free ports and a fresh temporary directory, and is killed
(SIGKILL if still running) and removed when the test ends, pass or fail.
"""
import pytest

from samsa_harness import Broker, samsa_bin


@pytest.fixture(scope="session")
def samsa_binary():
    path = samsa_bin()
    if not path.exists():
        pytest.fail(f"samsa binary not found at {path}: build it "
                    "(cmake --build build --target samsa) or set SAMSA_BIN", pytrace=False)
    return path


@pytest.fixture
def start_broker(samsa_binary):
    brokers = []

    def start(overrides=None, wait_ready=True, **kwargs):
        b = Broker(overrides=overrides, binary=samsa_binary, **kwargs)
        brokers.append(b)
        return b.start(wait_ready=wait_ready)

    yield start
    for b in brokers:
        b.cleanup()


@pytest.fixture
def broker(start_broker):
    return start_broker()
