"""kafkajs (npm, pure JavaScript) against the broker's security and quotas:
the SSL listener with and without client certificates, ACLs created,
described, enforced and deleted, SASL/SCRAM sign-in and re-authentication
(KIP-368), and client quotas (a throttled producer and consumer held to their
byte rate beside unthrottled ones). The runner is kafkajs_support.py's.
"""
import re

import pytest

from acl_support import denials
from kafkajs_support import GROUP_BROKER, run_scenario
from quota_support import FETCH_SHARE, PRODUCE_SHARE, assert_share, steady_rate
from samsa_cli import on
from samsa_harness import Broker, free_ports, port_accepts, wait_until


# --- 7. TLS ---------------------------------------------------------------------------
def tls_args(certs, cert=None):
    """The scenario's TLS arguments: trust the test CA; present `cert` ("client":
    signed by that CA, "rogue": self-signed) if given."""
    args = {"ca": str(certs.ca)}
    if cert == "client":
        args.update(cert=str(certs.client_cert), key=str(certs.client_key))
    elif cert == "rogue":
        args.update(cert=str(certs.rogue_cert), key=str(certs.rogue_key))
    return args


def check_tls_round_trip(r, broker):
    """What the `tls` scenario observed: the broker's certificate as made by
    make_certs, the SSL listener in Metadata, and every message back."""
    assert r["peer"]["authorized"] is True
    assert (r["peer"]["subject"], r["peer"]["issuer"]) == ("localhost", "samsa-test-ca")
    assert "IP Address:127.0.0.1" in r["peer"]["subjectaltname"]
    assert r["peer"]["protocol"] in ("TLSv1.2", "TLSv1.3")
    # Metadata through the SSL listener names the SSL listener (kafkajs then
    # talks TLS to that address: a plaintext port there would fail the rest).
    assert r["brokers"] == [{"nodeId": 1, "host": "127.0.0.1", "port": broker.ssl_port}]
    assert r["sends"] == [
        [{"partition": 0, "errorCode": 0, "baseOffset": 0}],
        [{"partition": 1, "errorCode": 0, "baseOffset": 0}],
        [{"partition": 0, "errorCode": 0, "baseOffset": 50}],
        [{"partition": 1, "errorCode": 0, "baseOffset": 20}],
    ]
    assert r["watermarks"] == {"0": {"low": 0, "high": 53}, "1": {"low": 0, "high": 23}}
    expected, received = r["expected"], r["received"]
    assert len(received) == len(expected) == 76
    for p, n in ((0, 53), (1, 23)):
        have = [m for m in received if m["partition"] == p]
        assert [m["offset"] for m in have] == list(range(n))
        assert [{k: v for k, v in m.items() if k != "offset"} for m in have] == \
            [m for m in expected if m["partition"] == p]
    sizes = sorted(m["value"]["len"] for m in received if isinstance(m["value"], dict))
    assert sizes == [40 * 1024] * 4 + [600 * 1024] * 2


def test_produce_and_consume_over_tls(kafkajs_modules, start_tls_broker, tls_certs):
    """kafkajs with `ssl: {ca}` on the SSL listener: a group consumer reads back
    what it produced (none and gzip; 40 KiB and 600 KiB random values, each
    many TLS records long)."""
    broker = start_tls_broker(overrides=GROUP_BROKER)
    r = run_scenario(kafkajs_modules, broker, "tls", tls_args(tls_certs),
                     bootstrap=broker.ssl_bootstrap)
    check_tls_round_trip(r, broker)


def test_required_client_certificate_over_tls(kafkajs_modules, start_tls_broker, tls_certs):
    """ssl.client.auth=required: kafkajs without a certificate, or with one no
    trusted CA signed, cannot connect (with retries off it fails within the
    connection timeout rather than retrying); with the CA-signed client
    certificate it produces and consumes."""
    broker = start_tls_broker(overrides=GROUP_BROKER, settings={
        "ssl.client.auth": "required", "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(tls_certs.ca)})
    # The TLS alert the broker sends, as Node's OpenSSL names it, and the
    # reason the broker logs.
    for cert, alert, reason in (
            (None, "alert certificate required", "peer did not return a certificate"),
            ("rogue", "alert unknown ca", "certificate verify failed")):
        r = run_scenario(kafkajs_modules, broker, "tls-refused", tls_args(tls_certs, cert),
                         bootstrap=broker.ssl_bootstrap, name=f"kjs-refused-{cert}")
        assert r["refused"] is True, (cert, r)
        assert r["errorName"].startswith("KafkaJS") and alert in r["error"], (cert, r)
        assert r["ms"] < 20000, (cert, r)
        broker.wait_for_log(f"TLS handshake failed: {reason}")
    r = run_scenario(kafkajs_modules, broker, "tls", tls_args(tls_certs, "client"),
                     bootstrap=broker.ssl_bootstrap)
    check_tls_round_trip(r, broker)



# --- 8. ACLs --------------------------------------------------------------------------
def acl(resource_type, name, pattern, principal, operation, permission):
    """An ACL as the `acls` scenario reports it (kafkajs' names for the enums)."""
    return {"resourceType": resource_type, "resourceName": name, "patternType": pattern,
            "principal": principal, "host": "*", "operation": operation,
            "permissionType": permission}


def protocol_error(error_type, code, message):
    """A KafkaJSProtocolError as kafkajs raises it for a broker's error code."""
    return {"name": "KafkaJSProtocolError", "type": error_type, "code": code,
            "retriable": False, "message": message}


def test_acls_create_describe_enforce_delete(kafkajs_modules, start_acl_broker):
    """kafkajs signed in with SASL/PLAIN to a broker with the StandardAuthorizer.
    admin (a super user) creates ACLs (CreateAcls v1) and describes them with
    filters by principal, by PREFIXED pattern, by MATCH on a topic's name and
    by operation (DescribeAcls v1). alice may not write to the topic until a
    PREFIXED WRITE covers it, nor join the group until READ on it is granted
    (FindCoordinator passes on a PREFIXED DESCRIBE), then reads her records
    back; she may not create, describe or delete ACLs. Deleting her ACLs
    (DeleteAcls v1) answers the ones deleted, and she is refused again. Each
    change is waited for in DescribeAcls (the broker applies it from its
    metadata image), then the client step runs once."""
    broker = start_acl_broker()
    r = run_scenario(kafkajs_modules, broker, "acls", bootstrap=broker.sasl_bootstrap,
                     timeout=150)
    topic, group, prefix = "kjs-acls-orders", "kjs-acls-g", "kjs-acls-"
    read_topic = acl("TOPIC", topic, "LITERAL", "User:alice", "READ", "ALLOW")
    describe_groups = acl("GROUP", prefix, "PREFIXED", "User:alice", "DESCRIBE", "ALLOW")
    deny_carol = acl("TOPIC", prefix, "PREFIXED", "User:carol", "ALL", "DENY")
    write_prefix = acl("TOPIC", "kjs-acls-ord", "PREFIXED", "User:alice", "WRITE", "ALLOW")
    read_group = acl("GROUP", group, "LITERAL", "User:alice", "READ", "ALLOW")

    # (The scenario sorts every list of ACLs by its JSON.)
    assert r["createAcls"] is True
    assert r["describeAll"] == [describe_groups, deny_carol, read_topic]
    assert r["describeAlice"] == [describe_groups, read_topic]
    assert r["describePrefixed"] == [describe_groups, deny_carol]
    assert r["describeMatch"] == [deny_carol, read_topic]
    assert r["describeGroupRead"] == [read_group]

    topic_refused = protocol_error("TOPIC_AUTHORIZATION_FAILED", 29,
                                   "Not authorized to access topics: [Topic authorization failed]")
    assert r["produceRefused"] == topic_refused
    assert r["produced"] == {"ok": True, "baseOffset": 0, "errorCode": 0}
    assert r["consumeRefused"] == protocol_error(
        "GROUP_AUTHORIZATION_FAILED", 30,
        "Not authorized to access group: Group authorization failed")
    assert r["consumed"] == [{"partition": 0, "offset": i, "value": f"a{i}"} for i in range(3)]
    assert r["committed"] == [{"partition": 0, "offset": 3}]

    cluster_refused = protocol_error("CLUSTER_AUTHORIZATION_FAILED", 31,
                                     "Cluster authorization failed")
    assert r["aliceCreateAcls"] == cluster_refused
    assert r["aliceDescribeAcls"] == cluster_refused
    assert r["aliceDeleteAcls"] == cluster_refused
    assert r["describeAfterAlice"] == [describe_groups, read_group, deny_carol, write_prefix,
                                       read_topic]

    assert r["deleteAcls"] == [{"errorCode": 0, "errorMessage": None, "matching": [
        {"errorCode": 0, **a} for a in (describe_groups, read_group, write_prefix, read_topic)]}]
    assert r["describeAfterDelete"] == [deny_carol]
    # A new producer's Metadata no longer shows alice the topic (kafkajs' retrier
    # wraps the error); nor does her consumer's subscribe.
    assert r["produceAfterDelete"] == {"name": "KafkaJSNonRetriableError",
                                       "message": topic_refused["message"], "retriable": False,
                                       "cause": topic_refused}
    assert r["consumeAfterDelete"] == topic_refused
    # FindCoordinator for the group answers GROUP_AUTHORIZATION_FAILED (the
    # broker's log below); kafkajs reports every FindCoordinator failure so.
    assert r["fetchOffsetsAfterDelete"] == {"name": "KafkaJSGroupCoordinatorNotFound",
                                            "message": "Failed to find group coordinator",
                                            "retriable": False}
    assert r["watermarks"] == {"0": {"low": 0, "high": 3}}

    # Every refusal, in order, as the broker logged it.
    last = ("User:alice", "DESCRIBE", f"GROUP:{group}", "FindCoordinator")
    assert denials(broker, last) == [
        ("User:alice", "WRITE", f"TOPIC:{topic}", "Produce"),
        ("User:alice", "READ", f"GROUP:{group}", "JoinGroup"),
        ("User:alice", "ALTER", "CLUSTER:kafka-cluster", "CreateAcls"),
        ("User:alice", "DESCRIBE", "CLUSTER:kafka-cluster", "DescribeAcls"),
        ("User:alice", "ALTER", "CLUSTER:kafka-cluster", "DeleteAcls"),
        ("User:alice", "DESCRIBE", f"TOPIC:{topic}", "Metadata"),  # producer, then consumer
        last,
    ]


# --- 9. SASL/SCRAM and re-authentication (KIP-368) ------------------------------------
SCRAM_REAUTH_MS = 2500
SCRAM_USERS = {"alice": {"mechanism": "scram-sha-512", "password": "alice-secret"},
               "bob": {"mechanism": "scram-sha-256", "password": "bob-secret"}}
SCRAM_FAILED = ("Authentication failed during authentication due to invalid credentials with "
                "SASL mechanism SCRAM-SHA-512")
SASL_AUTHENTICATION_FAILED = 58


@pytest.fixture
def scram_broker(samsa_binary):
    """A one-node broker with PLAINTEXT, SASL_PLAINTEXT (SCRAM-SHA-256 and -512)
    and CONTROLLER listeners; SCRAM-SHA-512 sessions on the SASL listener last
    SCRAM_REAUTH_MS, SCRAM-SHA-256 ones never end. Its users are made with
    `samsa configs` over the PLAINTEXT listener: alice (SCRAM-SHA-512) and bob
    (SCRAM-SHA-256)."""
    # All three ports in one call (two calls may hand out the same port).
    port, controller_port, sasl_port = free_ports(3)
    b = Broker(binary=samsa_binary, port=port)
    b.controller_port, b.sasl_port = controller_port, sasl_port
    b.sasl_bootstrap = f"127.0.0.1:{sasl_port}"
    b.extra_properties.update({
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port},"
                     f"CONTROLLER://127.0.0.1:{controller_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "CONTROLLER:PLAINTEXT",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms":
            str(SCRAM_REAUTH_MS),
        "offsets.topic.replication.factor": "1",
        "group.initial.rebalance.delay.ms": "0",
    })
    b._write_properties()
    try:
        b.start()
        wait_until(lambda: port_accepts("127.0.0.1", sasl_port), 20,
                   f"the SASL_PLAINTEXT listener on {b.sasl_bootstrap}")
        for user, u in SCRAM_USERS.items():
            on(b, "configs", "--alter", "--entity-type", "users", "--entity-name", user,
               "--add-config",
               f"{u['mechanism'].upper()}=[iterations=8192,password={u['password']}]").ok()
        yield b
    finally:
        b.cleanup()


def sasl_failures(broker):
    """(mechanism, reason) of every event=sasl_authentication_failed the broker logged."""
    return re.findall(r'event=sasl_authentication_failed .*?mechanism=(\S+) reason="([^"]*)"',
                      broker.log_text())


def test_scram_sign_in_and_re_authentication(kafkajs_modules, scram_broker):
    """kafkajs with SASL/SCRAM on a listener whose SCRAM-SHA-512 sessions last
    2.5 s (listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms).
    alice (SCRAM-SHA-512) produces for 7 s, a send of five every few ms, while
    a group consumer of hers reads: the broker gives each session its lifetime
    in SaslAuthenticate v1, and kafkajs re-authenticates every busy connection
    on its own (reauthenticationThreshold 1250 ms: from 1.25 s into a session),
    several times over, without a request on an expired session, an error, or
    the broker closing a connection; the consumer is handed every record once,
    in order. bob (SCRAM-SHA-256, sessions without end) produces and consumes
    and never re-authenticates. A wrong password, an unknown user and a
    mechanism bob has no credential for are refused with
    KafkaJSSASLAuthenticationError. The scenario watches every socket's frames
    (scenarios.js' socketWatcher)."""
    broker = scram_broker
    r = run_scenario(kafkajs_modules, broker, "scram", {
        "users": SCRAM_USERS, "lifetimeMs": SCRAM_REAUTH_MS, "reauthThresholdMs": 1250,
        "produceMs": 7000, "pauseMs": 5}, bootstrap=broker.sasl_bootstrap, timeout=150)
    sockets = r["sockets"]
    assert all(s["parseErrors"] == [] for s in sockets), sockets

    # alice: every record once, in order, and no send failed.
    a = r["alice"]
    assert a["producedMs"] >= 7000 and a["sends"] * 5 == a["produced"] > 0, a
    assert a["sendErrors"] == [], a
    assert a["baseOffsetsInOrder"] is True, a
    assert (a["received"], a["misplaced"]) == (a["produced"], []), a
    assert a["watermarks"] == {"0": {"low": 0, "high": a["produced"]}}
    assert (a["joins"], a["consumerCrash"]) == (1, None), a

    # alice's sockets: every session the broker opened lasts 2.5 s, and kafkajs
    # never sent a request in one older than that; the broker closed none.
    alice = [s for s in sockets if s["label"].startswith("alice-")]
    assert {s["label"] for s in alice} == {"alice-admin", "alice-consumer", "alice-producer"}
    for s in alice:
        assert s["sessions"], s
        assert (s["closedByBroker"], s["saslErrors"]) == (False, []), s
        assert all(x["lifetimeMs"] == SCRAM_REAUTH_MS for x in s["sessions"]), s
        assert all(x["maxAgeMs"] < SCRAM_REAUTH_MS for x in s["sessions"]), s
        # one SaslHandshake v1 and two SaslAuthenticate v1 per session
        assert s["apis"]["SaslHandshake v1"] == len(s["sessions"]), s
        assert s["apis"]["SaslAuthenticate v1"] == 2 * len(s["sessions"]), s

    def busiest(api):
        """alice's socket that sent the most `api` requests."""
        return max(alice, key=lambda s: sum(n for k, n in s["apis"].items()
                                            if k.startswith(api + " ")))
    # Over 7 s, a session re-authenticated from 1.25 s in: about five times on
    # the producer's connection and the consumer's fetch connection; at least
    # three on each, with requests in every session.
    for api, label in (("Produce", "alice-producer"), ("Fetch", "alice-consumer")):
        s = busiest(api)
        assert s["label"] == label, s
        assert len(s["sessions"]) - 1 >= 3, s
        assert all(x["requests"] > 0 for x in s["sessions"]), s
    assert sum(len(s["sessions"]) - 1 for s in alice) >= 6

    # bob: his round trip, and one session per connection, without end.
    assert r["bob"] == {"baseOffset": 0,
                        "received": [[0, i, f"bob-{i}"] for i in range(10)]}
    bob = [s for s in sockets if s["label"] == "bob"]
    assert bob
    for s in bob:
        assert (s["closedByBroker"], s["saslErrors"]) == (False, []), s
        assert [x["lifetimeMs"] for x in s["sessions"]] == [0], s
        assert s["apis"]["SaslHandshake v1"] == 1, s

    # Refused sign-ins: the broker's SASL_AUTHENTICATION_FAILED, once, and
    # kafkajs' KafkaJSSASLAuthenticationError (at once: it does not retry that).
    refused_sockets = {}
    for key, label in (("wrongPassword", "wrong-password"), ("unknownUser", "unknown-user"),
                       ("wrongMechanism", "wrong-mechanism")):
        e = r[key]
        assert e["refused"] is True, (key, e)
        assert "KafkaJSSASLAuthenticationError" in e["names"], (key, e)
        assert SCRAM_FAILED in e["message"] or SCRAM_FAILED in str(e.get("cause")), (key, e)
        assert e["ms"] < 20000, (key, e)
        refused_sockets[key] = [s for s in sockets if s["label"] == label]
        assert [(s["saslErrors"], s["sessions"]) for s in refused_sockets[key]] == [
            ([{"errorCode": SASL_AUTHENTICATION_FAILED, "errorMessage": SCRAM_FAILED}], [])
        ], (key, refused_sockets[key])

    # The broker's log: every failure was a SCRAM-SHA-512 sign-in with bad
    # credentials (the three above, and any sign-in before the listener knew
    # the users), and no session of alice's (nor anyone's) expired.
    failures = sasl_failures(broker)
    assert len(failures) >= 3
    assert set(failures) <= {("SCRAM-SHA-512", SCRAM_FAILED),
                             ("SCRAM-SHA-256", SCRAM_FAILED.replace("512", "256"))}, failures
    log = broker.log_text()
    assert "event=sasl_session_expired" not in log, \
        [ln for ln in log.splitlines() if "sasl_session_expired" in ln]
    assert "SASL session expired" not in log
    # ... nor did it close any connection but those of the failed sign-ins.
    closes = re.findall(r'event=connection_closed .*?reason="([^"]*)"', log)
    assert set(closes) <= {"SASL authentication failed"}, closes


def test_scram_session_expires_without_re_authentication(kafkajs_modules, scram_broker):
    """The other side of the test above: a kafkajs that never re-authenticates
    (reauthenticationThreshold of minus an hour) sends again once alice's
    SCRAM-SHA-512 session is older than its 2.5 s. The broker closes that
    connection instead of serving the request (event=sasl_session_expired,
    principal User:alice), and kafkajs' retry sends the record again on a new
    connection, in a new session: it lands once, after the first."""
    broker = scram_broker
    r = run_scenario(kafkajs_modules, broker, "scram-expiry",
                     {"users": SCRAM_USERS, "lifetimeMs": SCRAM_REAUTH_MS},
                     bootstrap=broker.sasl_bootstrap, timeout=90)
    assert (r["first"], r["second"]) == (0, 1), r
    producing = [s for s in r["sockets"] if any(k.startswith("Produce ") for k in s["apis"])]
    assert [(s["closedByBroker"], len(s["sessions"])) for s in producing] == [
        (True, 1), (False, 1)], producing
    assert all(x["lifetimeMs"] == SCRAM_REAUTH_MS for s in producing for x in s["sessions"])
    line = broker.wait_for_log("event=sasl_session_expired")
    assert "principal=User:alice" in line and "listener=SASL_PLAINTEXT" in line, line
    broker.wait_for_log('reason="SASL session expired (connections.max.reauth.ms)"')


# --- 10. client quotas ----------------------------------------------------------------
# As tests/integration/test_client_quotas.py does for librdkafka: a 1 MiB/s quota
# on one client id, and the rate acknowledged (or handed to the application)
# from 3 s to 15 s into the run, measured over whole waves (quota_support.py: a
# throttled consumer is handed a few fetches at once and then nothing for
# seconds, a producer is acknowledged some 1.5 MiB at once about every 2.5 s,
# and a fixed window cuts such waves anywhere) and held to the shares
# quota_support.py gives.
QUOTA = 1048576
QUOTA_RECORD = 10 * 1024
# Four one-second samples, and consumers fetching at most 256 KiB (see
# test_kafka_python.py's QUOTA_BROKER: a throttled fetch is answered empty).
QUOTA_BROKER = {"quota.window.num": 4, "quota.window.size.seconds": 1}
MEASURED_FROM_MS, MEASURED_TO_MS = 3000, 15000


def set_client_quota(broker, client_id, key):
    on(broker, "configs", "--entity-type", "clients", "--entity-name", client_id, "--alter",
       "--add-config", f"{key}={QUOTA}").ok()


def throttle_summary(client):
    """A scenario's report on one client without its events."""
    return {k: v for k, v in client.items() if k != "events"}


def measured_rate(events):
    """Bytes per second of a scenario's [ms since its start, bytes] events in the
    measured part of the run, over whole waves (quota_support.py)."""
    return steady_rate([(t / 1000, n) for t, n in events], MEASURED_FROM_MS / 1000,
                       MEASURED_TO_MS / 1000)


def test_quota_holds_a_producer_to_its_byte_rate_and_not_another(kafkajs_modules, start_broker):
    """Two kafkajs producers on one broker for 15 s, each with four sends of ten
    10 KiB records in flight at a time; one's client id has
    producer_byte_rate=1 MiB/s. It is acknowledged within 15% of that, and
    kafkajs took the broker's throttle_time_ms (it holds the connection's next
    requests that long, and logs it at DEBUG; kafkajs has no instrumentation
    event for a throttle). The other goes at more than three times the quota,
    never throttled."""
    broker = start_broker(overrides=QUOTA_BROKER)
    slow_id, fast_id = "kjs-slow-producer", "kjs-fast-producer"
    set_client_quota(broker, slow_id, "producer_byte_rate")
    r = run_scenario(kafkajs_modules, broker, "quota-produce", {
        "clients": [slow_id, fast_id], "seconds": MEASURED_TO_MS / 1000, "concurrency": 4,
        "batch": 10, "recordBytes": QUOTA_RECORD})
    slow, fast = r[slow_id], r[fast_id]
    slow_rate, fast_rate = measured_rate(slow["events"]), measured_rate(fast["events"])
    print(f"kafkajs produce: throttled {slow_rate / QUOTA:.3f}x the quota "
          f"({slow['throttles']} throttles, max {slow['maxThrottleMs']} ms, max pending "
          f"{slow['maxPendingMs']} ms), unthrottled {fast_rate / QUOTA:.2f}x")
    # (The quota counts the request's framing too.)
    assert_share(slow_rate, QUOTA, PRODUCE_SHARE, throttle_summary(slow))
    assert fast_rate >= 3 * QUOTA, fast_rate / QUOTA
    # kafkajs waited them out: later requests sat in its queue.
    assert slow["throttles"] > 0 and slow["maxThrottleMs"] > 0, throttle_summary(slow)
    assert slow["maxPendingMs"] > 0, throttle_summary(slow)
    assert fast["throttles"] == 0, throttle_summary(fast)


def test_quota_holds_a_consumer_to_its_byte_rate_and_not_another(kafkajs_modules, start_broker):
    """A topic of 2000 records of 10 KiB (20 MiB, more than the throttled consumer
    can read in the run), then two kafkajs group consumers from the beginning;
    one's client id has consumer_byte_rate=1 MiB/s. It is handed records at no
    more than that rate (FETCH_SHARE) and took the broker's throttle_time_ms (Fetch v11); the
    other reads everything at more than three times the quota, never throttled."""
    broker = start_broker(overrides={**GROUP_BROKER, **QUOTA_BROKER})
    slow_id, fast_id = "kjs-slow-consumer", "kjs-fast-consumer"
    set_client_quota(broker, slow_id, "consumer_byte_rate")
    records = 2000
    r = run_scenario(kafkajs_modules, broker, "quota-fetch", {
        "clients": [slow_id, fast_id], "seconds": MEASURED_TO_MS / 1000, "records": records,
        "recordBytes": QUOTA_RECORD}, timeout=90)
    slow, fast = r[slow_id], r[fast_id]
    slow_rate = measured_rate(slow["events"])
    fast_seconds = fast["events"][-1][0] / 1000
    fast_rate = fast["bytes"] / fast_seconds
    print(f"kafkajs fetch: throttled {slow_rate / QUOTA:.3f}x the quota "
          f"({slow['throttles']} throttles, max {slow['maxThrottleMs']} ms, max pending "
          f"{slow['maxPendingMs']} ms), unthrottled {fast_rate / QUOTA:.2f}x "
          f"({fast_seconds:.1f} s for all)")
    assert_share(slow_rate, QUOTA, FETCH_SHARE, throttle_summary(slow))
    assert (fast["count"], fast["bytes"]) == (records, records * QUOTA_RECORD)
    assert fast_rate >= 3 * QUOTA, fast_rate / QUOTA
    # kafkajs waited them out: later requests sat in its queue.
    assert slow["throttles"] > 0 and slow["maxThrottleMs"] > 0, throttle_summary(slow)
    assert slow["maxPendingMs"] > 0, throttle_summary(slow)
    assert fast["throttles"] == 0, throttle_summary(fast)
