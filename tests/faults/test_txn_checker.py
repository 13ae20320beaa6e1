"""The transactional checks (txn_checker.py) on small hand-made histories:
each kind of anomaly is found, and none in a clean history."""
from checker import check
from test_checker import H


class T(H):
    """A history of transactions on topic "x" and copies of topic "in"."""

    def txn(self, name, n=2):
        for i in range(n):
            self._add(type="txn-send", txn=name, topic="x", value=f"{name}-{i}", partition=i)
        return self

    def commit(self, name):
        return self._add(type="txn-commit-try", txn=name)._add(type="txn-commit", txn=name)

    def abort(self, name):
        return self._add(type="txn-abort-try", txn=name)._add(type="txn-abort", txn=name)

    def unknown(self, name):
        return self._add(type="txn-commit-try", txn=name)._add(type="txn-unknown", txn=name,
                                                                error="fatal")

    def read(self, value, offset, partition, consumer="final"):
        return self._add(type="txn-read", consumer=consumer, topic="x", partition=partition,
                         offset=offset, value=value)

    def sealed(self, topic="x", partitions=2, complete=True):
        for p in range(partitions):
            self._add(type="txn-final-end", topic=topic, partition=p, complete=complete)
        return self

    # consume-transform-produce: input records of topic "in", their copies
    def input(self, partition, offset, value):
        return self._add(type="read", consumer="final", partition=partition, offset=offset,
                         value=value)

    def copy(self, partition, offset, value, at):
        return self._add(type="eos-read", consumer="final", topic="out", partition=partition,
                         offset=at, value=f"{partition}:{offset}:{value}")

    def committed(self, offsets):
        return self._add(type="eos-committed", group="g", sink="out", offsets=offsets)


def kinds(history):
    return sorted({a.kind for a in check(history).anomalies})


def committed_and_aborted():
    h = T().txn("a").commit("a").txn("b").abort("b")
    h.read("a-0", 0, 0, consumer="c1").read("a-1", 0, 1, consumer="c1")
    return h.read("a-0", 0, 0).read("a-1", 0, 1).sealed()


def test_committed_and_aborted_transactions_read_committed_are_clean():
    r = check(committed_and_aborted().events)
    assert not r.anomalies and not r.errors
    assert (r.stats["txn_committed"], r.stats["txn_aborted"]) == (1, 1)


def test_a_value_of_an_aborted_transaction_read_is_an_aborted_read():
    h = committed_and_aborted().read("b-0", 2, 0, consumer="c1")
    assert kinds(h.events) == ["aborted-read"]


def test_a_value_read_before_its_commit_was_asked_is_a_dirty_read():
    h = T().txn("a").read("a-0", 0, 0, consumer="c1").commit("a")
    h.read("a-0", 0, 0).read("a-1", 0, 1).sealed()
    assert kinds(h.events) == ["dirty-read"]


def test_a_committed_transaction_missing_a_value_is_lost_and_partial_only_if_unknown():
    h = T().txn("a").commit("a").read("a-0", 0, 0).sealed()
    assert kinds(h.events) == ["txn-lost"]
    h = T().txn("a").unknown("a").read("a-0", 0, 0).sealed()
    assert kinds(h.events) == ["partial"]
    # All or nothing of an unknown outcome is fine.
    h = T().txn("a").unknown("a").sealed()
    assert kinds(h.events) == []
    h = T().txn("a").unknown("a").read("a-0", 0, 0).read("a-1", 0, 1).sealed()
    assert kinds(h.events) == []


def test_without_the_seal_nothing_is_lost_but_the_run_has_an_error():
    h = T().txn("a").commit("a").read("a-0", 0, 0).sealed(complete=False)
    r = check(h.events)
    assert not r.anomalies
    assert any("seal" in e for e in r.errors)


def test_a_value_at_two_offsets_is_a_duplicate():
    h = T().txn("a").commit("a").read("a-0", 0, 0).read("a-0", 1, 0).read("a-1", 0, 1)
    assert kinds(h.sealed().events) == ["txn-duplicate"]


def copies():
    h = T().input(0, 0, "v0").input(0, 1, "v1").input(1, 0, "w0")
    return h.copy(0, 0, "v0", 0).copy(0, 1, "v1", 2).copy(1, 0, "w0", 0)


def test_copies_of_everything_below_the_committed_offsets_are_clean():
    h = copies().committed([[0, 2], [1, 1]]).sealed("out")
    assert kinds(h.events) == []


def test_a_record_copied_twice_is_an_eos_duplicate():
    h = copies().copy(1, 0, "w0", 2).committed([[0, 2], [1, 1]]).sealed("out")
    assert kinds(h.events) == ["eos-duplicate"]


def test_a_copy_with_another_value_is_a_mismatch():
    h = T().input(0, 0, "v0").copy(0, 0, "zz", 0).committed([[0, 1]]).sealed("out", 1)
    assert kinds(h.events) == ["eos-mismatch"]


def test_committed_offsets_past_a_missing_copy_is_eos_lost():
    h = copies().committed([[0, 3], [1, 1]]).sealed("out")
    assert kinds(h.events) == ["eos-lost"]


def test_a_copy_above_the_committed_offset_is_eos_ahead():
    h = copies().committed([[0, 1], [1, 1]]).sealed("out")
    assert kinds(h.events) == ["eos-ahead"]


def test_an_incomplete_read_of_the_copies_checks_nothing():
    h = copies().committed([[0, 9], [1, 1]]).sealed("out", complete=False)
    r = check(h.events)
    assert not r.anomalies
    assert any("out partition 1 did not get to its seal" in e for e in r.errors), r.errors
