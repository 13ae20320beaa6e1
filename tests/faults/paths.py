"""Makes the harnesses this suite reuses importable (tests/integration's
samsa_harness and kafka_wire, tests/cluster's cluster_harness), however the
modules here are loaded: by pytest, by run.py, or one by one."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for d in (HERE, os.path.join(HERE, "..", "integration"), os.path.join(HERE, "..", "cluster")):
    d = os.path.normpath(d)
    if d not in sys.path:
        sys.path.insert(0, d)
