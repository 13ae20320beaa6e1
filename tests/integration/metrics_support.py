"""Reading a broker's /metrics (metrics.listener) with Prometheus' own text
parser (Debian's python3-prometheus-client), so that a scrape that does not
parse fails the test."""
import urllib.error
import urllib.request
from typing import Optional

from prometheus_client.parser import text_string_to_metric_families


def http_get(url: str, timeout: float = 10.0) -> tuple[int, str, str]:
    """(status, content type, body) of a GET, error statuses included."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


class Scrape:
    """One scrape: every sample by name, with its labels."""

    def __init__(self, text: str):
        self.text = text
        self.samples: dict[str, list[tuple[dict, float]]] = {}
        self.types: dict[str, str] = {}
        for family in text_string_to_metric_families(text):
            self.types[family.name] = family.type
            for s in family.samples:
                self.samples.setdefault(s.name, []).append((dict(s.labels), s.value))

    def value(self, name: str, **labels) -> Optional[float]:
        """The sample of `name` whose labels are exactly `labels`, or None."""
        for got, v in self.samples.get(name, []):
            if got == labels:
                return v
        return None


def scrape(broker) -> Scrape:
    status, ctype, body = http_get(broker.metrics_url + "/metrics")
    assert status == 200, (status, body)
    assert ctype.startswith("text/plain"), ctype
    return Scrape(body)
