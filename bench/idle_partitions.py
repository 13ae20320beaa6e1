#!/usr/bin/env python3
"""Idle-partition cost benchmark (run by hand, not part of `make test`): one
broker, then N partitions created and left idle (plus a little data in each);
prints the broker's RSS, open file descriptors and the log dir's real disk use
(allocated blocks, not file sizes) before and after, per partition [RSS <= 64
KiB, <= 3 fds], and how long a clean restart takes until every partition has
its leader again [<= 10 s].

    SAMSA_BIN=build/samsa /usr/bin/python3 bench/idle_partitions.py [partitions]
"""
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "integration"))

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from samsa_harness import Broker  # noqa: E402


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def open_file_limit(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise RuntimeError("no Max open files")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def all_led(admin, expected: int) -> bool:
    try:
        md = admin.list_topics(timeout=5)
    except Exception:
        return False
    led = sum(1 for t in md.topics.values() if t.topic.startswith("idle-")
              for p in t.partitions.values() if p.leader >= 0 and not p.error)
    return led == expected


def disk_kib(path: Path) -> int:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def main() -> int:
    partitions = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    per_topic = 100
    broker = Broker(overrides={"num.io.threads": 2})
    broker.start()
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        limit = open_file_limit(broker.pid)
        if 3 * partitions + 1000 > limit:
            print(f"the broker's open file limit is {limit}: too low for {partitions} "
                  f"partitions at 3 descriptors each (raise the hard limit, ulimit -Hn)")
            return 1
        time.sleep(2)  # let the broker settle before the baseline
        rss0, disk0, fds0 = rss_kib(broker.pid), disk_kib(broker.data_dir), open_fds(broker.pid)
        topics = [NewTopic(f"idle-{i}", per_topic, 1) for i in range(partitions // per_topic)]
        for t in range(0, len(topics), 10):
            for f in admin.create_topics(topics[t:t + 10], operation_timeout=120).values():
                f.result(180)
        expected = len(topics) * per_topic
        deadline = time.monotonic() + 600
        while len(list(broker.data_dir.glob("idle-*"))) < expected:
            if time.monotonic() > deadline:
                raise RuntimeError("partitions did not appear")
            time.sleep(1)
        # 100 bytes into every partition, so each has a segment with data.
        p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 20})
        for t in topics:
            for part in range(per_topic):
                p.produce(t.topic, b"x" * 100, partition=part)
            p.poll(0)
        assert p.flush(120) == 0
        time.sleep(5)
        rss1, disk1, fds1 = rss_kib(broker.pid), disk_kib(broker.data_dir), open_fds(broker.pid)
        print(f"partitions: {expected}")
        print(f"RSS: {rss0} KiB -> {rss1} KiB: {(rss1 - rss0) / expected:.1f} KiB per partition")
        print(f"open fds: {fds0} -> {fds1}: {(fds1 - fds0) / expected:.2f} per partition")
        print(f"disk (allocated): {disk0} KiB -> {disk1} KiB: "
              f"{(disk1 - disk0) / expected:.1f} KiB per partition")
        apparent = sum(f.stat().st_size for f in broker.data_dir.rglob("*") if f.is_file())
        print(f"apparent file sizes: {apparent // 1024} KiB (sparse indexes count in full)")
        broker.stop()
        started = time.monotonic()
        broker.start()
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        while not all_led(admin, expected):
            if time.monotonic() - started > 600:
                raise RuntimeError("partitions without a leader 600 s after the restart")
            time.sleep(0.1)
        print(f"clean restart until every partition is led: {time.monotonic() - started:.1f} s")
    finally:
        broker.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
