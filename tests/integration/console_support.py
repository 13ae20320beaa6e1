"""The web console's test fixtures: headless Chromium (Debian's chromium and
chromedriver, driven by selenium), a directory for screenshots
($SAMSA_ARTIFACTS_DIR or the test's temp dir), and opening a page."""
import os
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

LOAD_S = 30  # a loaded 2-core machine starts Chromium slowly


@pytest.fixture
def artifacts(tmp_path):
    d = Path(os.environ.get("SAMSA_ARTIFACTS_DIR") or tmp_path) / "console"
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture
def browser():
    o = Options()
    o.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000"]:
        o.add_argument(arg)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
    d.set_page_load_timeout(LOAD_S)
    yield d
    d.quit()


def open_page(browser, broker, fragment, wait_for_css):
    browser.get(f"{broker.metrics_url}/#/{fragment}")
    WebDriverWait(browser, LOAD_S).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, wait_for_css)
        or d.find_element(By.ID, "error").text)
    assert browser.find_element(By.ID, "error").text == "", fragment


def console_errors(browser):
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
