"""The rate a throttled client was held to, without the phase of its waves.

A client held to a byte-rate quota does not move evenly: a producer is
acknowledged some batches at once and then waits out a throttle; a consumer is
handed a few fetches and then nothing for seconds (with four one-second quota
samples the waves repeat every 4-4.5 s). A fixed window cuts its first and
last wave anywhere, so what it counts depends on where the waves fall: twelve
seconds of the same steady client read 0.75 to 1.13 of its long-run rate
depending only on the phase, and one kafka-python run read 0.8496 of the quota
after a 1.6 s throttle pushed two batches past the window's end.

Averaged over every window of the same length whose start lies in the first
SHIFT_S seconds of the measured part, a wave counts in proportion to how many
of those windows hold it, and the phase comes to within a few percent (0.98 to
1.05 for the same clients). That average weighs each event by a ramp: up over
the first SHIFT_S seconds, flat, down over the last SHIFT_S seconds."""

# The spread of the window starts: about one wave's period (see above).
SHIFT_S = 4.0


def steady_rate(events, measured_from, measured_to):
    """Bytes per second of (seconds, bytes) events, averaged over the windows
    [s, s + W) for every s in [measured_from, measured_from + SHIFT_S], where
    W = measured_to - measured_from - SHIFT_S."""
    window = measured_to - measured_from - SHIFT_S
    assert window > 0, (measured_from, measured_to)
    weighted = 0.0
    for t, n in events:
        # The share of window starts s with s <= t < s + window.
        lo, hi = max(measured_from, t - window), min(measured_from + SHIFT_S, t)
        if hi > lo:
            weighted += n * (hi - lo) / SHIFT_S
    return weighted / window


# What the tests accept, as shares of the quota. A quota is a bound: a client
# held to it goes no faster than 15% above (the rate is sampled, and the
# quota counts the request's framing too). A producer is held close to it.
# A consumer runs below it: a fetch is answered whole or, while throttled,
# empty and fetched again after the throttle (Kafka's getThrottledResponse),
# so each wave ends with a fetch the window had no room for. Over whole waves
# librdkafka's consumer read 0.77-0.83 of the quota, kafkajs' 0.88-0.92 and
# kafka-python's 0.87.
PRODUCE_SHARE = (0.85, 1.15)
FETCH_SHARE = (0.7, 1.15)


def assert_share(rate, quota, share, context=None):
    """That rate is within share = (low, high) of quota."""
    low, high = share
    assert low * quota <= rate <= high * quota, (rate / quota, context)
