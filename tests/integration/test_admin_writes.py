"""The admin API's writes (metrics.listener.admin.writes.enable): refused by
default; when enabled, each is the Kafka request it stands for, checked
here with confluent-kafka's and kafka-python's view of the result."""
import json
import urllib.error
import urllib.request

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def call(broker, method, path, body=None, content_type="application/json"):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(broker.metrics_url + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_writes_are_refused_unless_enabled(broker):
    status, body = call(broker, "POST", "/v1/topics", {"name": "never-made"})
    assert status == 403 and body["error"] == "WRITES_DISABLED"
    assert "metrics.listener.admin.writes.enable" in body["message"]
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=15)
    assert "never-made" not in md.topics


def test_create_and_delete_a_topic_as_clients_then_see_it(start_broker):
    b = start_broker(overrides={"metrics.listener.admin.writes.enable": "true"})
    status, body = call(b, "POST", "/v1/topics",
                        {"name": "made-over-http", "partitions": 3,
                         "configs": {"retention.ms": "3600000"}})
    assert status == 201, body
    assert body["partitions"] == 3 and body["replication_factor"] == 1
    a = AdminClient({"bootstrap.servers": b.bootstrap})
    md = a.list_topics(timeout=15)
    assert len(md.topics["made-over-http"].partitions) == 3
    # The same refusals as CreateTopics: it exists already; a bad config.
    status, body = call(b, "POST", "/v1/topics", {"name": "made-over-http"})
    assert status == 409 and body["error"] == "TOPIC_ALREADY_EXISTS"
    status, body = call(b, "POST", "/v1/topics",
                        {"name": "bad-config", "configs": {"retention.ms": "soon"}})
    assert status == 400 and body["error"] == "INVALID_CONFIG", body
    # A body that is not JSON is refused before anything runs.
    status, body = call(b, "POST", "/v1/topics", {"name": "x"}, content_type="text/plain")
    assert status == 415
    status, body = call(b, "DELETE", "/v1/topics/made-over-http")
    assert status == 200 and body["deleted"] is True
    status, body = call(b, "DELETE", "/v1/topics/made-over-http")
    assert status == 404 and body["error"] == "UNKNOWN_TOPIC_OR_PARTITION"


def test_reset_a_groups_offsets_and_a_consumer_starts_there(start_broker):
    b = start_broker(overrides={"metrics.listener.admin.writes.enable": "true",
                                "offsets.topic.replication.factor": "1"})
    a = AdminClient({"bootstrap.servers": b.bootstrap})
    a.create_topics([NewTopic("reset-me", num_partitions=1,
                              replication_factor=1)])["reset-me"].result(30)
    p = Producer({"bootstrap.servers": b.bootstrap})
    for i in range(10):
        p.produce("reset-me", value=b"%d" % i)
    assert p.flush(30) == 0
    status, body = call(b, "POST", "/v1/groups/resetters/offsets",
                        {"topic": "reset-me", "to": 4})
    assert status == 200, body
    assert body["partitions"] == [{"partition": 0, "offset": 4, "error": None}]
    # Beyond the end: the end, as kafka-consumer-groups --to-offset does.
    status, body = call(b, "POST", "/v1/groups/resetters/offsets",
                        {"topic": "reset-me", "to": 1000})
    assert status == 200 and body["partitions"][0]["offset"] == 10
    status, body = call(b, "POST", "/v1/groups/resetters/offsets",
                        {"topic": "reset-me", "to": "earliest", "partitions": [0]})
    assert status == 200 and body["partitions"][0]["offset"] == 0
    status, body = call(b, "POST", "/v1/groups/resetters/offsets",
                        {"topic": "reset-me", "to": 7})
    assert status == 200
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "resetters",
                  "enable.auto.commit": False})
    committed = c.committed([TopicPartition("reset-me", 0)], timeout=15)
    assert committed[0].offset == 7
    c.subscribe(["reset-me"])
    first = None
    for _ in range(60):
        m = c.poll(1.0)
        if m is not None and not m.error():
            first = m
            break
    assert first is not None and first.offset() == 7 and first.value() == b"7"
    # While the group has a member, a reset is refused, as Kafka refuses it.
    status, body = call(b, "POST", "/v1/groups/resetters/offsets",
                        {"topic": "reset-me", "to": "earliest"})
    assert status == 409 and body["error"] == "UNKNOWN_MEMBER_ID", body
    c.close()


def test_set_a_loggers_level(start_broker):
    b = start_broker(overrides={"metrics.listener.admin.writes.enable": "true"})
    status, body = call(b, "PUT", "/v1/loggers/kafka.log.LogCleaner", {"level": "DEBUG"})
    assert status == 200, body
    status, body = call(b, "GET", "/v1/loggers")
    levels = {l["name"]: l["level"] for l in body["loggers"]}
    assert levels["kafka.log.LogCleaner"] == "DEBUG"
    status, body = call(b, "PUT", "/v1/loggers/kafka.log.LogCleaner", {"level": "LOUD"})
    assert status == 400 and body["error"] == "INVALID_CONFIG", body
    # A method the path does not serve: 405, naming those it does.
    req = urllib.request.Request(b.metrics_url + "/v1/topics", method="PATCH")
    try:
        urllib.request.urlopen(req, timeout=30)
        assert False, "PATCH was served"
    except urllib.error.HTTPError as e:
        assert e.code == 405 and set(e.headers["Allow"].split(", ")) == {"GET", "POST"}


def test_with_an_authorizer_a_write_signs_in_and_runs_as_that_user():
    import base64
    from test_acls import acl_broker
    b = acl_broker({"metrics.listener.admin.writes.enable": "true"})
    try:
        b.start()

        def as_user(user, password):
            req = urllib.request.Request(b.metrics_url + "/v1/topics", method="POST",
                                         data=json.dumps({"name": "signed"}).encode())
            req.add_header("Content-Type", "application/json")
            if user:
                token = base64.b64encode(f"{user}:{password}".encode()).decode()
                req.add_header("Authorization", "Basic " + token)
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    return r.status, json.loads(r.read()), r.headers
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read()), e.headers

        status, body, headers = as_user(None, None)
        assert status == 401 and headers["WWW-Authenticate"].startswith("Basic")
        status, body, _ = as_user("alice", "wrong")
        assert status == 401 and body["error"] == "SASL_AUTHENTICATION_FAILED"
        # alice signs in but no ACL lets her create topics.
        status, body, _ = as_user("alice", "alice-secret")
        assert status == 403 and body["error"] == "TOPIC_AUTHORIZATION_FAILED", body
        status, body, _ = as_user("admin", "admin-secret")
        assert status == 201, body
    finally:
        b.cleanup()
