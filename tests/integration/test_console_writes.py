"""The console's writes, with metrics.listener.admin.writes.enable=true, in
headless Chromium: a topic created from the topics page exists with the
partitions asked for, a group's offsets reset from the groups page are the
ones a consumer of that group then sees as committed, a logger's level set on
the configs page is the level /v1/loggers reports, and the topic deleted from
its page is gone. Each page's notice says what the write did, and no page
logs a console error."""
import json
import time
import urllib.request

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from console_support import LOAD_S, artifacts, browser, console_errors, open_page  # noqa: F401


@pytest.fixture
def broker(start_broker):
    return start_broker(overrides={"offsets.topic.replication.factor": 1,
                                   "metrics.listener.admin.writes.enable": True})


def wait_notice(browser, text):
    WebDriverWait(browser, LOAD_S).until(
        lambda d: text in d.find_element(By.ID, "notice").text
        or d.find_element(By.ID, "error").text)
    assert browser.find_element(By.ID, "error").text == ""
    return browser.find_element(By.ID, "notice").text


def committed(broker, group, topic, partitions):
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
    try:
        return [tp.offset for tp in c.committed(
            [TopicPartition(topic, p) for p in range(partitions)], timeout=30)]
    finally:
        c.close()


def test_create_reset_set_level_and_delete_from_the_console(broker, browser, artifacts):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    # Create.
    open_page(browser, broker, "topics", "#create-topic")
    form = browser.find_element(By.ID, "create-topic")
    form.find_element(By.NAME, "name").send_keys("made-in-console")
    form.find_element(By.NAME, "partitions").send_keys("3")
    form.find_element(By.NAME, "replication_factor").send_keys("1")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert "3 partitions" in wait_notice(browser, "Created topic made-in-console")
    WebDriverWait(browser, LOAD_S).until(lambda d: d.find_elements(By.ID, "partitions"))
    browser.save_screenshot(str(artifacts / "writes_created.png"))
    assert len(admin.list_topics("made-in-console", timeout=15)
               .topics["made-in-console"].partitions) == 3

    # A group that read everything and left: Empty, its offsets at the end.
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(30):
        p.produce("made-in-console", value=b"v%d" % i, partition=i % 3)
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "console-reset",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe(["made-in-console"])
    got = 0
    deadline = time.monotonic() + 60
    try:
        while got < 30 and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got += 1
        assert got == 30
        c.commit(asynchronous=False)
    finally:
        c.close()
    assert committed(broker, "console-reset", "made-in-console", 3) == [10, 10, 10]

    # Reset to the earliest offsets.
    open_page(browser, broker, "groups", "form.reset")
    form = next(f for f in browser.find_elements(By.CSS_SELECTOR, "form.reset")
                if f.get_attribute("data-group") == "console-reset")
    Select(form.find_element(By.NAME, "to")).select_by_visible_text("earliest")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    text = wait_notice(browser, "Group console-reset, made-in-console")
    assert "0 → 0" in text and "2 → 0" in text, text
    browser.save_screenshot(str(artifacts / "writes_reset.png"))
    assert committed(broker, "console-reset", "made-in-console", 3) == [0, 0, 0]

    # A logger's level.
    open_page(browser, broker, "configs", "select.level")
    level = next(s for s in browser.find_elements(By.CSS_SELECTOR, "select.level")
                 if s.get_attribute("data-logger") == "state.change.logger")
    Select(level).select_by_visible_text("DEBUG")
    wait_notice(browser, "Logger state.change.logger at DEBUG")
    with urllib.request.urlopen(f"{broker.metrics_url}/v1/loggers", timeout=10) as r:
        loggers = {x["name"]: x["level"] for x in json.load(r)["loggers"]}
    assert loggers["state.change.logger"] == "DEBUG"

    # Delete, after the confirmation the page asks for.
    open_page(browser, broker, "topics/made-in-console", "#delete-topic")
    browser.find_element(By.ID, "delete-topic").click()
    WebDriverWait(browser, LOAD_S).until(lambda d: d.switch_to.alert)
    browser.switch_to.alert.accept()
    wait_notice(browser, "Deleted topic made-in-console")
    WebDriverWait(browser, LOAD_S).until(
        lambda d: d.find_elements(By.ID, "topics")
        and "made-in-console" not in d.find_element(By.ID, "topics").text)
    browser.save_screenshot(str(artifacts / "writes_deleted.png"))
    assert "made-in-console" not in admin.list_topics(timeout=15).topics
    assert console_errors(browser) == []
