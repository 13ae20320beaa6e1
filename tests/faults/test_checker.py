"""The checker on small hand-made histories (no cluster): it finds each kind
of anomaly, and finds none in a clean history."""
import checker
from checker import check


class H:
    """A history builder: H().send(...).ack(...).read(...).final(...)."""

    def __init__(self):
        self.events = []
        self.t = 0.0

    def _add(self, **e):
        self.t += 0.01
        e.setdefault("t", round(self.t, 3))
        self.events.append(e)
        return self

    def send(self, producer, seq, partition=0):
        return self._add(type="send", producer=producer, seq=seq,
                         value=f"{producer}-{seq}", partition=partition)

    def ack(self, producer, seq, offset, partition=0):
        return self._add(type="ack", producer=producer, seq=seq,
                         value=f"{producer}-{seq}", partition=partition, offset=offset)

    def fail(self, producer, seq, partition=0):
        return self._add(type="fail", producer=producer, seq=seq,
                         value=f"{producer}-{seq}", partition=partition, error="timed out")

    def write(self, producer, seq, offset, partition=0):
        return self.send(producer, seq, partition).ack(producer, seq, offset, partition)

    def read(self, value, offset, partition=0, consumer="final"):
        return self._add(type="read", consumer=consumer, partition=partition,
                         offset=offset, value=value)

    def end(self, partition, high, complete=True):
        return self._add(type="final-end", partition=partition, high=high, complete=complete)

    def nemesis(self, phase, fault="partition", detail="{1} | {2,3}"):
        return self._add(type="nemesis", phase=phase, fault=fault, detail=detail)


def kinds(result):
    return sorted({a.kind for a in result.anomalies})


def clean():
    """Two producers over two partitions; one consumer during the run; the
    final read finds everything. Offsets of p0: a0 a1 b0; of p1: a2 b1."""
    h = H()
    h.write("a", 0, 0).write("a", 1, 1).write("b", 0, 2)
    h.write("a", 2, 0, partition=1).write("b", 1, 1, partition=1)
    h.read("a-0", 0, consumer="c0").read("a-1", 1, consumer="c0")
    for v, o in (("a-0", 0), ("a-1", 1), ("b-0", 2)):
        h.read(v, o)
    h.end(0, 3)
    h.read("a-2", 0, partition=1).read("b-1", 1, partition=1).end(1, 2)
    return h


def test_clean_history_has_no_anomaly():
    r = check(clean().events)
    assert r.valid, checker.summary(r, clean().events)
    assert r.stats["acks"] == 5 and r.stats["final_reads"] == 5


def test_failed_and_indeterminate_writes_may_be_absent_or_present():
    h = H()
    h.write("a", 0, 0).send("a", 1).fail("a", 1).send("a", 2).fail("a", 2).send("a", 3)
    # a-2 failed on the client but was written (indeterminate): allowed.
    h.read("a-0", 0).read("a-2", 1).end(0, 2)
    r = check(h.events)
    assert r.valid, checker.summary(r, h.events)
    assert r.stats["indeterminate"] == 1


def test_lost_acknowledged_write():
    h = H()
    h.write("a", 0, 0).nemesis("start").write("a", 1, 1).nemesis("heal").write("a", 2, 2)
    h.read("a-0", 0).read("a-2", 1).end(0, 2)
    r = check(h.events)
    assert "lost" in kinds(r)
    lost = [a for a in r.anomalies if a.kind == "lost"]
    assert len(lost) == 1 and "'a-1'" in lost[0].message
    text = lost[0].describe(h.events)
    # Printed with its send, its ack and the fault around it.
    assert "send  a#1" in text and "ack   a#1" in text and "nemesis start" in text


def test_truncated_final_read_is_lost_writes():
    """Acked data deleted on purpose (the final read loses its tail): every
    acknowledged value past the cut is reported lost."""
    h = clean()
    events = [e for e in h.events if not (e["type"] == "read" and e["consumer"] == "final"
                                          and e["partition"] == 0 and e["offset"] >= 1)]
    for e in events:
        if e["type"] == "final-end" and e["partition"] == 0:
            e["high"] = 1
    r = check(events)
    lost = sorted(a.message.split("'")[1] for a in r.anomalies if a.kind == "lost")
    assert lost == ["a-1", "b-0"]


def test_value_read_during_the_run_then_gone_is_lost():
    h = H()
    h.send("a", 0).fail("a", 0)          # the client saw a timeout
    h.read("a-0", 0, consumer="c0")      # but a consumer read it
    h.end(0, 0)                          # and the final read has nothing
    r = check(h.events)
    assert kinds(r) == ["lost"]
    assert "read by c0" in r.anomalies[0].message


def test_incomplete_final_read_is_an_error_not_a_loss():
    h = H()
    h.write("a", 0, 0).end(0, 0, complete=False)
    r = check(h.events)
    assert not r.anomalies
    assert r.errors and "incomplete" in r.errors[0]
    assert not r.valid


def test_missing_final_read_is_an_error():
    h = H().write("a", 0, 0)
    r = check(h.events)
    assert r.errors == ["no final read of partition 0"]


def test_duplicate():
    h = H()
    h.write("a", 0, 0).write("a", 1, 1)
    h.read("a-0", 0).read("a-1", 1).read("a-0", 2).end(0, 3)
    r = check(h.events)
    assert "duplicate" in kinds(r)
    d = [a for a in r.anomalies if a.kind == "duplicate"][0]
    assert "p0@0" in d.message and "p0@2" in d.message


def test_inconsistent_offset_between_ack_and_read():
    h = H()
    h.write("a", 0, 0).write("b", 0, 1)
    # The final read finds another value at p0@1: b-0's ack named a position
    # that holds something else (and b-0 is lost).
    h.send("c", 0).fail("c", 0)
    h.read("a-0", 0).read("c-0", 1).end(0, 2)
    r = check(h.events)
    assert "inconsistent" in kinds(r)
    inc = [a for a in r.anomalies if a.kind == "inconsistent"][0]
    assert "p0@1 holds 2 values" in inc.message
    assert "lost" in kinds(r)


def test_inconsistent_offset_between_two_reads():
    h = H()
    h.write("a", 0, 0).send("b", 0).fail("b", 0).send("c", 0).fail("c", 0)
    h.read("a-0", 0, consumer="c0").read("b-0", 1, consumer="c0")
    h.read("a-0", 0).read("c-0", 1).end(0, 2)
    r = check(h.events)
    assert "inconsistent" in kinds(r)


def test_value_acknowledged_at_one_offset_read_at_another():
    h = H()
    h.write("a", 0, 5)
    h.read("a-0", 0).end(0, 1)
    r = check(h.events)
    msgs = [a.message for a in r.anomalies if a.kind == "inconsistent"]
    assert any("acknowledged at p0@5 but read at p0@0" in m for m in msgs)


def test_order_violation_within_a_partition():
    h = H()
    h.send("a", 0).send("a", 1).ack("a", 1, 0).ack("a", 0, 1)
    h.read("a-1", 0).read("a-0", 1).end(0, 2)
    r = check(h.events)
    assert kinds(r) == ["order"]
    assert "sent 'a-0' before 'a-1'" in r.anomalies[0].message


def test_different_producers_and_partitions_are_not_ordered():
    h = H()
    h.send("a", 0).send("b", 0).ack("b", 0, 0).ack("a", 0, 1)
    h.send("a", 1, partition=1).ack("a", 1, 0, partition=1)
    h.read("b-0", 0).read("a-0", 1).end(0, 2).read("a-1", 0, partition=1).end(1, 1)
    r = check(h.events)
    assert r.valid, checker.summary(r, h.events)


def test_nonmonotonic_read():
    h = H()
    h.write("a", 0, 0).write("a", 1, 1)
    h.read("a-0", 0, consumer="c0").read("a-1", 1, consumer="c0").read("a-0", 0, consumer="c0")
    h.read("a-0", 0).read("a-1", 1).end(0, 2)
    r = check(h.events)
    assert kinds(r) == ["nonmonotonic"]
    assert "c0 read p0@0 after p0@1" in r.anomalies[0].message


def test_reads_of_different_partitions_are_independent():
    h = H()
    h.write("a", 0, 5).write("a", 1, 0, partition=1)
    h.read("a-0", 5, consumer="c0").read("a-1", 0, partition=1, consumer="c0")
    h.read("a-0", 5).end(0, 6).read("a-1", 0, partition=1).end(1, 1)
    r = check(h.events)
    assert r.valid, checker.summary(r, h.events)


def test_skip_in_the_final_read():
    h = H()
    h.write("a", 0, 0).write("a", 1, 2)
    h.read("a-0", 0).read("a-1", 2).end(0, 3)
    r = check(h.events)
    assert kinds(r) == ["skip"]


def test_every_kind_is_printed_in_the_summary():
    h = H()
    h.write("a", 0, 0).write("a", 1, 1).write("a", 2, 2)
    h.read("a-2", 0).read("a-2", 1).end(0, 2)
    r = check(h.events)
    text = checker.summary(r, h.events)
    assert "lost" in text and "duplicate" in text and ">>" in text


def test_longest_ack_gap():
    events = [{"type": "send", "t": 0.0}, {"type": "ack", "t": 1.0},
              {"type": "ack", "t": 5.5}, {"type": "ack", "t": 6.0}]
    assert checker.longest_ack_gap(events) == 4.5
    assert checker.longest_ack_gap(events, end=10.0) == 4.5
    assert checker.longest_ack_gap(events, end=12.0) == 6.0


def test_ack_without_offset_counts_for_loss_only():
    h = H()
    h.write("a", 0, 0).send("a", 1).ack("a", 1, None).write("a", 2, 2)
    h.read("a-0", 0).read("a-1", 1).read("a-2", 2).end(0, 3)
    r = check(h.events)
    assert r.valid, checker.summary(r, h.events)
    assert r.stats["acks_without_offset"] == 1
    h2 = H()
    h2.send("a", 0).ack("a", 0, None).end(0, 0)
    assert kinds(check(h2.events)) == ["lost"]


# --- a consumer group's members (group_workload.GroupReader) ---------------

def _group(h, kind, consumer="g0", **fields):
    return h._add(type=kind, consumer=consumer, group="grp", **fields)


def test_a_member_starting_at_the_groups_commit_is_clean():
    h = H().write("p", 0, 0).write("p", 1, 1).write("p", 2, 2)
    _group(h, "assign", partitions=[0])
    h.read("p-0", 0, consumer="g0").read("p-1", 1, consumer="g0")
    _group(h, "commit-try", offsets=[[0, 2]])
    _group(h, "commit", offsets=[[0, 2]])
    _group(h, "revoke", partitions=[0], lost=False)
    # g1 takes the partition over at the commit; g0 gets it back and reads
    # it again from there (not a nonmonotonic read: a new assignment).
    _group(h, "assign", consumer="g1", partitions=[0])
    h.read("p-2", 2, consumer="g1")
    _group(h, "assign", partitions=[0])
    h.read("p-2", 2, consumer="g0")
    h.read("p-0", 0).read("p-1", 1).read("p-2", 2).end(0, 3)
    r = check(h.events)
    assert r.valid, checker.summary(r, h.events)


def test_a_member_starting_past_every_commit_skipped_records():
    h = H().write("p", 0, 0).write("p", 1, 1).write("p", 2, 2)
    _group(h, "assign", partitions=[0])
    h.read("p-0", 0, consumer="g0")
    _group(h, "commit-try", offsets=[[0, 1]])
    _group(h, "commit", offsets=[[0, 1]])
    _group(h, "assign", consumer="g1", partitions=[0])
    h.read("p-2", 2, consumer="g1")
    h.read("p-0", 0).read("p-1", 1).read("p-2", 2).end(0, 3)
    r = check(h.events)
    assert [a.kind for a in r.anomalies] == ["committed"]
    assert "above every commit tried (1): records skipped" in r.anomalies[0].message


def test_a_member_starting_below_an_acknowledged_commit_found_it_lost():
    h = H().write("p", 0, 0).write("p", 1, 1)
    _group(h, "assign", partitions=[0])
    h.read("p-0", 0, consumer="g0").read("p-1", 1, consumer="g0")
    _group(h, "commit-try", offsets=[[0, 2]])
    _group(h, "commit", offsets=[[0, 2]])
    _group(h, "assign", consumer="g1", partitions=[0])
    h.read("p-0", 0, consumer="g1")
    h.read("p-0", 0).read("p-1", 1).end(0, 2)
    r = check(h.events)
    assert [a.kind for a in r.anomalies] == ["committed"]
    assert "below the acknowledged commit 2" in r.anomalies[0].message


def test_a_commit_whose_answer_was_lost_may_have_been_applied():
    h = H().write("p", 0, 0).write("p", 1, 1)
    _group(h, "assign", partitions=[0])
    h.read("p-0", 0, consumer="g0")
    _group(h, "commit-try", offsets=[[0, 1]])
    _group(h, "commit-fail", error="timed out")
    _group(h, "assign", consumer="g1", partitions=[0])
    h.read("p-1", 1, consumer="g1")
    h.read("p-0", 0).read("p-1", 1).end(0, 2)
    r = check(h.events)
    assert r.valid, checker.summary(r, h.events)
