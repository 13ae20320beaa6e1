"""A raw Kafka-protocol client for byte-level tests, written with struct alone so
that it shares no code (and no bugs) with the broker's codecs.

Frames are a 4-byte big-endian size followed by the request header and body.
Request header v1: int16 api_key, int16 api_version, int32 correlation_id,
nullable string client_id (int16 length). Header v2 adds a tagged-field section;
client_id stays a classic (non-compact) string. Response header v0 is the
int32 correlation_id; v1 adds a tagged-field section. ApiVersions responses
always use header v0 (KIP-511).
"""
from __future__ import annotations

import socket
import struct
import time
import uuid as uuidlib
from dataclasses import dataclass, field
from typing import Optional, Sequence

API_FETCH = 1
API_METADATA = 3
API_API_VERSIONS = 18

# First flexible version of the APIs these tests speak (from the JSON schemas).
API_DESCRIBE_QUORUM = 55
FIRST_FLEXIBLE = {API_FETCH: 12, API_METADATA: 9, API_API_VERSIONS: 3, API_DESCRIBE_QUORUM: 0, 52: 0,
                  19: 5, 35: 2, 50: 0, 51: 0, 68: 0, 69: 0, 75: 0}

# Kafka error codes used by the tests.
NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_TOPIC_EXCEPTION = 17
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
UNKNOWN_TOPIC_ID = 100
KAFKA_STORAGE_ERROR = 56


def is_flexible(api_key: int, version: int) -> bool:
    first = FIRST_FLEXIBLE.get(api_key, -1)
    return first >= 0 and version >= first


def request_header_version(api_key: int, version: int) -> int:
    return 2 if is_flexible(api_key, version) else 1


def response_header_version(api_key: int, version: int) -> int:
    if api_key == API_API_VERSIONS:
        return 0
    return 1 if is_flexible(api_key, version) else 0


# --- encoding ----------------------------------------------------------------

def int8(v: int) -> bytes:
    return struct.pack(">b", v)


def int16(v: int) -> bytes:
    return struct.pack(">h", v)


def int32(v: int) -> bytes:
    return struct.pack(">i", v)


def boolean(v: bool) -> bytes:
    return b"\x01" if v else b"\x00"


def uvarint(v: int) -> bytes:
    assert v >= 0
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def string(s: Optional[str]) -> bytes:
    if s is None:
        return int16(-1)
    b = s.encode()
    return int16(len(b)) + b


def compact_string(s: Optional[str]) -> bytes:
    if s is None:
        return uvarint(0)
    b = s.encode()
    return uvarint(len(b) + 1) + b


def array(items: Optional[Sequence[bytes]]) -> bytes:
    if items is None:
        return int32(-1)
    return int32(len(items)) + b"".join(items)


def compact_array(items: Optional[Sequence[bytes]]) -> bytes:
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b"".join(items)


EMPTY_TAGS = uvarint(0)


def request_header(api_key: int, version: int, correlation_id: int,
                   client_id: Optional[str] = "samsa-it",
                   header_version: Optional[int] = None) -> bytes:
    hv = request_header_version(api_key, version) if header_version is None else header_version
    out = int16(api_key) + int16(version) + int32(correlation_id)
    if hv >= 1:
        out += string(client_id)
    if hv >= 2:
        out += EMPTY_TAGS
    return out


def frame(payload: bytes) -> bytes:
    return int32(len(payload)) + payload


def request_frame(api_key: int, version: int, correlation_id: int, body: bytes,
                  client_id: Optional[str] = "samsa-it",
                  header_version: Optional[int] = None) -> bytes:
    return frame(request_header(api_key, version, correlation_id, client_id, header_version)
                 + body)


# --- request bodies ------------------------------------------------------------

def api_versions_body(version: int, software_name: str = "samsa-it",
                      software_version: str = "1.0") -> bytes:
    if version < 3:
        return b""
    return compact_string(software_name) + compact_string(software_version) + EMPTY_TAGS


def metadata_body(version: int, topics: Optional[Sequence] = None,
                  allow_auto_topic_creation: bool = True) -> bytes:
    """Metadata request; topics=None asks for every topic (v0: an empty list).
    A topic is a name, or (v10+) a (topic_id: uuid.UUID, name or None) pair."""
    flexible = is_flexible(API_METADATA, version)
    if topics is None and version == 0:
        topics = []
    entries = None
    if topics is not None:
        entries = []
        for topic in topics:
            topic_id, name = topic if isinstance(topic, tuple) else (None, topic)
            e = b""
            if version >= 10:
                e += topic_id.bytes if topic_id else b"\x00" * 16  # zero: ask by name
            else:
                assert topic_id is None, "topic ids need Metadata v10+"
            e += compact_string(name) if flexible else string(name)
            if flexible:
                e += EMPTY_TAGS
            entries.append(e)
    out = compact_array(entries) if flexible else array(entries)
    if version >= 4:
        out += boolean(allow_auto_topic_creation)
    if 8 <= version <= 10:
        out += boolean(False)  # include_cluster_authorized_operations
    if version >= 8:
        out += boolean(False)  # include_topic_authorized_operations
    if flexible:
        out += EMPTY_TAGS
    return out


# --- decoding ------------------------------------------------------------------

class DecodeError(AssertionError):
    pass


class Reader:
    """Strict reader: every read past the end raises DecodeError."""

    def __init__(self, data: bytes):
        self.data = bytes(data)
        self.pos = 0

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def raw(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise DecodeError(f"need {n} bytes at offset {self.pos}, have {self.remaining()}"
                              f" (buffer {self.data.hex()})")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.raw(struct.calcsize(fmt)))[0]

    def int8(self) -> int:
        return self.unpack(">b")

    def int16(self) -> int:
        return self.unpack(">h")

    def int32(self) -> int:
        return self.unpack(">i")

    def int64(self) -> int:
        return self.unpack(">q")

    def boolean(self) -> bool:
        b = self.int8()
        if b not in (0, 1):
            raise DecodeError(f"bool byte {b}")
        return b == 1

    def uuid(self) -> uuidlib.UUID:
        return uuidlib.UUID(bytes=self.raw(16))

    def uvarint(self) -> int:
        v = shift = 0
        while True:
            b = self.raw(1)[0]
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7
            if shift > 28:
                raise DecodeError("uvarint too long")

    def string(self) -> Optional[str]:
        n = self.int16()
        return None if n == -1 else self.raw(n).decode()

    def compact_string(self) -> Optional[str]:
        n = self.uvarint()
        return None if n == 0 else self.raw(n - 1).decode()

    def array_length(self, flexible: bool) -> int:
        return self.uvarint() - 1 if flexible else self.int32()

    def str_(self, flexible: bool) -> Optional[str]:
        return self.compact_string() if flexible else self.string()

    def tagged_fields(self) -> dict[int, bytes]:
        out = {}
        for _ in range(self.uvarint()):
            tag = self.uvarint()
            out[tag] = self.raw(self.uvarint())
        return out

    def end(self) -> None:
        if self.remaining():
            raise DecodeError(f"{self.remaining()} trailing bytes at offset {self.pos}: "
                              f"{self.data[self.pos:].hex()}")


@dataclass
class ApiVersionsResponse:
    error_code: int
    api_keys: dict[int, tuple[int, int]]
    throttle_time_ms: Optional[int] = None
    tags: dict[int, bytes] = field(default_factory=dict)


def parse_api_versions_response(body: bytes, version: int) -> ApiVersionsResponse:
    """Parses the body (after the v0 response header) strictly: the whole body
    must be consumed."""
    r = Reader(body)
    flexible = version >= 3
    error_code = r.int16()
    keys = {}
    n = r.array_length(flexible)
    for _ in range(max(n, 0)):
        key, lo, hi = r.int16(), r.int16(), r.int16()
        if flexible:
            r.tagged_fields()
        if key in keys:
            raise DecodeError(f"api key {key} listed twice")
        keys[key] = (lo, hi)
    resp = ApiVersionsResponse(error_code, keys)
    if version >= 1:
        resp.throttle_time_ms = r.int32()
    if flexible:
        resp.tags = r.tagged_fields()
    r.end()
    return resp


@dataclass
class MetadataBroker:
    node_id: int
    host: str
    port: int
    rack: Optional[str]


@dataclass
class MetadataTopic:
    error_code: int
    name: Optional[str]
    topic_id: Optional[uuidlib.UUID]
    is_internal: bool
    partitions: list


@dataclass
class MetadataResponse:
    throttle_time_ms: Optional[int]
    brokers: list[MetadataBroker]
    cluster_id: Optional[str]
    controller_id: Optional[int]
    topics: list[MetadataTopic]


def parse_metadata_response(body: bytes, version: int) -> MetadataResponse:
    r = Reader(body)
    flex = is_flexible(API_METADATA, version)
    throttle = r.int32() if version >= 3 else None
    brokers = []
    for _ in range(max(r.array_length(flex), 0)):
        node_id = r.int32()
        host = r.str_(flex)
        port = r.int32()
        rack = r.str_(flex) if version >= 1 else None
        if flex:
            r.tagged_fields()
        brokers.append(MetadataBroker(node_id, host, port, rack))
    cluster_id = r.str_(flex) if version >= 2 else None
    controller_id = r.int32() if version >= 1 else None
    topics = []
    for _ in range(max(r.array_length(flex), 0)):
        error_code = r.int16()
        name = r.str_(flex)
        topic_id = r.uuid() if version >= 10 else None
        is_internal = r.boolean() if version >= 1 else False
        partitions = []
        for _ in range(max(r.array_length(flex), 0)):
            p = {"error_code": r.int16(), "partition_index": r.int32(), "leader_id": r.int32()}
            if version >= 7:
                p["leader_epoch"] = r.int32()
            for key in ("replica_nodes", "isr_nodes") + (("offline_replicas",)
                                                         if version >= 5 else ()):
                p[key] = [r.int32() for _ in range(max(r.array_length(flex), 0))]
            if flex:
                r.tagged_fields()
            partitions.append(p)
        if version >= 8:
            r.int32()  # topic_authorized_operations
        if flex:
            r.tagged_fields()
        topics.append(MetadataTopic(error_code, name, topic_id, is_internal, partitions))
    if 8 <= version <= 10:
        r.int32()  # cluster_authorized_operations
    if flex:
        r.tagged_fields()
    r.end()
    return MetadataResponse(throttle, brokers, cluster_id, controller_id, topics)


# --- connection ----------------------------------------------------------------

class KafkaConnection:
    """One TCP connection speaking raw frames. Every read has a deadline."""

    def __init__(self, host: str, port: int, timeout: float = 10.0):
        self.timeout = timeout
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._next_correlation_id = 1

    @classmethod
    def to(cls, broker, timeout: float = 10.0) -> "KafkaConnection":
        return cls(broker.host, broker.port, timeout)

    @property
    def local_port(self) -> int:
        return self.sock.getsockname()[1]

    def close(self) -> None:
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def next_correlation_id(self) -> int:
        cid = self._next_correlation_id
        self._next_correlation_id += 1
        return cid

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_request(self, api_key: int, version: int, body: bytes,
                     correlation_id: Optional[int] = None, **header_args) -> int:
        cid = self.next_correlation_id() if correlation_id is None else correlation_id
        self.send_raw(request_frame(api_key, version, cid, body, **header_args))
        return cid

    def _recv_exact(self, n: int, deadline: float) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no complete frame within {self.timeout}s "
                                   f"(have {len(buf)} of {n} bytes)")
            self.sock.settimeout(left)
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError(f"connection closed after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    def read_frame(self, timeout: Optional[float] = None) -> bytes:
        """One response frame without its size prefix."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        size = struct.unpack(">i", self._recv_exact(4, deadline))[0]
        if size < 4:
            raise DecodeError(f"response frame size {size}")
        return self._recv_exact(size, deadline)

    def read_response(self, api_key: int, version: int,
                      timeout: Optional[float] = None) -> tuple[int, bytes]:
        """(correlation_id, body) of the next response, stripping the response
        header version that (api_key, version) calls for."""
        r = Reader(self.read_frame(timeout))
        cid = r.int32()
        if response_header_version(api_key, version) >= 1:
            r.tagged_fields()
        return cid, r.data[r.pos:]

    def roundtrip(self, api_key: int, version: int, body: bytes, **header_args) -> bytes:
        cid = self.send_request(api_key, version, body, **header_args)
        got, payload = self.read_response(api_key, version)
        if got != cid:
            raise DecodeError(f"correlation id {got}, expected {cid}")
        return payload

    def api_versions(self, version: int = 3, **kw) -> ApiVersionsResponse:
        body = self.roundtrip(API_API_VERSIONS, version, api_versions_body(version, **kw))
        return parse_api_versions_response(body, version)

    def metadata(self, version: int = 12, topics: Optional[Sequence[str]] = None,
                 allow_auto_topic_creation: bool = True) -> MetadataResponse:
        body = self.roundtrip(API_METADATA, version,
                              metadata_body(version, topics, allow_auto_topic_creation))
        return parse_metadata_response(body, version)

    def read_until_eof(self, timeout: float = 10.0) -> bytes:
        """Reads until the peer closes the connection (EOF or reset) and returns
        whatever arrived before; raises TimeoutError if it stays open."""
        deadline = time.monotonic() + timeout
        got = bytearray()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"connection still open after {timeout}s "
                                   f"(received {bytes(got).hex()})")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                return bytes(got)
            except socket.timeout:
                continue
            if not chunk:
                return bytes(got)
            got += chunk
