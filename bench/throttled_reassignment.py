#!/usr/bin/env python3
"""A throttled reassignment at scale (run by hand, not part of `make test`):
a 3-node cluster on loopback, one partition of --gib GiB (default 1) on
broker 1, moved to broker 2 with `samsa reassign-partitions --execute
--throttle RATE`; prints the bytes moved, the time from --execute until the
metadata names broker 2 the only replica, the rate achieved, and its ratio to
the throttle (the target: within 0.8-1.2). `--verify` then clears the
throttles, and the last record is read back from broker 2.

    /usr/bin/python3 bench/throttled_reassignment.py [--gib 1] [--rate 50000000]

The records are 1 KiB, written by `samsa perf produce` (acks=1, 1 MiB
batches) before the move starts, so the move has the disks to itself. The
cluster test (tests/cluster/test_reassignment.py) checks the same with 6 MB
and loose bounds; this is the figure at a size where the first quota
window's burst does not matter.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "tests" / "cluster"), str(REPO / "tests" / "integration")]

from cluster_harness import FAST, Cluster  # noqa: E402
from samsa_harness import wait_until  # noqa: E402
from test_reassignment import replicas_of  # noqa: E402
from test_replication import create  # noqa: E402

SAMSA = REPO / "build" / "samsa"


def samsa(*args, timeout=600) -> str:
    r = subprocess.run([str(SAMSA), *args], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise SystemExit(f"samsa {' '.join(args)} failed: {r.stderr or r.stdout}")
    return r.stdout


def log_bytes(node, topic: str) -> int:
    return sum(f.stat().st_size for f in (node.data_dir / f"{topic}-0").glob("*.log"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gib", type=float, default=1.0, help="GiB to move")
    ap.add_argument("--rate", type=int, default=50_000_000, help="--throttle, bytes/s")
    args = ap.parse_args()

    c = Cluster(3, FAST).start()
    try:
        c.wait_for_leader(30)
        create(c, "big", assignment=[[1]])
        records = int(args.gib * (1 << 30) / 1024)
        samsa("perf", "produce", "--bootstrap-server", c.node(1).bootstrap, "--topic", "big",
              "--num-records", str(records), "--record-size", "1024", "--producer-props",
              "acks=1", "linger.ms=20", "batch.size=1048576", "compression.type=none",
              "--timeout", "5m")
        size = log_bytes(c.node(1), "big")
        with tempfile.TemporaryDirectory() as tmp:
            plan = Path(tmp) / "plan.json"
            plan.write_text(json.dumps({"version": 1, "partitions": [
                {"topic": "big", "partition": 0, "replicas": [2]}]}))
            started = time.monotonic()
            samsa("reassign-partitions", "--bootstrap-server", c.node(1).bootstrap,
                  "--reassignment-json-file", str(plan), "--execute", "--throttle",
                  str(args.rate))
            wait_until(lambda: replicas_of(c, "big").get(0, ([], []))[0] == [2],
                       20 * size / args.rate + 120, "the move to broker 2")
            elapsed = time.monotonic() - started
            out = samsa("reassign-partitions", "--bootstrap-server", c.node(1).bootstrap,
                        "--reassignment-json-file", str(plan), "--verify")
        moved = log_bytes(c.node(2), "big")
        achieved = size / elapsed
        print(f"moved {size} B ({moved} B on broker 2) in {elapsed:.1f} s: "
              f"{achieved / 1e6:.1f} MB/s under a {args.rate / 1e6:.1f} MB/s throttle, "
              f"ratio {achieved / args.rate:.2f} (target 0.8-1.2)")
        print(out.strip().splitlines()[-1])
    finally:
        c.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
