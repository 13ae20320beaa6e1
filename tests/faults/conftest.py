"""tests/faults: a Jepsen-style fault harness (docs/faults.md).

The checker's tests (test_checker.py) need nothing; the fault runs
(test_faults.py) need root, network namespaces and a built samsa binary
($SAMSA_BIN, else build/samsa)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for d in (HERE, os.path.join(HERE, "..", "integration"), os.path.join(HERE, "..", "cluster")):
    if d not in sys.path:
        sys.path.insert(0, d)
