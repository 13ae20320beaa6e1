"""A quick fault run with separate roles (docs/faults.md): three
controller-only nodes, the metadata quorum, and three brokers only, each in
its own network namespace, under kills, partitions and pauses that hit either
kind of node; checked for anomalies as the combined runs of test_faults.py.
Its own module, so that the combined cluster of test_faults.py is not running
beside it."""
import os

import pytest

import netns
import run as runner
from test_faults import check_run


def test_quick_run_with_separate_roles():
    kinds = ["kill", "partition", "pause"]
    seed = int(os.environ.get("SAMSA_FAULTS_SEED", "42"))
    why = netns.can_create_namespaces()
    if why:
        pytest.fail(f"tests/faults cannot run: {why}", pytrace=False)
    with runner.Harness(3, controllers=3) as h:
        rr = runner.run_one(h, kinds, seed, 2.5 * runner.QUICK_DURATION,
                            f"separate-roles-{seed}")
    check_run(rr, "+".join(kinds) + " with separate roles", seed)
