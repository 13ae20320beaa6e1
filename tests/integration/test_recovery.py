"""Recovery after a crash never cuts silently: a flipped byte in the middle of
a segment makes recovery cut the log there, and the broker says what it
checked and what it cut (segment, offsets, bytes), keeps the cut bytes in a
.corrupt file beside the segment, and serves everything before the cut."""
import re
from pathlib import Path

import pytest
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
