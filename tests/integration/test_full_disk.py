"""A log dir on a disk that fills up (a small tmpfs): the broker refuses what it
cannot store with KAFKA_STORAGE_ERROR, takes the dir offline (KIP-112) and
says so, stays up, and after space is freed restarts with every acknowledged
record intact, in order. Needs root to mount the tmpfs (make test runs as
root); without it the test fails rather than pass unseen."""
import os
import subprocess
import time

import kafka_wire as kw
import pytest
from confluent_kafka import KafkaError, Producer
from test_produce_consume import consume_all, create_topic

KAFKA_STORAGE_ERROR = 56
RECORD = 16 * 1024


@pytest.fixture
def small_disk(tmp_path):
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mount_point)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.fail(f"cannot mount a tmpfs (run as root): {res.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def resize(mount_point, size):
    subprocess.run(["mount", "-o", f"remount,size={size}", str(mount_point)], check=True)


def produce_until_refused(bootstrap, topic, limit=4000):
    """Produces numbered records one at a time until the broker refuses one;
    returns ({offset: value} acknowledged, the first refusal)."""
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "retries": 0,
                  "enable.idempotence": False, "max.in.flight": 1, "linger.ms": 0,
                  "message.timeout.ms": 20000})
    acked, refused = {}, []

    def cb(err, msg):
        if err:
            refused.append(err)
        else:
            acked[msg.offset()] = msg.value()

    for i in range(limit):
        p.produce(topic, str(i).encode().ljust(RECORD, b"."), on_delivery=cb)
        p.flush(30)
        if refused:
            break
    assert p.flush(30) == 0
    return acked, refused[0] if refused else None


def partition_error(broker, topic):
    with kw.KafkaConnection.to(broker) as conn:
        md = conn.metadata(12, [topic], allow_auto_topic_creation=False)
    return md.topics[0].partitions[0]["error_code"], md.topics[0].partitions[0]


def test_a_full_disk_takes_the_log_dir_offline_and_a_restart_keeps_every_acknowledged_record(
        start_broker, small_disk):
    data = small_disk / "data"
    broker = start_broker(properties={"log.dirs": str(data)})
    topic = "filling"
    create_topic(broker.bootstrap, topic)

    acked, refusal = produce_until_refused(broker.bootstrap, topic)
    assert refusal is not None, "24 MiB took 4000 records of 16 KiB"
    assert refusal.code() == KafkaError.KAFKA_STORAGE_ERROR, refusal
    assert len(acked) > 100, f"only {len(acked)} records fit"
    log = broker.wait_for_log("event=log_dir_offline", timeout=10)
    assert "No space left on device" in log, log
    # The broker stays up, says what failed, and reports the partition.
    assert broker.is_running()
    deadline = time.monotonic() + 20
    while partition_error(broker, topic)[0] != KAFKA_STORAGE_ERROR:
        assert time.monotonic() < deadline, partition_error(broker, topic)
        time.sleep(0.2)
    assert broker.node_id in partition_error(broker, topic)[1]["offline_replicas"]
    # Its only log dir is gone: it asks to be fenced so leaderships move.
    broker.wait_for_log("event=broker_fence_requested", timeout=20)

    broker.kill()
    broker.wait()
    resize(small_disk, "256m")
    broker.restart()
    got = consume_all(broker.bootstrap, topic, len(acked), timeout=60)
    assert {m.offset(): m.value() for m in got} == acked
    assert [m.offset() for m in got] == sorted(acked)


def test_a_crash_restart_on_a_small_tmpfs_reads_no_index_holes(start_broker, small_disk):
    """Active segments' indexes are preallocated sparsely (10 MiB each here).
    After kill -9 they are left at that size, and opening them again must not
    read their holes: on tmpfs each page read through the mapping takes
    memory, and 4 partitions' holes (80 MiB) do not fit in 24 MiB, which
    was a SIGBUS at startup."""
    data = small_disk / "data"
    broker = start_broker(properties={"log.dirs": str(data)})
    topic = "holes"
    create_topic(broker.bootstrap, topic, partitions=4)
    p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all"})
    for i in range(20):
        p.produce(topic, str(i).encode(), partition=0)
    assert p.flush(30) == 0
    broker.kill()
    broker.wait()
    broker.restart()
    got = consume_all(broker.bootstrap, topic, 20, timeout=60)
    assert [m.value() for m in got] == [str(i).encode() for i in range(20)]
    assert broker.is_running()
