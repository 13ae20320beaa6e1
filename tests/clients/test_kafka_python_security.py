"""kafka-python (Debian's python3-kafka 2.0.2) against the SSL listener
(security_protocol="SSL": produce, consume and commit with and without a
client certificate, refusals, ssl_check_hostname against the SAN) and client
quotas (a throttled producer and consumer held to their byte rate, with the
throttle time in their metrics, beside unthrottled ones). The `clients`
fixture and its deadline are kafka_python_support.py's, as for
test_kafka_python.py.
"""
import logging
import os
import ssl
import subprocess
import threading
import time

import kafka.errors as Errors
import pytest
from kafka import TopicPartition

from kafka_python_support import (GROUP_BROKER_OVERRIDES, by_partition, create_topic,
                                  no_more_records, poll_records)
from quota_support import FETCH_SHARE, PRODUCE_SHARE, assert_share, steady_rate
from samsa_cli import on


@pytest.fixture
def quota_broker(start_broker):
    """A broker with four one-second quota samples (the client quota tests)."""
    return start_broker(overrides=QUOTA_BROKER)


# --- 7. TLS ------------------------------------------------------------------------------

# Over TLS the version probe (ApiVersions at construction) is a handshake more:
# give it longer than kafka-python's 2 s on a loaded machine.
TLS_PROBE_MS = 10000


def ssl_config(certs, client_cert=None, probe_ms=TLS_PROBE_MS, **extra):
    """kafka-python's settings for the SSL listener: trust the test CA, check the
    host name (kafka-python's default, stated), present `client_cert` ("client":
    signed by the CA, "rogue": self-signed) if given."""
    conf = {"security_protocol": "SSL", "ssl_cafile": str(certs.ca),
            "ssl_check_hostname": True, "api_version_auto_timeout_ms": probe_ms}
    if client_cert == "client":
        conf.update(ssl_certfile=str(certs.client_cert), ssl_keyfile=str(certs.client_key))
    elif client_cert == "rogue":
        conf.update(ssl_certfile=str(certs.rogue_cert), ssl_keyfile=str(certs.rogue_key))
    conf.update(extra)
    return conf


def tls_round_trip(clients, broker, conf, topic):
    """Admin, producer (acks=all, gzip; 3 KB values and two 300 KiB random ones,
    each many TLS records long) and a group consumer, all over the SSL
    listener: every record back in order, the commit seen by the admin client."""
    bs = broker.ssl_bootstrap
    admin = clients.admin(bs, **conf)
    create_topic(admin, topic, partitions=2)
    cluster = admin.describe_cluster()
    # Metadata through the SSL listener names the SSL listener.
    assert [(b["node_id"], b["host"], b["port"]) for b in cluster["brokers"]] == [
        (1, "127.0.0.1", broker.ssl_port)]
    producer = clients.producer(bs, acks="all", compression_type="gzip", linger_ms=5, **conf)
    big = [os.urandom(300 * 1024) for _ in range(2)]
    sent, futures = [], []
    for i in range(120):
        key = f"k{i}".encode()
        value = big[i // 60] if i in (7, 67) else (f"tls record {i} " * 200).encode()
        sent.append((i % 2, key, value, [("i", str(i).encode())]))
        futures.append(producer.send(topic, key=key, value=value, partition=i % 2,
                                     headers=[("i", str(i).encode())]))
    producer.flush(timeout=20)
    metas = [f.get(timeout=20) for f in futures]
    for p in (0, 1):
        # One connection, retries=0: each partition's batches are appended in
        # the order their Produce requests were sent (Kafka handles a
        # connection's requests in order), so offsets follow the sends.
        offsets = [m.offset for m in metas if m.partition == p]
        assert offsets == list(range(60)), f"partition {p}: offsets in send order {offsets}"

    group = f"{topic}-readers"
    consumer = clients.consumer(bs, topic, group_id=group, **conf)
    records = poll_records(consumer, 120, timeout=30)
    got = by_partition(records)
    for p in (0, 1):
        assert [(r.offset, r.key, r.value, list(r.headers)) for r in got[p]] == [
            (n, k, v, h) for n, (_, k, v, h) in enumerate(x for x in sent if x[0] == p)]
    assert no_more_records(consumer) == []
    consumer.commit()
    committed = admin.list_consumer_group_offsets(group)
    assert {tp: om.offset for tp, om in committed.items()} == {
        TopicPartition(topic, 0): 60, TopicPartition(topic, 1): 60}


def refused(clients, bs, conf):
    """kafka-python cannot get going through `conf`: the admin client's version
    probe (it runs at construction) fails. Returns the error: kafka-python 2.0.2
    raises a failed certificate check (ssl.SSLCertVerificationError) and an EOF
    on a connection the broker closed after the handshake (ssl.SSLEOFError) to
    its caller as they are, other failures as NoBrokersAvailable."""
    with pytest.raises((Errors.NoBrokersAvailable, Errors.UnrecognizedBrokerVersion,
                        ssl.SSLError)) as e:
        clients.admin(bs, **conf)
    return e.value


def test_produce_and_consume_over_tls(start_tls_broker, tls_certs, clients):
    b = start_tls_broker(overrides=GROUP_BROKER_OVERRIDES)
    tls_round_trip(clients, b, ssl_config(tls_certs), "over-tls")
    # A CA that did not sign the broker's certificate: refused by the client.
    e = refused(clients, b.ssl_bootstrap,
                ssl_config(tls_certs, ssl_cafile=str(tls_certs.rogue_cert), probe_ms=3000))
    assert isinstance(e, ssl.SSLCertVerificationError), repr(e)
    assert "unable to get local issuer certificate" in str(e)


def test_required_client_certificates_over_tls(start_tls_broker, tls_certs, clients):
    """ssl.client.auth=required: with the CA-signed client certificate
    kafka-python produces, consumes and commits; without one, or with a
    self-signed one, the broker refuses the handshake."""
    b = start_tls_broker(overrides=GROUP_BROKER_OVERRIDES, settings={
        "ssl.client.auth": "required", "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(tls_certs.ca)})
    tls_round_trip(clients, b, ssl_config(tls_certs, "client"), "mtls")
    assert "TLS handshake failed" not in b.log_text()
    refused(clients, b.ssl_bootstrap, ssl_config(tls_certs, probe_ms=3000))
    b.wait_for_log("TLS handshake failed: peer did not return a certificate")
    refused(clients, b.ssl_bootstrap, ssl_config(tls_certs, "rogue", probe_ms=3000))
    b.wait_for_log("TLS handshake failed: certificate verify failed")


def test_ssl_check_hostname_checks_the_san(start_tls_broker, tls_certs, clients):
    """kafka-python 2.0.2 on Python 3.11 checks the host name (here an IP
    address, matched against the certificate's IP SANs): a broker certificate
    the CA signed for another name is refused with ssl_check_hostname=True and
    accepted with False; make_certs' certificate (SAN IP:127.0.0.1) passes."""
    d = tls_certs.dir
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    "other.key", "-out", "other.csr", "-subj", "/CN=elsewhere.example"],
                   cwd=d, check=True, capture_output=True)
    (d / "other.ext").write_text("subjectAltName=DNS:elsewhere.example\n")
    subprocess.run(["openssl", "x509", "-req", "-in", "other.csr", "-CA", "ca.pem", "-CAkey",
                    "ca.key", "-CAcreateserial", "-out", "other.pem", "-days", "30",
                    "-extfile", "other.ext"], cwd=d, check=True, capture_output=True)
    keystore = d / "other-keystore.pem"
    keystore.write_text((d / "other.key").read_text() + (d / "other.pem").read_text())
    b = start_tls_broker(keystore=False, settings={"ssl.keystore.type": "PEM",
                                                   "ssl.keystore.location": str(keystore)})
    e = refused(clients, b.ssl_bootstrap, ssl_config(tls_certs, probe_ms=3000))
    assert isinstance(e, ssl.SSLCertVerificationError), repr(e)
    assert "IP address mismatch" in str(e)
    admin = clients.admin(b.ssl_bootstrap, **ssl_config(tls_certs, ssl_check_hostname=False))
    create_topic(admin, "no-hostname-check", partitions=1)
    producer = clients.producer(b.ssl_bootstrap,
                                **ssl_config(tls_certs, ssl_check_hostname=False))
    assert producer.send("no-hostname-check", b"v").get(timeout=15).offset == 0


# --- 8. client quotas ---------------------------------------------------------------------
# As tests/integration/test_client_quotas.py does for librdkafka: a 1 MiB/s quota
# on one client id, and the rate acknowledged (or polled) from 3 s to 15 s into
# the run, measured over whole waves (quota_support.py: a greedy client moves in
# waves of a few seconds, which a fixed window cuts anywhere) and held to the
# shares quota_support.py gives. kafka-python is pure Python (its
# CRC32C too, without the crc32c module): the unthrottled client need only go
# at twice the quota. kafka-python reports the broker's throttle_time_ms only
# in its metrics (produce-throttle-time-avg/max, fetch-throttle-time-avg/max,
# over two 30 s samples); it never waits one out itself (Produce v7 is a
# KIP-219 version: the broker mutes the connection and kafka-python's next
# requests wait in the socket; its Fetch v4 is older, so the broker delays the
# response instead).
QUOTA = 1048576
QUOTA_RECORD = 10 * 1024
# Four one-second samples, and consumers fetching at most 256 KiB: a throttled
# fetch is answered empty and fetched again, as from Kafka, so a fetch that is
# a large part of what the bound allows goes through only when the windows
# are nearly empty (with two samples a consumer reads at 0.6 of its quota).
QUOTA_BROKER = {"quota.window.num": 4, "quota.window.size.seconds": 1}
MEASURED_FROM, MEASURED_TO = 3.0, 15.0


def set_client_quota(broker, client_id, key):
    on(broker, "configs", "--entity-type", "clients", "--entity-name", client_id, "--alter",
       "--add-config", f"{key}={QUOTA}").ok()


def measured_rate(events):
    """Bytes per second of (seconds since the start, bytes) events in the measured
    part of the run, over whole waves (quota_support.py)."""
    return steady_rate(events, MEASURED_FROM, MEASURED_TO)


@pytest.fixture
def quiet_sends():
    """KafkaProducer.send logs each record's value at DEBUG: 10 KiB a line here,
    some hundred megabytes a run. Only those lines are left out of the log."""
    log = logging.getLogger("kafka.producer.kafka")
    saved = log.level
    log.setLevel(logging.INFO)
    yield
    log.setLevel(saved)


def run_threads(targets):
    """Runs each (name, callable) in a thread of its own; returns {name: result},
    raising the first exception one of them raised."""
    results, errors = {}, []

    def run(name, fn):
        try:
            results[name] = fn()
        except BaseException as e:  # reported in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=t, daemon=True) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_quota_holds_a_producer_to_its_byte_rate_and_not_another(quota_broker, clients,
                                                                  quiet_sends):
    """Two kafka-python producers (2 MiB of buffer, 128 KiB batches, 10 KiB
    records) sending as fast as they can for 15 s; one's client id has
    producer_byte_rate=1 MiB/s. It is acknowledged within 15% of that, and its
    metrics show the broker's throttle time; the other goes at more than twice
    the quota and was never throttled."""
    broker = quota_broker
    topic = "quota-produce"
    create_topic(clients.admin(broker.bootstrap), topic)
    slow_id, fast_id = "kp-slow-producer", "kp-fast-producer"
    set_client_quota(broker, slow_id, "producer_byte_rate")
    producers = {name: clients.producer(broker.bootstrap, client_id=name, acks=1, linger_ms=5,
                                        batch_size=128 * 1024, buffer_memory=2 * 1048576)
                 for name in (slow_id, fast_id)}
    value = b"x" * QUOTA_RECORD
    start = time.monotonic()

    def produce(producer):
        events, failed = [], []

        def delivered(_):
            events.append((time.monotonic() - start, QUOTA_RECORD))

        while time.monotonic() - start < MEASURED_TO:
            producer.send(topic, value=value).add_callback(delivered).add_errback(failed.append)
        producer.flush(timeout=30)
        assert not failed, failed[:3]
        return events, producer.metrics()["producer-metrics"]

    results = run_threads([(name, lambda p=p: produce(p)) for name, p in producers.items()])
    (slow, slow_metrics), (fast, fast_metrics) = results[slow_id], results[fast_id]
    slow_rate, fast_rate = measured_rate(slow), measured_rate(fast)
    throttle = {name: {k: m[k] for k in ("produce-throttle-time-avg", "produce-throttle-time-max")}
                for name, m in ((slow_id, slow_metrics), (fast_id, fast_metrics))}
    print(f"kafka-python produce: throttled {slow_rate / QUOTA:.3f}x the quota, unthrottled "
          f"{fast_rate / QUOTA:.2f}x; {throttle}")
    # (The quota counts the request's framing too.)
    assert_share(slow_rate, QUOTA, PRODUCE_SHARE, throttle)
    assert fast_rate >= 2 * QUOTA, (fast_rate / QUOTA, throttle)
    assert throttle[slow_id]["produce-throttle-time-max"] > 0, throttle
    assert throttle[slow_id]["produce-throttle-time-avg"] > 0, throttle
    assert throttle[fast_id]["produce-throttle-time-max"] == 0, throttle


def test_quota_holds_a_consumer_to_its_byte_rate_and_not_another(quota_broker, clients,
                                                                  quiet_sends):
    """A topic of 2000 records of 10 KiB (20 MiB, more than the throttled consumer
    can read in the run), then two kafka-python consumers (no group) from the
    beginning; one's client id has consumer_byte_rate=1 MiB/s. It is handed
    records at no more than that rate (FETCH_SHARE), and its metrics show the broker's throttle
    time; the other reads everything at more than twice the quota and was never
    throttled."""
    broker = quota_broker
    topic, records = "quota-fetch", 2000
    create_topic(clients.admin(broker.bootstrap), topic)
    filler = clients.producer(broker.bootstrap, acks=1, linger_ms=20, batch_size=512 * 1024)
    for _ in range(records):
        filler.send(topic, value=b"y" * QUOTA_RECORD)
    filler.flush(timeout=30)
    tp = TopicPartition(topic, 0)
    assert clients.consumer(broker.bootstrap, group_id=None).end_offsets([tp]) == {tp: records}
    slow_id, fast_id = "kp-slow-consumer", "kp-fast-consumer"
    set_client_quota(broker, slow_id, "consumer_byte_rate")
    consumers = {}
    for name in (slow_id, fast_id):
        consumers[name] = clients.consumer(broker.bootstrap, group_id=None, client_id=name,
                                           max_partition_fetch_bytes=262144,
                                           fetch_max_bytes=262144)
        consumers[name].assign([tp])
    start = time.monotonic()

    def consume(consumer, seconds):
        events, got = [], 0
        while time.monotonic() - start < seconds and got < records * QUOTA_RECORD:
            for batch in consumer.poll(timeout_ms=200).values():
                for r in batch:
                    got += len(r.value)
                    events.append((time.monotonic() - start, len(r.value)))
        return events, got, consumer.metrics()["consumer-fetch-manager-metrics"]

    results = run_threads([(slow_id, lambda: consume(consumers[slow_id], MEASURED_TO)),
                           (fast_id, lambda: consume(consumers[fast_id], 45))])
    slow, _, slow_metrics = results[slow_id]
    fast, fast_got, fast_metrics = results[fast_id]
    slow_rate = measured_rate(slow)
    fast_seconds = fast[-1][0]
    fast_rate = fast_got / fast_seconds
    throttle = {name: {k: m[k] for k in ("fetch-throttle-time-avg", "fetch-throttle-time-max")}
                for name, m in ((slow_id, slow_metrics), (fast_id, fast_metrics))}
    print(f"kafka-python fetch: throttled {slow_rate / QUOTA:.3f}x the quota, unthrottled "
          f"{fast_rate / QUOTA:.2f}x ({fast_seconds:.1f} s for all); {throttle}")
    assert_share(slow_rate, QUOTA, FETCH_SHARE, throttle)
    assert fast_got == records * QUOTA_RECORD
    assert fast_rate >= 2 * QUOTA, (fast_rate / QUOTA, throttle)
    assert throttle[slow_id]["fetch-throttle-time-max"] > 0, throttle
    assert throttle[slow_id]["fetch-throttle-time-avg"] > 0, throttle
    assert throttle[fast_id]["fetch-throttle-time-max"] == 0, throttle
