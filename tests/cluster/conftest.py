"""Fixtures for multi-node scenarios: N `samsa server` processes on loopback that
form one cluster (every node broker and controller, one Raft quorum).

    cluster(n=3, overrides={...}) -> Cluster   started and ready

Each node gets free ports and a fresh temporary directory; all are killed and
removed when the test ends, pass or fail.
"""
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, HERE)

from broker_fixtures import pytest_runtest_makereport, show_logs_if_failed  # noqa: E402,F401
from cluster_harness import Cluster  # noqa: E402
from samsa_harness import samsa_bin  # noqa: E402


@pytest.fixture
def own_clusters(request):
    """A list for the clusters a test builds and starts itself (with extra
    listeners set before the start); each is killed and removed at the end,
    its logs shown when the test failed."""
    made = []
    yield made
    for c in made:
        show_logs_if_failed(request, c.nodes)
        c.cleanup()


@pytest.fixture
def cluster(request):
    made = []

    def start(n=3, overrides=None, voters=None, racks=False, log_dirs=1):
        path = samsa_bin()
        if not path.exists():
            pytest.fail(f"samsa binary not found at {path}", pytrace=False)
        c = Cluster(n, overrides=overrides, binary=path, voters=voters, racks=racks,
                    log_dirs=log_dirs)
        made.append(c)
        return c.start()

    yield start
    dump = os.environ.get("SAMSA_DUMP_DIR")
    for c in made:
        show_logs_if_failed(request, c.nodes)
        if dump:
            # For a run being investigated: each node's log outlives its dir.
            os.makedirs(dump, exist_ok=True)
            for b in c.nodes:
                if b.log_path.exists():
                    shutil.copyfile(b.log_path, os.path.join(dump, f"node-{b.node_id}.log"))
        c.cleanup()
