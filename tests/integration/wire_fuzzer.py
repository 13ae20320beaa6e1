#!/usr/bin/env python3
"""A seeded, bounded wire-level fuzzer against a running broker: it mutates
real request frames (the fuzz_request seed corpus, captured from real
clients) and sends them; after every `check_every` cases it checks that the
broker still answers ApiVersions on a fresh connection and that a record
produced with librdkafka comes back. Any failure names the seed, the case
number and the last frames sent, so a run can be replayed.

The integration suite runs a short round (test_wire_fuzz.py). A long run
against a broker you started yourself:

    /usr/bin/python3 tests/integration/wire_fuzzer.py --bootstrap 127.0.0.1:9092 \\
        --seconds 1800 --seed 1
"""
from __future__ import annotations

import argparse
import random
import socket
import struct
import time
import uuid
from pathlib import Path
from typing import Callable, Optional

import kafka_wire as kw

CORPUS = Path(__file__).resolve().parent.parent / "fuzz" / "corpus" / "fuzz_request"
# Requests that would change the cluster for good or stop it are never sent:
# a frame that would become one is turned into ApiVersions. DeleteTopics,
# DeleteRecords, DeleteGroups, AlterConfigs, IncrementalAlterConfigs,
# ControlledShutdown, UnregisterBroker and the quorum's own RPCs would stop
# the broker answering checks, which is what is being tested. CreateTopics
# and CreatePartitions too: valid ones with mutated counts create thousands
# of partitions, whose open files exhaust the process's descriptors (as
# Kafka's would); bounding that is for quotas and ACLs, not for the decoders.
UNSAFE_KEYS = {7, 19, 20, 21, 33, 37, 42, 44, 52, 53, 54, 56, 59, 62, 63, 64}


def load_seeds() -> list[bytes]:
    seeds = [p.read_bytes() for p in sorted(CORPUS.iterdir())] if CORPUS.is_dir() else []
    if not seeds:
        seeds = [kw.request_header(18, 3, 1) + kw.api_versions_body(3),
                 kw.request_header(3, 12, 1) + kw.metadata_body(12, None)]
    return [s for s in seeds if len(s) >= 8 and struct.unpack(">h", s[:2])[0] not in UNSAFE_KEYS]


INTERESTING_32 = [0, 1, -1, 0x7FFFFFFF, -0x80000000, 0x10000, 0x7FFFFFFE, 255, 256]
INTERESTING_16 = [0, 1, -1, 0x7FFF, -0x8000, 255, 256]


def mutate(rng: random.Random, frame: bytes) -> bytes:
    data = bytearray(frame)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 8])):
        op = rng.randrange(9)
        if not data:
            data += rng.randbytes(8)
        pos = rng.randrange(len(data))
        if op == 0:  # flip a bit
            data[pos] ^= 1 << rng.randrange(8)
        elif op == 1:  # a random byte
            data[pos] = rng.randrange(256)
        elif op == 2 and pos + 4 <= len(data):  # an extreme int32 (lengths, counts)
            data[pos:pos + 4] = struct.pack(">i", rng.choice(INTERESTING_32))
        elif op == 3 and pos + 2 <= len(data):  # an extreme int16 (string lengths)
            data[pos:pos + 2] = struct.pack(">h", rng.choice(INTERESTING_16))
        elif op == 4:  # cut short
            del data[pos:]
        elif op == 5:  # insert random bytes
            data[pos:pos] = rng.randbytes(rng.randrange(1, 32))
        elif op == 6:  # a varint that never ends (compact lengths, tags)
            data[pos:pos] = b"\xff" * rng.randrange(1, 12)
        elif op == 7:  # repeat a chunk
            end = min(len(data), pos + rng.randrange(1, 64))
            data[pos:pos] = data[pos:end] * rng.randrange(1, 8)
        else:  # another api version
            if len(data) >= 4:
                data[2:4] = struct.pack(">h", rng.randrange(-2, 20))
    # Never turn a frame into a request that could stop or wipe the cluster.
    if len(data) >= 2 and struct.unpack(">h", bytes(data[:2]))[0] in UNSAFE_KEYS:
        data[0:2] = struct.pack(">h", 18)
    return bytes(data)


class Failure(AssertionError):
    pass


class WireFuzzer:
    def __init__(self, host: str, port: int, seed: int,
                 round_trip: Optional[Callable[[], None]] = None):
        self.host, self.port = host, port
        self.rng = random.Random(seed)
        self.seed = seed
        self.seeds = load_seeds()
        self.round_trip = round_trip
        self.sock: Optional[socket.socket] = None
        self.recent: list[bytes] = []
        self.cases = 0
        self.checks = 0

    def connect(self) -> socket.socket:
        s = socket.create_connection((self.host, self.port), timeout=5)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def send_case(self) -> None:
        frame = mutate(self.rng, self.rng.choice(self.seeds))
        # Mostly a truthful size prefix, sometimes a lying one.
        size = len(frame) if self.rng.random() < 0.9 else self.rng.choice(
            [len(frame) + 1, max(0, len(frame) - 1), 0x7FFFFFFF, -1, 4])
        wire = struct.pack(">i", size) + frame
        self.recent = (self.recent + [wire])[-5:]
        for _ in range(2):
            if self.sock is None:
                try:
                    self.sock = self.connect()
                except OSError as e:
                    raise Failure(f"cannot connect before case {self.cases} (seed "
                                  f"{self.seed}): {e!r}; last frames: "
                                  f"{[f.hex()[:400] for f in self.recent]}") from e
            try:
                self.sock.sendall(wire)
                self.sock.settimeout(0.01)
                try:
                    if self.sock.recv(65536) == b"":
                        raise ConnectionResetError
                except socket.timeout:
                    pass
                break
            except (ConnectionResetError, BrokenPipeError, OSError):
                self.sock.close()
                self.sock = None
        # A lying size leaves the stream out of step: start over.
        if size != len(frame) and self.sock is not None:
            self.sock.close()
            self.sock = None
        self.cases += 1

    def check(self) -> None:
        self.checks += 1
        try:
            with kw.KafkaConnection(self.host, self.port, timeout=10) as conn:
                if conn.api_versions().error_code != kw.NONE:
                    raise Failure("ApiVersions answered an error")
            if self.round_trip:
                self.round_trip()
        except Exception as e:  # noqa: BLE001 - any failure of the check is the finding
            raise Failure(f"broker check failed after case {self.cases} (seed {self.seed}): "
                          f"{e!r}; last frames: {[f.hex()[:400] for f in self.recent]}") from e

    def run(self, cases: int, seconds: float, check_every: int) -> None:
        deadline = time.monotonic() + seconds
        while self.cases < cases and time.monotonic() < deadline:
            self.send_case()
            if self.cases % check_every == 0:
                self.check()
        if self.sock:
            self.sock.close()
        self.check()


def raw_fetch(bootstrap: str, topic: str, offset: int) -> str:
    """What a plain Fetch v4 of partition 0 says, for a failure message."""
    host, port = bootstrap.rsplit(":", 1)
    body = (kw.int32(-1) + kw.int32(0) + kw.int32(1) + kw.int32(1 << 20) + kw.int8(0) +
            kw.array([kw.string(topic) + kw.array([struct.pack(">iqi", 0, offset, 1 << 20)])]))
    try:
        with kw.KafkaConnection(host, int(port), timeout=10) as conn:
            conn.send_request(kw.API_FETCH, 4, body)
            _, payload = conn.read_response(kw.API_FETCH, 4)
        r = kw.Reader(payload)
        r.int32(), r.int32(), r.string(), r.int32(), r.int32()
        error, hw = r.int16(), r.int64()
        r.int64(), r.int32()
        return f"raw fetch: error {error}, high watermark {hw}, {r.int32()} record bytes"
    except Exception as e:  # noqa: BLE001 - diagnostics only
        return f"raw fetch failed: {e!r}"


def librdkafka_round_trip(bootstrap: str) -> Callable[[], None]:
    from confluent_kafka import Consumer, Producer, TopicPartition

    def run() -> None:
        topic = "wire-fuzz-check"
        value = uuid.uuid4().bytes
        p = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 15000})
        reports = []
        p.produce(topic, value, partition=0, on_delivery=lambda e, m: reports.append((e, m)))
        if p.flush(20) != 0 or not reports or reports[0][0] is not None:
            raise Failure(f"produce failed: {reports}")
        offset = reports[0][1].offset()
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": "wire-fuzz",
                      "enable.auto.commit": False})
        c.assign([TopicPartition(topic, 0, offset)])
        # Generous: a loaded 2-core machine can be slow, and a slow answer is
        # not what this looks for.
        deadline = time.monotonic() + 60
        seen = []
        try:
            while time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is not None and m.error():
                    seen.append(str(m.error()))
                if m is not None and not m.error() and m.value() == value:
                    return
            raise Failure(f"the record produced at offset {offset} did not come back; "
                          f"consumer errors: {seen[-5:]}; {raw_fetch(bootstrap, topic, offset)}")
        finally:
            c.close()
    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=10**9)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--check-every", type=int, default=500)
    args = ap.parse_args()
    host, port = args.bootstrap.rsplit(":", 1)
    f = WireFuzzer(host, int(port), args.seed, librdkafka_round_trip(args.bootstrap))
    f.run(args.cases, args.seconds, args.check_every)
    print(f"wire fuzz: {f.cases} cases, {f.checks} checks, seed {args.seed}: broker healthy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
