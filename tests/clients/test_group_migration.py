"""Online migration between the classic and the consumer group protocol
(KIP-848, group.consumer.migration.policy=bidirectional, Kafka's default),
with librdkafka 2.15.1 members of both protocols in one group against a real
`samsa server`, a producer running throughout:

    1. two classic members (group.protocol=classic, eager range assignor)
       share 6 partitions;
    2. a consumer-protocol member joins: the classic group becomes a consumer
       group without stopping, the classic members give up what the
       coordinator's assignment moves (they rejoin when their heartbeat says
       so) and the new member gets its share;
    3. a classic member leaves: its partitions go to the other two;
    4. the consumer-protocol member leaves: the group becomes classic again
       and the remaining classic member gets every partition.

Every acknowledged record is read exactly once across all of it (commits
after processing and in the revoke callback), and no partition is held by two
members at once. Also: kafka-python as the classic member through both
migrations, and a mixed group over a kill -9 of its coordinator. See
tests/clients/test_librdkafka_next.py for the drivers.
"""
import time

from librdkafka_next_support import (BackgroundProducer, balanced, consumed_values,
                                     coordinator_kill_moves_nothing, create_topics, duplicates,
                                     ownership_overlaps, produce_values, wait_for)
from samsa_cli import on
# The 2.15.1 members, their broker and its settings.
from test_librdkafka_next import (CLASSIC, CONSUMER, DRAIN_TIMEOUT_S, JOIN_TIMEOUT_S,  # noqa: F401
                                  REBALANCE_TIMEOUT_S, group_broker, members, partitions_of,
                                  problems_in, rdk_lib, summary)


def group_type(broker, group):
    """The group's type as `samsa groups --list --type` shows it."""
    for line in on(broker, "groups", "--list", "--type").ok().stdout.splitlines():
        cols = line.split()
        if cols and cols[0] == group:
            return " ".join(cols[1:])
    return ""


def test_a_group_upgrades_and_downgrades_online_while_consuming(group_broker, members):
    bs = group_broker.bootstrap
    topic = "migration"
    create_topics(bs, {topic: 6})
    all_tps = partitions_of(topic, 6)
    group = "migration-group"
    producer = BackgroundProducer(bs, topic, "mig").start()
    try:
        c1 = members.start("classic-1", bs, group, [topic], CLASSIC)
        c2 = members.start("classic-2", bs, group, [topic], CLASSIC)
        ms = [c1, c2]
        wait_for(lambda: balanced(ms, all_tps, [3, 3]), JOIN_TIMEOUT_S,
                 "two classic members with 3 partitions each", ms)
        assert "Classic" in group_type(group_broker, group), group_type(group_broker, group)

        # Upgrade: a consumer-protocol member joins the classic group.
        n1 = members.start("consumer-1", bs, group, [topic], CONSUMER)
        ms = [c1, c2, n1]
        wait_for(lambda: balanced(ms, all_tps, [2, 2, 2]), REBALANCE_TIMEOUT_S,
                 "two classic members and a consumer-protocol member with 2 partitions each",
                 ms)
        assert "Consumer" in group_type(group_broker, group), group_type(group_broker, group)

        # A classic member leaves the consumer group.
        c1.close()
        stay = [c2, n1]
        wait_for(lambda: balanced(stay, all_tps, [3, 3]), REBALANCE_TIMEOUT_S,
                 "a classic and a consumer-protocol member with 3 partitions each", ms)

        # Downgrade: the last consumer-protocol member leaves.
        n1.close()
        wait_for(lambda: balanced([c2], all_tps, [6]), REBALANCE_TIMEOUT_S,
                 "the classic member alone with every partition", ms)
        wait_for(lambda: "Classic" in group_type(group_broker, group), REBALANCE_TIMEOUT_S,
                 "the group classic again", ms)
    finally:
        producer.stop()
    producer.check()

    acked = set(producer.acked)
    assert acked
    wait_for(lambda: set(consumed_values(ms)) >= acked, DRAIN_TIMEOUT_S,
             f"all {len(acked)} acknowledged records consumed", ms)
    c2.close()
    dups = duplicates(ms)
    assert not dups, (f"{len(dups)} records read twice across the migrations "
                      f"(of {len(acked)}): {dups[:20]}" + summary(ms))
    overlaps = ownership_overlaps(ms)
    assert not overlaps, "partitions held by two members at once:\n" + "\n".join(overlaps[:20])
    assert not problems_in(ms), problems_in(ms)
    print(f"{len(acked)} records produced across an upgrade and a downgrade; "
          + ", ".join(f"{m.name} read {len(m.records())}" for m in ms))


def test_a_kafka_python_classic_member_follows_its_group_through_both_migrations(
        group_broker, members):
    """kafka-python 2.0.2 (another classic implementation: JoinGroup v2,
    subscription v0, eager) alone in a group, then with a 2.15.1
    consumer-protocol member (upgrade: it gives up half), then alone again
    (downgrade: it gets everything back); it reads what is produced in every
    phase and no partition is held by both."""
    from kafka import KafkaConsumer
    from kafka.errors import CommitFailedError, RebalanceInProgressError
    from kafka_python_support import deadline

    bs = group_broker.bootstrap
    topic = "migration-kp"
    create_topics(bs, {topic: 4})
    all_tps = partitions_of(topic, 4)
    group = "migration-kp-group"
    seen = []

    with deadline(300, "kafka-python in a migrating group"):
        kp = KafkaConsumer(topic, bootstrap_servers=bs, group_id=group,
                           enable_auto_commit=False, auto_offset_reset="earliest",
                           session_timeout_ms=10000, heartbeat_interval_ms=500)
        try:
            def owned():
                return {(tp.topic, tp.partition) for tp in kp.assignment()}

            def pump(until, what, timeout, others=()):
                end = time.monotonic() + timeout
                while time.monotonic() < end:
                    for recs in kp.poll(timeout_ms=100).values():
                        seen.extend(r.value.decode() for r in recs)
                    try:
                        kp.commit()
                    except (CommitFailedError, RebalanceInProgressError):
                        pass  # the group is rebalancing: committed after it
                    if until():
                        return
                raise AssertionError(f"{what}: not within {timeout}s; kafka-python holds "
                                     f"{sorted(owned())}, read {len(seen)}"
                                     + summary(list(others)))

            first = [f"first-{i}" for i in range(100)]
            produce_values(bs, topic, first)
            pump(lambda: owned() == all_tps and set(first) <= set(seen),
                 "kafka-python alone with every partition and the first records", JOIN_TIMEOUT_S)
            assert "Classic" in group_type(group_broker, group)

            n1 = members.start("consumer-1", bs, group, [topic], CONSUMER)
            both = lambda: (len(owned()) == 2 and len(n1.assignment()) == 2  # noqa: E731
                            and not owned() & n1.assignment())
            pump(both, "kafka-python and a consumer-protocol member with 2 partitions each",
                 REBALANCE_TIMEOUT_S, [n1])
            assert "Consumer" in group_type(group_broker, group)
            second = [f"second-{i}" for i in range(100)]
            produce_values(bs, topic, second)
            pump(lambda: set(second) <= set(seen) | set(consumed_values([n1])),
                 "the second records read by the two members", DRAIN_TIMEOUT_S, [n1])

            n1.close()
            pump(lambda: owned() == all_tps and "Classic" in group_type(group_broker, group),
                 "kafka-python alone again in a classic group", REBALANCE_TIMEOUT_S, [n1])
            third = [f"third-{i}" for i in range(100)]
            produce_values(bs, topic, third)
            pump(lambda: set(third) <= set(seen), "the third records read by kafka-python",
                 DRAIN_TIMEOUT_S, [n1])
        finally:
            kp.close()
    assert not problems_in([n1]), problems_in([n1])
    lost = set(first + second + third) - set(seen) - set(consumed_values([n1]))
    assert not lost, f"{len(lost)} records never read: {sorted(lost)[:20]}"


def test_a_mixed_group_survives_a_coordinator_kill(group_broker, members):
    """Two classic members and a consumer-protocol member share 6 partitions;
    the broker (their coordinator) is killed -9 and restarted: the group comes
    back from its records, classic members included (their protocols and
    session timeouts are in their member records), everyone heartbeats on at
    its epoch, no partition moves, and every record is read."""
    bs = group_broker.bootstrap
    topic = "migration-restart"
    create_topics(bs, {topic: 6})
    all_tps = partitions_of(topic, 6)
    group = "migration-restart-group"
    c1 = members.start("classic-1", bs, group, [topic], CLASSIC)
    c2 = members.start("classic-2", bs, group, [topic], CLASSIC)
    wait_for(lambda: balanced([c1, c2], all_tps, [3, 3]), JOIN_TIMEOUT_S,
             "two classic members with 3 partitions each", [c1, c2])
    n1 = members.start("consumer-1", bs, group, [topic], CONSUMER)
    ms = [c1, c2, n1]
    split = wait_for(lambda: balanced(ms, all_tps, [2, 2, 2]), REBALANCE_TIMEOUT_S,
                     "a mixed group with 2 partitions each", ms)
    coordinator_kill_moves_nothing(group_broker, topic, ms, split, DRAIN_TIMEOUT_S)
    assert "Consumer" in group_type(group_broker, group)
