#!/usr/bin/env python3
"""Builds the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from
real traffic and real files: a samsa broker is started behind a recording
proxy, real clients (librdkafka through confluent-kafka, kcat) produce with
every codec, consume in a group, and run admin calls; the frames that crossed
the proxy and the files the broker wrote become the seeds.

    SAMSA_BIN=build/samsa /usr/bin/python3 tests/fuzz/capture_corpus.py

Re-run it when a new api or file format appears; the seeds are committed.
"""
import hashlib
import os
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))

from samsa_harness import Broker, free_ports  # noqa: E402

CORPUS = HERE / "corpus"
MAX_SEED = 64 * 1024
MAX_PER_TARGET = 120


class Seeds:
    def __init__(self):
        self.by_target = {}

    def add(self, target, data):
        if not data or len(data) > MAX_SEED:
            return
        self.by_target.setdefault(target, {})[hashlib.sha1(data).hexdigest()] = data

    def write(self):
        for target, seeds in self.by_target.items():
            d = CORPUS / target
            d.mkdir(parents=True, exist_ok=True)
            for old in d.iterdir():
                old.unlink()
            # Keep the smallest of each (api, version) / kind first, then others.
            for name, data in sorted(seeds.items(), key=lambda kv: len(kv[1]))[:MAX_PER_TARGET]:
                (d / name).write_bytes(data)
            print(f"{target}: {min(len(seeds), MAX_PER_TARGET)} seeds")


def read_frame(sock):
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    (n,) = struct.unpack(">i", head)
    body = b""
    while len(body) < n:
        chunk = sock.recv(n - len(body))
        if not chunk:
            return None
        body += chunk
    return body


class RecordingProxy:
    """Forwards frames both ways; remembers requests and (key, version, body)
    of each response, matched by correlation id."""

    def __init__(self, target_port, seeds):
        self.target_port = target_port
        self.seeds = seeds
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            pending = {}
            threading.Thread(target=self.pump_requests, args=(client, upstream, pending),
                             daemon=True).start()
            threading.Thread(target=self.pump_responses, args=(upstream, client, pending),
                             daemon=True).start()

    def pump_requests(self, src, dst, pending):
        while True:
            frame = read_frame(src)
            if frame is None:
                dst.close()
                return
            key, version, corr = struct.unpack(">hhi", frame[:8])
            pending[corr] = (key, version)
            self.seeds.add("fuzz_request", frame)
            dst.sendall(struct.pack(">i", len(frame)) + frame)

    def pump_responses(self, src, dst, pending):
        while True:
            frame = read_frame(src)
            if frame is None:
                dst.close()
                return
            (corr,) = struct.unpack(">i", frame[:4])
            if corr in pending:
                key, version = pending.pop(corr)
                body = frame[4:]
                flexible_header = key != 18 and response_is_flexible(key, version)
                if flexible_header and body[:1] == b"\x00":
                    body = body[1:]  # an empty tagged-field section
                self.seeds.add("fuzz_response", struct.pack(">hh", key, version) + body)
            dst.sendall(struct.pack(">i", len(frame)) + frame)


# First flexible versions of the apis real clients use (Kafka's schemas).
FIRST_FLEXIBLE = {0: 9, 1: 12, 2: 6, 3: 9, 8: 8, 9: 6, 10: 3, 11: 6, 12: 4, 13: 4, 14: 4,
                  15: 5, 16: 3, 19: 5, 20: 4, 21: 2, 22: 2, 23: 4, 32: 4, 33: 2, 35: 2,
                  36: 2, 37: 2, 42: 2, 44: 1, 47: -1, 60: 0, 61: 0, 68: 0, 69: 0, 71: 0}


def response_is_flexible(key, version):
    first = FIRST_FLEXIBLE.get(key, -1)
    return first >= 0 and version >= first


def split_batches(data):
    """v2 batches of a .log file: (batch bytes, codec)."""
    pos = 0
    while pos + 61 <= len(data):
        (length,) = struct.unpack(">i", data[pos + 8:pos + 12])
        end = pos + 12 + length
        if length < 49 or end > len(data):
            return
        batch = data[pos:end]
        if batch[16] == 2:
            (attributes,) = struct.unpack(">h", batch[21:23])
            yield batch, attributes & 7
        pos = end


def varint(data, pos):
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7


def record_values(batch):
    """Values of an uncompressed v2 batch's records."""
    pos = 61
    (count,) = struct.unpack(">i", batch[57:61])
    for _ in range(count):
        length, pos = varint(batch, pos)
        end = pos + length
        p = pos + 1  # attributes
        _, p = varint(batch, p)  # timestamp delta
        _, p = varint(batch, p)  # offset delta
        klen, p = varint(batch, p)
        p += max(klen, 0)
        vlen, p = varint(batch, p)
        if vlen > 0:
            yield batch[p:p + vlen]
        pos = end


def set_batch_offset_zero(batch):
    # Client batches carry base offset 0 and no partition leader epoch.
    return b"\x00" * 8 + batch[8:12] + b"\xff\xff\xff\xff" + batch[16:]


def drive_clients(bootstrap):
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = [NewTopic("corpus", 2, 1), NewTopic("compacted", 1, 1,
                                                 config={"cleanup.policy": "compact"})]
    for f in admin.create_topics(topics).values():
        f.result(30)
    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        p = Producer({"bootstrap.servers": bootstrap, "compression.type": codec,
                      "enable.idempotence": codec in ("lz4", "zstd"), "linger.ms": 5})
        for i in range(30):
            p.produce("corpus", key=f"k{i % 5}".encode(), value=(f"{codec}-{i} " * 20).encode(),
                      headers=[("h", b"v")] if i % 3 == 0 else None)
            p.produce("compacted", key=f"k{i % 3}".encode(), value=None if i % 7 == 0 else b"v")
        assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "corpus-group",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe(["corpus"])
    got = 0
    for _ in range(60):
        for m in c.consume(500, timeout=0.5):
            if not m.error():
                got += 1
        if got >= 150:
            break
    c.commit(asynchronous=False)
    c.close()
    admin.describe_configs([ConfigResource("topic", "corpus"), ConfigResource("broker", "1")])
    for f in admin.create_partitions([NewPartitions("corpus", 3)]).values():
        f.result(30)
    admin.list_groups(timeout=10)
    for f in admin.delete_topics(["compacted"]).values():
        f.result(30)
    subprocess.run(["kcat", "-b", bootstrap, "-L"], capture_output=True, timeout=30)
    subprocess.run(["kcat", "-b", bootstrap, "-C", "-t", "corpus", "-o", "beginning", "-e",
                    "-c", "20"], capture_output=True, timeout=30)


def main():
    seeds = Seeds()
    broker = Broker(overrides={"group.initial.rebalance.delay.ms": 0,
                               "offsets.topic.replication.factor": 1})
    broker.start()
    try:
        proxy = RecordingProxy(broker.port, seeds)
        # Clients must come back through the proxy: advertise its port.
        broker.stop()
        broker.overrides["advertised.listeners"] = f"PLAINTEXT://127.0.0.1:{proxy.port}"
        broker.start()
        drive_clients(f"127.0.0.1:{proxy.port}")
        broker.stop()

        for path in sorted(broker.data_dir.rglob("*")):
            if not path.is_file():
                continue
            data = path.read_bytes()
            name = path.name
            if name.endswith(".log"):
                for batch, codec in split_batches(data):
                    if "__cluster_metadata" in str(path):
                        seeds.add("fuzz_raft", b"\x03" + batch)
                        if codec == 0:
                            for value in record_values(batch):
                                seeds.add("fuzz_raft", b"\x04" + value)
                        continue
                    client = set_batch_offset_zero(batch)
                    seeds.add("fuzz_record_batch", b"\x00" + client)
                    seeds.add("fuzz_record_batch", b"\x01" + batch)
                    seeds.add("fuzz_record_batch", b"\x03" + client)
                    seeds.add("fuzz_record_batch", bytes([4 + codec]) + batch[61:])
                if "__cluster_metadata" not in str(path) and len(data) <= MAX_SEED:
                    seeds.add("fuzz_storage", b"\x04" + data)
                    index = path.with_suffix(".index")
                    if index.exists():
                        seeds.add("fuzz_storage", b"\x05\x80" + data + index.read_bytes())
            elif name.endswith("checkpoint") and name != "leader-epoch-checkpoint":
                seeds.add("fuzz_storage", b"\x00" + data)
            elif name == "leader-epoch-checkpoint":
                seeds.add("fuzz_storage", b"\x01" + data)
            elif name.endswith(".snapshot") and "__cluster_metadata" not in str(path):
                seeds.add("fuzz_storage", b"\x02" + data)
            elif name == "partition.metadata":
                seeds.add("fuzz_storage", b"\x03" + data)
            elif name == "quorum-state":
                seeds.add("fuzz_raft", b"\x02" + data)
        seeds.add("fuzz_properties", broker.properties_path.read_bytes())
        shipped = HERE.parent.parent / "config" / "server.properties"
        seeds.add("fuzz_properties", shipped.read_bytes())
    finally:
        broker.cleanup()
    # Raft requests and responses as one node sends them to another (a
    # three-voter quorum does not run here: these are built by hand, each
    # field in its place, from the captured Fetch and Vote shapes).
    for key, version, body in raft_examples():
        seeds.add("fuzz_raft", bytes([0, [52, 53, 54, 1, 59].index(key), version]) + body)
    seeds.write()


def raft_examples():
    cid = b"\x16" + b"AAAAAAAAAAAAAAAAAAAAAA"  # compact string, 22 chars
    topic = b"\x13__cluster_metadata"
    vote = (cid + b"\x02" + topic + b"\x02" + struct.pack(">iiiiq", 0, 3, 2, 2, 17) + b"\x00\x00"
            + b"\x00")
    begin = (cid + b"\x02" + topic + b"\x02" + struct.pack(">iii", 0, 2, 3) + b"\x00\x00\x00")
    end = (cid + b"\x02" + topic + b"\x02" + struct.pack(">iii", 0, 2, 3) + b"\x02"
           + struct.pack(">i", 3) + b"\x00\x00\x00")
    return [(52, 0, vote), (53, 0, begin), (54, 0, end)]


if __name__ == "__main__":
    main()
