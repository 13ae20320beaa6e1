"""The bytes librdkafka 2.0.2 really sends (tests/unit/protocol/data/*.hex, made
by tools/capture_frames.py), replayed verbatim and pipelined on one connection:
each gets the answer a Kafka broker gives."""
import kafka_wire as kw
from samsa_harness import REPO_ROOT

DATA = REPO_ROOT / "tests" / "unit" / "protocol" / "data"


def captured(name: str) -> bytes:
    text = (DATA / name).read_text()
    return bytes.fromhex("".join(line for line in text.splitlines()
                                 if not line.startswith("#")))


def header_fields(frame: bytes) -> tuple[int, int, int]:
    r = kw.Reader(frame[4:])
    return r.int16(), r.int16(), r.int32()


def test_replayed_librdkafka_requests_get_kafka_answers(start_broker):
    broker = start_broker(overrides={"auto.create.topics.enable": "false"})
    frames = [captured(n) for n in ("librdkafka_api_versions_v3.hex",
                                    "librdkafka_metadata_brokers_only.hex",
                                    "librdkafka_metadata_all_topics.hex",
                                    "librdkafka_metadata.hex")]

    with kw.KafkaConnection.to(broker) as conn:
        conn.send_raw(b"".join(frames))
        answers = []
        for f in frames:
            key, version, cid = header_fields(f)
            got, body = conn.read_response(key, version)
            assert got == cid
            answers.append((key, version, body))
    cluster_id = broker.meta_properties()["cluster.id"]

    (_, av_v, av_body), *metadata = answers
    av = kw.parse_api_versions_response(av_body, av_v)
    assert av.error_code == kw.NONE
    assert av.api_keys[kw.API_METADATA] == (0, 12)

    parsed = [kw.parse_metadata_response(body, v) for _, v, body in metadata]
    for md in parsed:
        assert [(b.node_id, b.host, b.port) for b in md.brokers] == \
            [(1, "127.0.0.1", broker.port)]
        assert md.cluster_id == cluster_id
        assert md.controller_id == 1
    brokers_only, all_topics, one_topic = parsed
    assert brokers_only.topics == []
    assert all_topics.topics == []
    assert [(t.name, t.error_code) for t in one_topic.topics] == \
        [("captured-topic", kw.UNKNOWN_TOPIC_OR_PARTITION)]
