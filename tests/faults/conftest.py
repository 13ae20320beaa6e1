"""tests/faults: a Jepsen-style fault harness (docs/faults.md).

The checker's and the schedule's tests (test_checker.py, test_schedule.py)
need nothing; the fault runs (test_faults.py) need root, network namespaces
and a built samsa binary ($SAMSA_BIN, else build/samsa)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import paths  # noqa: E402,F401  (tests/integration and tests/cluster on the path)
