"""`samsa groups` and the group modes of `samsa consume` / `samsa perf consume`
against a real broker's group coordinator: committed offsets and lag in
kafka-consumer-groups.sh's table, members and state of a live group, offset
resets (dry run and --execute), deletion, and the error cases."""
import re

import pytest

from samsa_cli import consume_all, create_topic, on, produce_lines, start_on
from samsa_harness import wait_until

@pytest.fixture
def broker(start_broker):
    """A one-node cluster that can host __consumer_offsets (Kafka's default
    replication factor for it is 3) and starts rebalances without delay."""
    return start_broker(overrides={"offsets.topic.replication.factor": 1,
                                   "group.initial.rebalance.delay.ms": 0})


OFFSETS_HEADER = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
                  "CONSUMER-ID", "HOST", "CLIENT-ID"]


def table(out):
    """Rows of a Kafka-style table (after its leading blank line), split on blanks."""
    lines = [l for l in out.splitlines() if l.strip()]
    return [l.split() for l in lines]


def describe_rows(broker, group, *extra):
    res = on(broker, "groups", "--describe", "--group", group, *extra).ok()
    assert res.stdout.startswith("\n"), repr(res.stdout)
    return table(res.stdout), res


def test_consume_with_a_group_commits_and_describe_shows_offsets_and_lag(broker):
    create_topic(broker, "events")
    produce_lines(broker, "events", ["one", "two", "three"])
    res = on(broker, "consume", "--topic", "events", "--group", "readers", "--from-beginning",
             "--max-messages", "2").ok()
    assert res.stdout == "one\ntwo\n"

    rows, res = describe_rows(broker, "readers")
    assert "Consumer group 'readers' has no active members." in res.stderr
    assert rows[0] == OFFSETS_HEADER
    assert rows[1] == ["readers", "events", "0", "2", "3", "1", "-", "-", "-"]

    # A second run of the same group continues where the first one committed.
    res = on(broker, "consume", "--topic", "events", "--group", "readers", "--max-messages",
             "1").ok()
    assert res.stdout == "three\n"
    rows, _ = describe_rows(broker, "readers")
    assert rows[1][3:6] == ["3", "3", "0"]
    assert on(broker, "groups", "--list").ok().stdout.splitlines() == ["readers"]


def test_live_member_shows_in_members_state_and_offsets(broker):
    create_topic(broker, "live", 2)
    member = start_on(broker, "consume", "--topic", "live", "--group", "watchers")
    try:
        def members():
            res = on(broker, "groups", "--describe", "--group", "watchers", "--members",
                     "--verbose")
            rows = table(res.stdout) if res.returncode == 0 else []
            return rows if len(rows) == 2 and rows[1][-1] == "live:0,1" else None
        rows = wait_until(members, 30, "the consumer to join group watchers")
        assert rows[0] == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
                           "ASSIGNMENT"]
        assert rows[1][0] == "watchers" and rows[1][3] == "samsa-console-consumer"
        assert rows[1][4] == "2"
        consumer_id = rows[1][1]

        state = on(broker, "groups", "--describe", "--group", "watchers", "--state").ok()
        lines = [l for l in state.stdout.splitlines() if l]
        assert lines[0].split() == ["GROUP", "COORDINATOR", "(ID)", "ASSIGNMENT-STRATEGY",
                                    "STATE", "#MEMBERS"]
        assert re.match(rf"^watchers\s+{re.escape(broker.bootstrap)}  \(1\)\s+\S+\s+Stable\s+1$",
                        lines[1]), lines[1]

        rows, _ = describe_rows(broker, "watchers")
        assert [r[:3] for r in rows[1:]] == [["watchers", "live", "0"], ["watchers", "live", "1"]]
        assert all(r[6] == consumer_id for r in rows[1:])

        # An active group's offsets cannot be reset, nor the group deleted.
        res = on(broker, "groups", "--reset-offsets", "--group", "watchers", "--all-topics",
                 "--to-earliest", "--execute").failed()
        assert "can only be reset if the group 'watchers' is inactive" in res.error
        assert "current state is Stable" in res.error
        res = on(broker, "groups", "--delete", "--group", "watchers").failed()
        assert "could not be deleted" in res.stderr

    finally:
        result = member.stop()
    assert result.returncode == 0, result.stderr
    assert "Processed a total of" in result.stderr


def test_reset_offsets_plans_and_executes(broker):
    create_topic(broker, "ledger", 2)
    produce_lines(broker, "ledger", [f"p0-{i}" for i in range(6)], "--partition", "0")
    produce_lines(broker, "ledger", [f"p1-{i}" for i in range(4)], "--partition", "1")
    on(broker, "consume", "--topic", "ledger", "--group", "audit", "--from-beginning",
       "--max-messages", "10").ok()

    def committed():
        rows, _ = describe_rows(broker, "audit")
        return {int(r[2]): int(r[3]) for r in rows[1:]}
    assert committed() == {0: 6, 1: 4}

    # No --execute: a plan only, with a warning, and nothing changes.
    res = on(broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger",
             "--to-earliest").ok()
    assert "No action will be performed" in res.stderr
    rows = table(res.stdout)
    assert rows[0] == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]
    assert rows[1:] == [["audit", "ledger", "0", "0"], ["audit", "ledger", "1", "0"]]
    assert re.match(r"^GROUP {26}TOPIC {26}PARTITION  NEW-OFFSET$", res.stdout.splitlines()[1])
    assert committed() == {0: 6, 1: 4}

    on(broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger:0",
       "--to-offset", "2", "--execute").ok()
    assert committed() == {0: 2, 1: 4}
    res = on(broker, "groups", "--reset-offsets", "--group", "audit", "--all-topics",
             "--shift-by", "-3", "--execute").ok()
    assert "lower than earliest offset for topic partition ledger-0" in res.stderr
    assert committed() == {0: 0, 1: 1}
    on(broker, "groups", "--reset-offsets", "--group", "audit", "--all-topics", "--to-latest",
       "--execute").ok()
    assert committed() == {0: 6, 1: 4}
    on(broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger",
       "--to-datetime", "2000-01-01T00:00:00.000", "--execute").ok()
    assert committed() == {0: 0, 1: 0}
    res = on(broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger:1",
             "--to-offset", "99", "--dry-run").ok()
    assert "higher than latest offset" in res.stderr
    assert table(res.stdout)[1] == ["audit", "ledger", "1", "4"]
    assert "No action will be performed" not in res.stderr

    # The group reads again from where the reset put it.
    on(broker, "groups", "--reset-offsets", "--group", "audit", "--topic", "ledger:0",
       "--to-offset", "5", "--execute").ok()
    res = on(broker, "consume", "--topic", "ledger", "--group", "audit", "--partition", "0",
             "--max-messages", "1", "--timeout-ms", "20000").ok()
    assert res.stdout == "p0-5\n"


def test_reset_offsets_argument_errors(broker):
    create_topic(broker, "args")
    res = on(broker, "groups", "--reset-offsets", "--group", "g", "--topic", "args").failed()
    assert "exactly one of --to-earliest" in res.error
    res = on(broker, "groups", "--reset-offsets", "--group", "g", "--to-latest").failed()
    assert "--all-topics, --topic" in res.error
    res = on(broker, "groups", "--reset-offsets", "--group", "g", "--topic", "args",
             "--to-datetime", "last tuesday").failed()
    assert "--to-datetime expects" in res.error
    res = on(broker, "groups", "--reset-offsets", "--group", "g", "--topic", "nope",
             "--to-latest").failed()
    assert res.error == "Error: Topic 'nope' does not exist"


def test_delete_group_and_unknown_groups(broker):
    create_topic(broker, "gone")
    produce_lines(broker, "gone", ["x"])
    on(broker, "consume", "--topic", "gone", "--group", "temp", "--from-beginning",
       "--max-messages", "1").ok()
    res = on(broker, "groups", "--delete", "--group", "temp").ok()
    assert res.stdout == "Deletion of requested consumer groups ('temp') was successful.\n"
    res = on(broker, "groups", "--describe", "--group", "temp").failed()
    assert res.error == "Error: Consumer group 'temp' does not exist."
    assert "temp" not in on(broker, "groups", "--list").ok().stdout.split()
    assert "needs --group" in on(broker, "groups", "--describe").failed().error


def test_list_groups_with_states(broker):
    create_topic(broker, "st")
    produce_lines(broker, "st", ["x"])
    for g in ("alpha", "beta"):
        on(broker, "consume", "--topic", "st", "--group", g, "--from-beginning",
           "--max-messages", "1").ok()
    rows = table(on(broker, "groups", "--list", "--state").ok().stdout)
    assert rows == [["GROUP", "STATE"], ["alpha", "Empty"], ["beta", "Empty"]]
    assert table(on(broker, "groups", "--list", "--state", "Stable").ok().stdout) == \
        [["GROUP", "STATE"]]


def test_perf_consume_with_a_group(broker):
    create_topic(broker, "perfg")
    on(broker, "perf", "produce", "--topic", "perfg", "--num-records", "1000",
       "--record-size", "64").ok()
    res = on(broker, "perf", "consume", "--topic", "perfg", "--messages", "1000", "--group",
             "bench").ok()
    assert res.stdout.splitlines()[1].split(", ")[4] == "1000"
    assert "bench" in on(broker, "groups", "--list").ok().stdout.split()
