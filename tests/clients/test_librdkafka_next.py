"""Consumer groups with librdkafka 2.15.1, the version with the KIP-848 consumer
protocol (group.protocol=consumer: ConsumerGroupHeartbeat, the coordinator
assigns), against a real `samsa server`.

librdkafka 2.15.1 comes from tests/clients/librdkafka/setup.sh (run by
scripts/setup-clients.sh) under $SAMSA_CLIENTS_DIR/librdkafka; without it these
tests fail, never skip. Each consumer is a subprocess on it
(librdkafka/consumer_driver.py, see librdkafka_next_support): this pytest
process has Debian's librdkafka 2.0.2 loaded, which also produces and creates
topics here.

    a. group.protocol=classic on 2.15.1: two members share 600 records once
    b. group.protocol=consumer, three members over 12 partitions, then a fourth
       joins and one leaves, with a producer running: no partition held by two
       members at once; only the partitions that must move move (3 each time,
       with the uniform assignor); commits after processing (and in the revoke
       callback) make every acknowledged record read exactly once
    c. a regex subscription (^kip848-re-.*) picks up a topic created after the
       member joined, and its records
    d. static membership (group.instance.id): a member that closes and comes
       back within the session timeout gets its partitions back, and the other
       member sees no rebalance
    h. a group's own session timeout (consumer.session.timeout.ms=3000, set
       with `samsa configs --entity-type groups`): a member killed -9 loses its
       partitions to the other within seconds, not the broker's 45 s

The broker runs with offsets.topic.replication.factor=1 (one node) and Kafka's
KIP-848 settings with a 1 s heartbeat interval (Kafka's default is 5 s) so that
membership changes settle in a few seconds. Timeouts are for a loaded two-core
machine: a join can take 10 s and more.
"""
import time

import pytest

from librdkafka_next_support import (RDK_LIB_SUBDIR, RDK_VERSION, Members, balanced,
                                     coordinator_kill_moves_nothing,
                                     consumed_values, create_topics, duplicates,
                                     librdkafka_problem, ownership_overlaps, produce_values,
                                     BackgroundProducer, wait_for)
from samsa_cli import on
from samsa_harness import wait_until

# Kafka's defaults but the heartbeat interval (and its floor): 1 s rather than 5 s.
GROUP_BROKER = {
    "offsets.topic.replication.factor": 1,
    "group.initial.rebalance.delay.ms": 0,
    "group.coordinator.rebalance.protocols": "classic,consumer",
    "group.consumer.heartbeat.interval.ms": 1000,
    "group.consumer.min.heartbeat.interval.ms": 1000,
}
# The broker's group.consumer.session.timeout.ms (Kafka's default).
CONSUMER_SESSION_TIMEOUT_S = 45.0

JOIN_TIMEOUT_S = 90.0       # members joined and the assignment settled
REBALANCE_TIMEOUT_S = 90.0  # one membership change settled
DRAIN_TIMEOUT_S = 120.0     # every acknowledged record consumed

CONSUMER = {"group.protocol": "consumer", "group.remote.assignor": "uniform"}
CLASSIC = {"group.protocol": "classic"}


@pytest.fixture(scope="session")
def rdk_lib(client_dir):
    lib_dir = client_dir / RDK_LIB_SUBDIR
    problem = librdkafka_problem(lib_dir)
    if problem:
        pytest.fail(f"librdkafka {RDK_VERSION} is not built: {problem}; run "
                    f"scripts/setup-clients.sh {client_dir} "
                    "(tests/clients/librdkafka/setup.sh)", pytrace=False)
    return lib_dir


@pytest.fixture
def group_broker(start_broker):
    return start_broker(overrides=GROUP_BROKER)


@pytest.fixture
def members(rdk_lib, group_broker, tmp_path, request):
    """Starts 2.15.1 members; at the end kills every driver still running and,
    when the test failed, shows each one's events and librdkafka log."""
    made = Members(rdk_lib, tmp_path)
    yield made
    made.cleanup()
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        import sys
        sys.stderr.write(made.diagnostics())


def partitions_of(topic, n):
    return {(topic, p) for p in range(n)}


def problems_in(ms):
    """Errors, lost partitions and failed commits the members reported, but a
    commit that failed in the poll loop (it is retried there)."""
    out = []
    for m in ms:
        for e in m.errors():
            if e["ev"] == "commit_failed" and e.get("where") == "poll":
                continue
            out.append(f"{m.name}: {e}")
    return out


def summary(ms):
    return "\n" + "".join(m.diagnostics(lines=15) for m in ms)


# --- a. classic protocol on 2.15.1 --------------------------------------------

def test_classic_group_on_librdkafka_2_15_shares_records_once(group_broker, members):
    """300 records before the members join (the first to join may take them
    all), 300 once they have 3 partitions each (both read some)."""
    bs = group_broker.bootstrap
    topic = "rdk215-classic"
    create_topics(bs, {topic: 6})
    early = [f"early-{i}" for i in range(300)]
    late = [f"late-{i}" for i in range(300)]
    produce_values(bs, topic, early)

    group = "rdk215-classic-group"
    c1 = members.start("classic-1", bs, group, [topic], CLASSIC)
    c2 = members.start("classic-2", bs, group, [topic], CLASSIC)
    ms = [c1, c2]
    split = wait_for(lambda: balanced(ms, partitions_of(topic, 6), [3, 3]), JOIN_TIMEOUT_S,
                     "two classic members with 3 partitions each", ms)
    produce_values(bs, topic, late)
    wait_for(lambda: set(consumed_values(ms)) >= set(early + late), DRAIN_TIMEOUT_S,
             "all 600 records consumed", ms)
    for m in ms:
        m.close()

    assert not duplicates(ms), f"records read twice: {duplicates(ms)[:20]}" + summary(ms)
    assert set(consumed_values(ms)) == set(early + late)
    for m in ms:
        late_read = {r[3] for r in m.records() if r[3].startswith("late-")}
        assert late_read, f"{m.name} (holding {sorted(split[m.name])}) read none of the late records"
    assert not ownership_overlaps(ms), ownership_overlaps(ms)
    assert not problems_in(ms), problems_in(ms)
    print(f"classic: {c1.name} read {len(c1.records())}, {c2.name} read {len(c2.records())}")


# --- b. KIP-848: three members, a fourth joins, one leaves --------------------

def moved(before, after):
    """Partitions whose owner differs between two {member: partitions} maps."""
    owner_before = {tp: m for m, tps in before.items() for tp in tps}
    owner_after = {tp: m for m, tps in after.items() for tp in tps}
    return {tp for tp in owner_after if owner_before.get(tp) != owner_after[tp]}


def callbacks_since(ms, marks, kind):
    """{member: partitions in its `kind` callbacks since its mark}"""
    out = {}
    for m in ms:
        parts = [tuple(p) for e in m.events_of(kind, marks.get(m.name, 0)) for p in e["parts"]]
        out[m.name] = parts
    return out


def test_consumer_protocol_moves_only_what_must_move_and_reads_once(group_broker, members):
    bs = group_broker.bootstrap
    topic = "kip848-moves"
    create_topics(bs, {topic: 12})
    all_tps = partitions_of(topic, 12)
    producer = BackgroundProducer(bs, topic, "m").start()
    try:
        group = "kip848-moves-group"
        ms = [members.start(f"kip848-{i}", bs, group, [topic], CONSUMER) for i in (1, 2, 3)]
        three = wait_for(lambda: balanced(ms, all_tps, [4, 4, 4]), JOIN_TIMEOUT_S,
                         "three members with 4 of the 12 partitions each", ms)
        t_three = time.monotonic()

        # A fourth member: with the uniform (sticky) assignor 4-4-4 becomes
        # 3-3-3-3, each of the three giving up exactly one partition.
        marks = {m.name: m.mark() for m in ms}
        m4 = members.start("kip848-4", bs, group, [topic], CONSUMER)
        ms4 = ms + [m4]
        four = wait_for(lambda: balanced(ms4, all_tps, [3, 3, 3, 3]), REBALANCE_TIMEOUT_S,
                        "four members with 3 partitions each", ms4)
        t_four = time.monotonic()
        moves = moved(three, four)
        revoked = callbacks_since(ms, marks, "revoked")
        gained = callbacks_since(ms, marks, "assigned")
        assert len(moves) == 3, (f"{len(moves)} partitions moved when a 4th member joined "
                                 f"(3 must): {sorted(moves)}; before {three}, after {four}"
                                 + summary(ms4))
        assert sorted(tp for parts in revoked.values() for tp in parts) == sorted(moves), (
            f"revocations when the 4th member joined: {revoked}; moved: {sorted(moves)}"
            + summary(ms4))
        assert all(not parts for parts in gained.values()), (
            f"the three first members were assigned partitions when a 4th joined: {gained}"
            + summary(ms4))
        assert set(four["kip848-4"]) == moves

        # One of the first three leaves: its 3 partitions go one to each of
        # the others; nobody else gives anything up.
        leaving = ms[1]
        stay = [ms[0], ms[2], m4]
        marks = {m.name: m.mark() for m in stay}
        leaving.close()
        three_again = wait_for(lambda: balanced(stay, all_tps, [4, 4, 4]),
                               REBALANCE_TIMEOUT_S,
                               f"three members with 4 partitions each after {leaving.name} left",
                               ms4)
        moves = moved({k: v for k, v in four.items() if k != leaving.name}, three_again)
        assert moves == set(four[leaving.name]), (
            f"moved when {leaving.name} left: {sorted(moves)}; it held "
            f"{sorted(four[leaving.name])}; before {four}, after {three_again}" + summary(ms4))
        revoked = callbacks_since(stay, marks, "revoked")
        assert all(not parts for parts in revoked.values()), (
            f"members that stayed gave up partitions when {leaving.name} left: {revoked}"
            + summary(ms4))
        gained = callbacks_since(stay, marks, "assigned")
        assert sorted(len(parts) for parts in gained.values()) == [1, 1, 1], (
            f"assignments when {leaving.name} left: {gained}" + summary(ms4))
    finally:
        producer.stop()
    producer.check()

    acked = set(producer.acked)
    assert len(acked) > 0
    wait_for(lambda: set(consumed_values(ms4)) >= acked, DRAIN_TIMEOUT_S,
             f"all {len(acked)} acknowledged records consumed", ms4)
    for m in stay:
        m.close()

    lost = acked - set(consumed_values(ms4))
    assert not lost, f"{len(lost)} acknowledged records never read: {sorted(lost)[:20]}"
    dups = duplicates(ms4)
    assert not dups, (f"{len(dups)} records read twice across the membership changes "
                      f"(of {len(acked)}): {dups[:20]}" + summary(ms4))
    overlaps = ownership_overlaps(ms4)
    assert not overlaps, "partitions held by two members at once:\n" + "\n".join(overlaps[:20])
    assert not problems_in(ms4), problems_in(ms4)
    print(f"{len(acked)} records produced while members joined and left; phases "
          f"settled {t_four - t_three:.1f}s apart")


# --- c. KIP-848 regex subscription ---------------------------------------------

def test_consumer_protocol_regex_picks_up_a_new_topic(group_broker, members):
    """librdkafka sends the pattern as SubscribedTopicRegex ("(^kip848-re-.*)",
    its regexes joined), with no topic names; the coordinator resolves it. Kafka
    resolves a group's patterns again once a metadata image adds topics, at
    most every 10 s (REGEX_BATCH_REFRESH_MIN_INTERVAL_MS), so the new topic
    comes within about 10 s and a few heartbeats."""
    bs = group_broker.bootstrap
    first, late, other = "kip848-re-first", "kip848-re-late", "kip848-other"
    create_topics(bs, {first: 2})
    produce_values(bs, first, [f"first-{i}" for i in range(10)])

    m = members.start("kip848-re", bs, "kip848-re-group", ["^kip848-re-.*"], CONSUMER)
    wait_for(lambda: m.assignment() == partitions_of(first, 2), JOIN_TIMEOUT_S,
             f"the regex member assigned {first}'s 2 partitions", [m])
    wait_for(lambda: {f"first-{i}" for i in range(10)} <= set(consumed_values([m])),
             JOIN_TIMEOUT_S, f"the 10 records of {first}", [m])

    t_created = time.monotonic()
    create_topics(bs, {late: 3, other: 1})
    late_values = [f"late-{i}" for i in range(30)]
    produce_values(bs, late, late_values)
    produce_values(bs, other, [f"other-{i}" for i in range(5)])
    wait_for(lambda: m.assignment() == partitions_of(first, 2) | partitions_of(late, 3),
             REBALANCE_TIMEOUT_S, f"the regex member assigned {late} (created after it joined)",
             [m])
    t_assigned = time.monotonic()
    wait_for(lambda: set(late_values) <= set(consumed_values([m])), REBALANCE_TIMEOUT_S,
             f"the 30 records of {late}", [m])
    m.close()

    assigned_topics = {tuple(p)[0] for e in m.events_of("assigned") for p in e["parts"]}
    assert other not in assigned_topics, f"{other} does not match ^kip848-re-.* but was assigned"
    assert not duplicates([m]), duplicates([m])
    assert not problems_in([m]), problems_in([m])
    print(f"{late} assigned {t_assigned - t_created:.1f}s after its creation")


# --- d. KIP-848 static membership ----------------------------------------------

def test_consumer_protocol_static_member_gets_its_partitions_back(group_broker, members):
    bs = group_broker.bootstrap
    topic = "kip848-static"
    create_topics(bs, {topic: 6})
    all_tps = partitions_of(topic, 6)
    group = "kip848-static-group"

    def static(n):
        return {**CONSUMER, "group.instance.id": f"kip848-static-{n}"}

    s1 = members.start("static-1", bs, group, [topic], static(1))
    s2 = members.start("static-2", bs, group, [topic], static(2))
    split = wait_for(lambda: balanced([s1, s2], all_tps, [3, 3]), JOIN_TIMEOUT_S,
                     "two static members with 3 partitions each", [s1, s2])
    before = [f"before-{i}" for i in range(60)]
    produce_values(bs, topic, before)
    wait_for(lambda: set(before) <= set(consumed_values([s1, s2])), DRAIN_TIMEOUT_S,
             "the first 60 records consumed", [s1, s2])

    mark2 = s2.mark()
    t_close = time.monotonic()
    s1.close()
    s1b = members.start("static-1-again", bs, group, [topic], static(1))
    back = wait_for(lambda: s1b.assignment() == split["static-1"] and s1b.assignment(),
                    CONSUMER_SESSION_TIMEOUT_S,
                    f"static-1 back with the same instance id assigned {sorted(split['static-1'])}",
                    [s1, s2, s1b])
    t_back = time.monotonic()
    assert t_back - t_close < CONSUMER_SESSION_TIMEOUT_S
    assert back == split["static-1"]

    after = [f"after-{i}" for i in range(60)]
    produce_values(bs, topic, after)
    ms = [s1, s2, s1b]
    wait_for(lambda: set(after) <= set(consumed_values(ms)), DRAIN_TIMEOUT_S,
             "the next 60 records consumed", ms)
    end2 = s2.mark()
    s1b.close()
    s2.close()

    moves = [e for e in s2.snapshot()[mark2:end2]
             if e["ev"] in ("assigned", "revoked", "lost")]
    assert not moves, (f"static-2 saw a rebalance while static-1 restarted: {moves}"
                       + summary(ms))
    # the restarted member resumed from static-1's commits
    assert not duplicates(ms), f"records read twice: {duplicates(ms)[:20]}" + summary(ms)
    assert {r[1] for r in s1b.records()} <= {p for _, p in split["static-1"]}
    assert not ownership_overlaps(ms), ownership_overlaps(ms)
    assert not problems_in(ms), problems_in(ms)
    print(f"static-1 back {t_back - t_close:.1f}s after closing")


# --- e. samsa groups with a consumer group ------------------------------------

def test_groups_verb_shows_a_consumer_group_with_its_epochs(group_broker, members):
    """`samsa groups` as kafka-consumer-groups.sh 4.x shows a KIP-848 group:
    --list --type, --describe --state --verbose (group and target epochs),
    --describe --members --verbose (each member's epochs and assignments)."""
    from samsa_cli import on

    bs = group_broker.bootstrap
    topic = "rdk215-cli"
    create_topics(bs, {topic: 4})
    group = "rdk215-cli-group"
    m = members.start("cli-1", bs, group, [topic], CONSUMER)
    wait_for(lambda: balanced([m], partitions_of(topic, 4), [4]), JOIN_TIMEOUT_S,
             "one consumer-protocol member with 4 partitions", [m])

    listed = on(group_broker, "groups", "--list", "--type").ok().stdout.splitlines()
    assert listed[0].split() == ["GROUP", "TYPE"]
    assert [group, "Consumer"] in [l.split() for l in listed[1:]]
    only_classic = on(group_broker, "groups", "--list", "--type", "classic").ok()
    assert group not in only_classic.stdout

    def described(*extra):
        res = on(group_broker, "groups", "--describe", "--group", group, *extra).ok()
        return [l.split() for l in res.stdout.splitlines() if l.strip()]

    state = described("--state", "--verbose")
    assert state[0] == ["GROUP", "COORDINATOR", "(ID)", "ASSIGNMENT-STRATEGY", "STATE",
                        "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"]
    row = state[1]
    assert row[0] == group and row[3] == "uniform" and row[4] == "Stable", row
    assert row[5] == row[6] and int(row[5]) >= 1 and row[7] == "1", row

    rows = described("--members", "--verbose")
    assert rows[0] == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
                       "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"]
    assert rows[1][3] == "cli-1" and rows[1][4] == "4", rows
    assert rows[1][6] == rows[1][8] == f"{topic}:0,1,2,3", rows
    assert rows[1][5] == rows[1][7] == row[5], rows
    m.close()


# --- f. the coordinator restarts under a consumer group -----------------------

def test_consumer_group_survives_a_coordinator_kill(group_broker, members):
    """The broker (the group's coordinator) is killed -9 and restarted: the
    group comes back from its records in __consumer_offsets, the members
    heartbeat on at their epochs and keep their partitions (no partition
    moves), and every record is read; only records whose commit the kill
    may have caught are read again."""
    bs = group_broker.bootstrap
    topic = "kip848-restart"
    create_topics(bs, {topic: 6})
    all_tps = partitions_of(topic, 6)
    group = "kip848-restart-group"
    m1 = members.start("restart-1", bs, group, [topic], CONSUMER)
    m2 = members.start("restart-2", bs, group, [topic], CONSUMER)
    ms = [m1, m2]
    split = wait_for(lambda: balanced(ms, all_tps, [3, 3]), JOIN_TIMEOUT_S,
                     "two members with 3 partitions each", ms)
    coordinator_kill_moves_nothing(group_broker, topic, ms, split, DRAIN_TIMEOUT_S)


# --- g. a group moves from the classic protocol to the consumer protocol ------

def test_a_classic_group_stopped_and_restarted_on_the_consumer_protocol(group_broker, members):
    """Offline upgrade: classic members consume and commit, all close (the
    group is empty); members on the consumer protocol join the same group id
    and go on from the committed offsets: nothing read twice, nothing lost."""
    bs = group_broker.bootstrap
    topic = "kip848-upgrade"
    create_topics(bs, {topic: 4})
    all_tps = partitions_of(topic, 4)
    group = "kip848-upgrade-group"
    first = [f"first-{i}" for i in range(100)]
    produce_values(bs, topic, first)
    c1 = members.start("classic-1", bs, group, [topic], CLASSIC)
    c2 = members.start("classic-2", bs, group, [topic], CLASSIC)
    wait_for(lambda: set(first) <= set(consumed_values([c1, c2])), DRAIN_TIMEOUT_S,
             "the first 100 records consumed by the classic members", [c1, c2])
    c1.close()
    c2.close()

    second = [f"second-{i}" for i in range(100)]
    produce_values(bs, topic, second)
    n1 = members.start("consumer-1", bs, group, [topic], CONSUMER)
    n2 = members.start("consumer-2", bs, group, [topic], CONSUMER)
    ms = [c1, c2, n1, n2]
    wait_for(lambda: balanced([n1, n2], all_tps, [2, 2]), JOIN_TIMEOUT_S,
             "two consumer-protocol members with 2 partitions each", ms)
    wait_for(lambda: set(second) <= set(consumed_values([n1, n2])), DRAIN_TIMEOUT_S,
             "the next 100 records consumed by the consumer-protocol members", ms)
    n1.close()
    n2.close()
    assert not duplicates(ms), f"records read twice: {duplicates(ms)[:20]}" + summary(ms)
    assert not set(first) & set(consumed_values([n1, n2])), "the upgrade went back in the log"
    assert not problems_in(ms), problems_in(ms)


# --- h. a group's own session timeout (KIP-848 group configs) -----------------

def test_a_groups_own_session_timeout_frees_a_killed_members_partitions(start_broker, members):
    """consumer.session.timeout.ms=3000 set on the group with `samsa configs
    --entity-type groups`: a member killed -9 sends no leave, and its
    partitions go to the other member once the group's 3 s session ends,
    long before the broker's 45 s default would let them go."""
    broker = start_broker(overrides=dict(GROUP_BROKER,
                                         **{"group.consumer.min.session.timeout.ms": 1000}))
    bs = broker.bootstrap
    group = "kip848-session-group"

    def group_configs():
        return on(broker, "configs", "--entity-type", "groups", "--entity-name", group,
                  "--describe").ok().stdout
    on(broker, "configs", "--entity-type", "groups", "--entity-name", group, "--alter",
       "--add-config", "consumer.session.timeout.ms=3000").ok()
    wait_until(lambda: "consumer.session.timeout.ms=3000" in group_configs(), 30,
               "the group's session timeout in the broker's image")
    topic = "kip848-session"
    create_topics(bs, {topic: 4})
    all_tps = partitions_of(topic, 4)
    m1 = members.start("session-1", bs, group, [topic], CONSUMER)
    m2 = members.start("session-2", bs, group, [topic], CONSUMER)
    wait_for(lambda: balanced([m1, m2], all_tps, [2, 2]), JOIN_TIMEOUT_S,
             "two members with 2 partitions each", [m1, m2])
    m1.kill()
    killed = time.monotonic()
    wait_for(lambda: m2.assignment() == all_tps, CONSUMER_SESSION_TIMEOUT_S - 15,
             "the other member holding all 4 partitions", [m2])
    print(f"group session 3 s: the killed member's partitions moved after "
          f"{time.monotonic() - killed:.1f} s")
    m2.close()
    assert not problems_in([m2]), problems_in([m2])
