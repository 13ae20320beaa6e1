"""Recovery after a crash never cuts silently: a flipped byte in the middle of
a segment makes recovery cut the log there, and the broker says what it
checked and what it cut (segment, offsets, bytes), keeps the cut bytes in a
.corrupt file beside the segment, and serves everything before the cut."""
import re
import struct
from pathlib import Path

import kafka_wire as kw
from test_produce_consume import consume_all, create_topic, produce


def test_a_flipped_byte_mid_log_is_logged_and_the_cut_bytes_are_kept(broker):
    topic = "flipped"
    create_topic(broker.bootstrap, topic, config={"segment.bytes": str(256 * 1024)})
    reports = produce(broker.bootstrap, topic,
                      [(None, f"{i:06d}".encode() * 170, None) for i in range(2000)],
                      **{"batch.size": 16384, "compression.type": "none"})
    acked = sorted(offset for _, offset in reports)
    broker.kill()  # SIGKILL: the next start is unclean and recovers
    broker.wait()

    segments = sorted((broker.data_dir / f"{topic}-0").glob("*.log"))
    assert len(segments) >= 3, segments
    first = segments[0]
    size = first.stat().st_size
    with open(first, "r+b") as f:
        f.seek(size // 2)
        b = f.read(1)
        f.seek(size // 2)
        f.write(bytes([b[0] ^ 0xFF]))

    broker.start()
    line = broker.wait_for_log("event=log_recovery_cut_corrupt")
    assert f"partition={topic}-0" in line and f"segment={first}" in line, line
    cut = int(re.search(r"from_offset=(\d+)", line).group(1))
    kept = Path(re.search(r"kept_as=(\S+)", line).group(1))
    assert kept.exists() and kept.name.endswith(".corrupt")
    assert kept.stat().st_size == size - int(re.search(r"position=(\d+)", line).group(1))
    assert "event=log_recovered partition=flipped-0" in broker.log_text()
    # The later segments are kept too, not deleted.
    for seg in segments[1:]:
        assert list(seg.parent.glob(seg.name + ".*.corrupt")), seg
    assert 0 < cut < len(acked)
    got = consume_all(broker.bootstrap, topic, cut, timeout=60)
    assert [m.offset() for m in got] == acked[:cut]
    assert all(m.value() == f"{m.offset():06d}".encode() * 170 for m in got)


def batch_positions(data):
    pos = 0
    while pos + 12 <= len(data):
        length = struct.unpack(">i", data[pos + 8:pos + 12])[0]
        yield pos
        pos += 12 + length


def fetch_partition0(broker, topic, offset):
    """Fetch v4 of partition 0: (error_code, records bytes)."""
    body = (kw.int32(-1) + kw.int32(100) + kw.int32(1) + kw.int32(1 << 20) + kw.int8(0) +
            kw.array([kw.string(topic) + kw.array([struct.pack(">iqi", 0, offset, 1 << 20)])]))
    with kw.KafkaConnection.to(broker) as conn:
        conn.send_request(kw.API_FETCH, 4, body)
        _, payload = conn.read_response(kw.API_FETCH, 4)
    r = kw.Reader(payload)
    r.int32()  # throttle
    assert r.int32() == 1 and r.string() == topic and r.int32() == 1
    assert r.int32() == 0
    error = r.int16()
    r.int64(), r.int64()  # high watermark, last stable offset
    r.int32()  # aborted transactions (null: -1)
    size = r.int32()
    return error, r.raw(size) if size > 0 else b""


def test_a_flipped_byte_in_a_cleanly_shut_down_log_is_refused_not_served(broker):
    topic = "flipped-clean"
    create_topic(broker.bootstrap, topic)
    produce(broker.bootstrap, topic, [(None, bytes([i]) * 4000, None) for i in range(20)],
            **{"batch.num.messages": 1, "linger.ms": 0, "compression.type": "none"})
    broker.stop()  # clean: the next start skips recovery
    seg = broker.data_dir / f"{topic}-0" / "00000000000000000000.log"
    data = bytearray(seg.read_bytes())
    third = list(batch_positions(bytes(data)))[2]
    data[third + 61 + 500] ^= 0xFF  # inside a record's value: only the CRC can tell
    seg.write_bytes(bytes(data))
    broker.start()

    # The two good batches before the damage are served...
    error, records = fetch_partition0(broker, topic, 0)
    assert error == kw.NONE and list(batch_positions(records)) == [0, third // 2], error
    # ...and the damaged one is refused, never sent as is.
    error, records = fetch_partition0(broker, topic, 2)
    assert error == kw.KAFKA_STORAGE_ERROR, error
    assert records == b""
    line = broker.wait_for_log("event=log_read_failed")
    assert f"partition={topic}-0" in line and "CRC" in line, line
    assert broker.is_running()


def test_recovery_threads_per_dir_recover_every_partition_of_two_dirs(start_broker, tmp_path):
    """num.recovery.threads.per.data.dir=4 over two log dirs: after kill -9,
    every partition is recovered and serves every acknowledged record."""
    dirs = [tmp_path / "d1", tmp_path / "d2"]
    overrides = {"log.dirs": ",".join(str(d) for d in dirs),
                 "num.recovery.threads.per.data.dir": 4}
    broker = start_broker(overrides=overrides)
    topic = "recovered"
    create_topic(broker.bootstrap, topic, partitions=8)
    reports = produce(broker.bootstrap, topic,
                      [(f"k{i}".encode(), f"v{i}".encode(), None) for i in range(4000)])
    acked = {}
    for partition, offset in reports:
        acked.setdefault(partition, []).append(offset)
    assert len(acked) == 8
    assert all(list((d).glob(f"{topic}-*")) for d in dirs)  # both dirs hold partitions
    broker.kill()
    broker.wait()
    broker.start()
    assert "event=recovery_done partitions_recovered=8 " in broker.log_text()
    for partition, offsets in acked.items():
        got = consume_all(broker.bootstrap, topic, len(offsets), partition=partition)
        assert [m.offset() for m in got] == sorted(offsets), partition
