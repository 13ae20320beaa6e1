"""A short, seeded round of the wire fuzzer (wire_fuzzer.py): mutated real
request frames against one broker, which must keep answering and keep
round-tripping records through librdkafka throughout."""
import pytest
from wire_fuzzer import WireFuzzer, librdkafka_round_trip


@pytest.mark.parametrize("seed", [1, 2])
def test_mutated_requests_leave_the_broker_serving(start_broker, seed):
    broker = start_broker(overrides={"num.io.threads": 1})
    fuzzer = WireFuzzer(broker.host, broker.port, seed, librdkafka_round_trip(broker.bootstrap))
    fuzzer.run(cases=1500, seconds=40, check_every=500)
    assert fuzzer.cases >= 300, f"only {fuzzer.cases} cases ran"
    assert broker.is_running(), broker.log_text()[-5000:]
