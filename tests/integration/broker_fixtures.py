"""The broker fixtures, shared by every suite that runs real `samsa server`
processes (tests/integration, tests/clients):

    broker          a started one-node broker with default settings
    start_broker    factory: start_broker(overrides={...}, wait_ready=True)

Every broker gets free ports and a fresh temporary directory, and is killed
(SIGKILL if still running) and removed when the test ends, pass or fail.
"""
import sys

import pytest

from samsa_harness import Broker, samsa_bin

# Lines of each broker's log a failed test shows (its teardown's stderr).
FAILURE_LOG_LINES = 80


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test item, for the fixtures'
    teardown to know whether the test failed."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


def show_logs_if_failed(request, brokers):
    """A failed test's report ends with the tail of every broker's log: a
    flake in CI is explained by the run that had it."""
    rep = getattr(request.node, "rep_call", None)
    if rep is None or not rep.failed:
        return
    for b in brokers:
        lines = b.log_text().splitlines()[-FAILURE_LOG_LINES:]
        sys.stderr.write(f"--- broker log {b.root} (last {len(lines)} lines) ---\n" +
                         "\n".join(lines) + "\n")


@pytest.fixture(scope="session")
def samsa_binary():
    path = samsa_bin()
    if not path.exists():
        pytest.fail(f"samsa binary not found at {path}: build it "
                    "(cmake --build build --target samsa) or set SAMSA_BIN", pytrace=False)
    return path


@pytest.fixture
def start_broker(samsa_binary, request):
    brokers = []

    def start(overrides=None, wait_ready=True, **kwargs):
        b = Broker(overrides=overrides, binary=samsa_binary, **kwargs)
        brokers.append(b)
        return b.start(wait_ready=wait_ready)

    yield start
    show_logs_if_failed(request, brokers)
    for b in brokers:
        b.cleanup()


@pytest.fixture
def broker(start_broker):
    return start_broker()
