"""The request_percentage (KIP-124) and controller_mutation_rate (KIP-599) client
quotas (docs/client-quotas.md), set with `samsa configs` and enforced:

* a client flooding Metadata requests over its request_percentage is throttled
  (throttle_time_ms in its responses, its connection muted) while another
  client on the same broker is not; a client older than KIP-219 gets its
  answers late instead;
* CreateTopics over controller_mutation_rate: from v6 the topics past an empty
  bucket are refused with THROTTLING_QUOTA_EXCEEDED and Kafka's message, and
  the response says how long to wait; librdkafka (CreateTopics v4, before
  strict mode) has all its topics created and is told to back off through its
  throttle callback; DeleteTopics and CreatePartitions count too."""
import threading
import time

from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from kafka_wire import (API_METADATA, EMPTY_TAGS, KafkaConnection, Reader, boolean,
                        compact_array, compact_string, int16, int32, metadata_body,
                        parse_metadata_response)
from samsa_cli import on

THROTTLING_QUOTA_EXCEEDED = 89
API_CREATE_TOPICS = 19
SMOOTH = {"quota.window.num": "4", "quota.window.size.seconds": "1",
          # A bucket of 2 x 1 s x the quota: small enough to empty in a test.
          "controller.quota.window.num": "2", "controller.quota.window.size.seconds": "1"}


def set_client_quota(broker, client_id, setting):
    on(broker, "configs", "--entity-type", "clients", "--entity-name", client_id, "--alter",
       "--add-config", setting).ok()


def metadata_throttle(conn, client_id, version):
    """The throttle_time_ms of one Metadata request (no topics) as `client_id`."""
    body = conn.roundtrip(API_METADATA, version, metadata_body(version, [], False),
                          client_id=client_id)
    return parse_metadata_response(body, version).throttle_time_ms


def wait_until_throttled(broker, client_id, deadline_s=30):
    """Polls Metadata as `client_id` until a response carries a throttle (the
    quota has reached the broker's image and the client went over it)."""
    with KafkaConnection.to(broker) as conn:
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            if metadata_throttle(conn, client_id, 12) > 0:
                return
        raise AssertionError(f"{client_id} was never throttled")


def flood(broker, client_id, seconds, version, out):
    """Metadata requests one after another for `seconds`: (elapsed, throttle)."""
    with KafkaConnection.to(broker, timeout=30) as conn:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            sent = time.monotonic()
            throttle = metadata_throttle(conn, client_id, version)
            out.append((time.monotonic() - sent, throttle))


def test_a_client_over_its_request_percentage_is_throttled_and_another_is_not(start_broker):
    b = start_broker(overrides=SMOOTH)
    # 0.01 % of one thread: 100 microseconds of the broker's time a second
    # (a Metadata request for no topics takes a few).
    set_client_quota(b, "busy-client", "request_percentage=0.01")
    wait_until_throttled(b, "busy-client")
    busy, free = [], []
    threads = [threading.Thread(target=flood, args=(b, "busy-client", 4, 12, busy)),
               threading.Thread(target=flood, args=(b, "free-client", 4, 12, free))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    throttles = [t for _, t in busy]
    assert max(throttles) > 0
    # Kafka bounds a request quota's throttle by one quota window (1 s here).
    assert max(throttles) <= 1000
    assert all(t == 0 for _, t in free)
    # The muted connection answers far fewer requests than the free one.
    assert len(free) >= 3 * len(busy), (len(free), len(busy))


def test_a_client_older_than_kip_219_gets_its_throttled_answers_late(start_broker):
    b = start_broker(overrides=SMOOTH)
    set_client_quota(b, "old-client", "request_percentage=0.01")
    wait_until_throttled(b, "old-client")
    answers = []
    # Metadata v5 carries throttle_time_ms, but its client does not wait it
    # out (Kafka's shouldClientThrottle is from v6): the broker holds the
    # answer back instead.
    flood(b, "old-client", 3, 5, answers)
    late = [(took, t) for took, t in answers if t > 0]
    assert late
    for took, throttle in late:
        assert took * 1000 >= throttle - 5, (took, throttle)


def create_topics_v7(conn, client_id, topics, validate_only=False):
    """CreateTopics v7 of (name, partitions) with replication factor 1:
    (throttle_time_ms, {name: (error_code, error_message)})."""
    entries = [compact_string(name) + int32(partitions) + int16(1) + compact_array([])
               + compact_array([]) + EMPTY_TAGS for name, partitions in topics]
    body = compact_array(entries) + int32(30000) + boolean(validate_only) + EMPTY_TAGS
    r = Reader(conn.roundtrip(API_CREATE_TOPICS, 7, body, client_id=client_id))
    throttle = r.int32()
    results = {}
    for _ in range(r.uvarint() - 1):
        name = r.compact_string()
        r.raw(16)  # topic id
        code = r.int16()
        message = r.compact_string()
        r.int32()  # partitions
        r.int16()  # replication factor
        for _ in range(max(r.uvarint() - 1, 0)):  # configs
            r.compact_string(), r.compact_string(), r.boolean(), r.int8(), r.boolean()
            r.tagged_fields()
        r.tagged_fields()
        results[name] = (code, message)
    r.tagged_fields()
    return throttle, results


def test_create_topics_past_an_empty_bucket_are_refused_from_v6(start_broker):
    b = start_broker(overrides=SMOOTH)
    # 1 partition a second, a bucket of 2.
    set_client_quota(b, "creator", "controller_mutation_rate=1")
    with KafkaConnection.to(b, timeout=30) as conn:
        throttle, results = create_topics_v7(conn, "creator",
                                             [("m-a", 2), ("m-b", 2), ("m-c", 2)])
    # m-a empties the bucket, m-b may still take it below zero, m-c may not.
    assert results["m-a"] == (0, None)
    assert results["m-b"] == (0, None)
    assert results["m-c"] == (THROTTLING_QUOTA_EXCEEDED,
                              "The throttling quota has been exceeded.")
    # Two partitions below zero at one a second: 2 s, less the time the
    # controller took over the first two topics.
    assert 0 < throttle <= 2000, throttle
    # A new connection is not muted, but the bucket is still below zero.
    with KafkaConnection.to(b, timeout=30) as conn:
        _, results = create_topics_v7(conn, "creator", [("m-d", 1)])
        assert results["m-d"][0] == THROTTLING_QUOTA_EXCEEDED
        # Another client id has no quota.
        throttle, results = create_topics_v7(conn, "someone-else", [("m-e", 5)])
        assert throttle == 0 and results["m-e"] == (0, None)
    names = set(AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=30).topics)
    assert {"m-a", "m-b", "m-e"} <= names
    assert not names & {"m-c", "m-d"}


def test_a_refused_topic_gives_its_partitions_back(start_broker):
    b = start_broker(overrides=SMOOTH)
    set_client_quota(b, "creator", "controller_mutation_rate=1")
    with KafkaConnection.to(b, timeout=30) as conn:
        # An invalid topic takes nothing: the valid one after it still fits.
        _, results = create_topics_v7(conn, "creator", [("bad name!", 2), ("g-a", 2)])
        assert results["bad name!"][0] != 0
        assert results["g-a"] == (0, None)
        throttle, results = create_topics_v7(conn, "creator", [("g-b", 1)])
        assert results["g-b"] == (0, None)
        assert throttle == 0


def test_librdkafka_creates_every_topic_and_is_told_to_back_off(start_broker):
    b = start_broker(overrides=SMOOTH)
    set_client_quota(b, "rdkafka-admin", "controller_mutation_rate=1")
    throttles = []
    admin = AdminClient({"bootstrap.servers": b.bootstrap, "client.id": "rdkafka-admin",
                         "throttle_cb": lambda ev: throttles.append(ev.throttle_time)})
    # CreateTopics v4: permissive, so all three go through however empty the
    # bucket gets; the client is told to wait for the 4 partitions over it.
    futures = admin.create_topics([NewTopic(f"p-{i}", 2, 1) for i in range(3)])
    for f in futures.values():
        f.result(timeout=30)
    deadline = time.monotonic() + 30
    while not throttles and time.monotonic() < deadline:
        admin.poll(0.1)
    # 4 s, less the time the controller took to create the topics.
    assert throttles and 0 < max(throttles) * 1000 <= 4000, throttles
    # CreatePartitions and DeleteTopics take from the same bucket: the
    # client's next requests are refused or throttled while it is below zero.
    # (librdkafka's CreatePartitions is v0-1 and DeleteTopics v0-3:
    # permissive, so they go through and throttle.)
    throttles.clear()
    admin.create_partitions([NewPartitions("p-0", 4)])["p-0"].result(timeout=30)
    for f in admin.delete_topics(["p-1"]).values():
        f.result(timeout=30)
    deadline = time.monotonic() + 30
    while len(throttles) < 2 and time.monotonic() < deadline:
        admin.poll(0.1)
    assert len(throttles) >= 2 and min(throttles) > 0, throttles


def test_every_request_path_works_while_requests_are_timed(start_broker):
    """Once any request_percentage quota is set, every request of every client
    runs on a timed executor: produce (acks=all, idempotent), a consumer group,
    commits, a transaction and admin calls must work as before."""
    from confluent_kafka import Consumer, Producer
    b = start_broker(overrides={"offsets.topic.replication.factor": "1",
                                "transaction.state.log.replication.factor": "1",
                                "transaction.state.log.min.isr": "1"})
    set_client_quota(b, "someone-else", "request_percentage=50")
    wait_until_throttled_or_quota_seen(b)
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic("timed", 3, 1)])["timed"].result(timeout=30)
    p = Producer({"bootstrap.servers": b.bootstrap, "enable.idempotence": True, "acks": "all"})
    for i in range(300):
        p.produce("timed", key=str(i).encode(), value=str(i).encode())
    assert p.flush(30) == 0
    t = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "timed-txn"})
    t.init_transactions(30)
    t.begin_transaction()
    for i in range(300, 310):
        t.produce("timed", key=str(i).encode(), value=str(i).encode())
    t.commit_transaction(30)
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "timed-group",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    c.subscribe(["timed"])
    seen = set()
    deadline = time.monotonic() + 60
    while len(seen) < 310 and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            seen.add(int(m.value()))
    c.commit(asynchronous=False)
    c.close()
    assert seen == set(range(310))
    assert admin.list_groups(timeout=30)


def wait_until_throttled_or_quota_seen(broker, deadline_s=30):
    """Polls DescribeClientQuotas (through the CLI) until the quota is there."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        out = on(broker, "configs", "--entity-type", "clients", "--describe").ok().stdout
        if "request_percentage" in out:
            return
    raise AssertionError("the quota never showed")
