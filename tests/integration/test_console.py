"""The web console in headless Chromium (Debian's chromium and chromedriver,
driven by selenium): every page loads with no console error, a record
produced with confluent-kafka shows in the message browser as text, JSON and
hex, and a group's lag shows the number the group really has. Screenshots
go to $SAMSA_ARTIFACTS_DIR (or the test's temp dir)."""
import time

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from console_support import LOAD_S, artifacts, browser, console_errors, open_page  # noqa: F401


@pytest.fixture
def broker(start_broker):
    return start_broker(overrides={"offsets.topic.replication.factor": 1})


def create(broker, topic, partitions=1):
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    a.create_topics([NewTopic(topic, num_partitions=partitions,
                              replication_factor=1)])[topic].result(30)


def test_every_page_loads_without_a_console_error(broker, browser, artifacts):
    create(broker, "console-pages", partitions=2)
    for fragment, css in [("", "#cluster-id"), ("topics", "#topics"),
                          ("topics/console-pages", "#record-table"), ("groups", "#groups"),
                          ("brokers", "#brokers"), ("quorum", ".card"),
                          ("configs", "#loggers")]:
        open_page(browser, broker, fragment, css)
        browser.save_screenshot(str(artifacts / f"{fragment.replace('/', '_') or 'overview'}.png"))
        # Read-only by default: no page offers a write.
        assert not browser.find_elements(By.CSS_SELECTOR, "form.write, #delete-topic, select.level")
    # The overview names this cluster and broker as the protocol does.
    open_page(browser, broker, "", "#cluster-id")
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=15)
    assert browser.find_element(By.ID, "cluster-id").text == md.cluster_id
    # The configs page shows the broker's keys and its loggers.
    open_page(browser, broker, "configs", "#loggers")
    assert "num.partitions" in browser.find_element(By.ID, "configs").text
    assert "state.change.logger" in browser.find_element(By.ID, "loggers").text
    browser.find_element(By.ID, "only-set").click()
    WebDriverWait(browser, LOAD_S).until(
        lambda d: "num.partitions" not in d.find_element(By.ID, "configs").text)
    assert "node.id" in browser.find_element(By.ID, "configs").text
    assert console_errors(browser) == []


def test_a_produced_record_is_visible_in_the_message_browser(broker, browser, artifacts):
    create(broker, "console-records")
    p = Producer({"bootstrap.servers": broker.bootstrap})
    p.produce("console-records", key=b"order-7", value=b'{"item":"tea","n":2}',
              headers=[("source", b"console-test")])
    assert p.flush(30) == 0
    open_page(browser, broker, "topics/console-records", "#record-table")
    WebDriverWait(browser, LOAD_S).until(
        lambda d: "order-7" in d.find_element(By.ID, "record-table").text)
    table = browser.find_element(By.ID, "record-table").text
    assert '{"item":"tea","n":2}' in table and "source" in table and "console-test" in table
    browser.save_screenshot(str(artifacts / "messages_text.png"))
    fmt = Select(browser.find_element(By.NAME, "format"))
    fmt.select_by_visible_text("json")
    WebDriverWait(browser, LOAD_S).until(
        lambda d: '"item": "tea"' in d.find_element(By.ID, "record-table").text)
    fmt.select_by_visible_text("hex")
    # "order-7" in hex.
    WebDriverWait(browser, LOAD_S).until(
        lambda d: "6f 72 64 65 72 2d 37" in d.find_element(By.ID, "record-table").text)
    browser.save_screenshot(str(artifacts / "messages_hex.png"))
    assert console_errors(browser) == []


def test_a_groups_lag_shows_the_number_it_has(broker, browser, artifacts):
    create(broker, "console-lag")
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(30):
        p.produce("console-lag", value=b"v%d" % i)
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "console-group",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe(["console-lag"])
    got, last = 0, None
    deadline = time.monotonic() + 60
    try:
        while got < 18 and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got, last = got + 1, m
        assert got == 18
        c.commit(message=last, asynchronous=False)  # offset 18 of 30
    finally:
        c.close()
    open_page(browser, broker, "groups", "#groups td.lag")
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#groups > tbody > tr")
               if "console-group" in r.text)
    assert row.find_element(By.CSS_SELECTOR, "td.lag").text == "12"
    browser.save_screenshot(str(artifacts / "groups.png"))
    assert console_errors(browser) == []
