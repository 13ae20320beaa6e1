"""The checks of the transactional workload (txn_workload.py documents its
events), after Jepsen's: a transaction's values are visible all together or
not at all, and only once it committed.

    aborted-read   a read_committed reader got a value of a transaction that
                   was aborted (G1a)
    dirty-read     a read_committed reader got a value before its transaction
                   asked to commit, or of one that never did (G1b)
    txn-lost       a transaction whose commit was acknowledged, with a value
                   missing from the final read
    partial        a transaction of which the final read has some values but
                   not all (atomicity; its outcome may be unknown)
    txn-duplicate  a transaction's value at two offsets
    eos-duplicate  consume-transform-produce copied one input record twice
    eos-mismatch   a copy whose value is not the input record's
    eos-lost       an input record below the copier group's committed offset
                   with no copy (its offsets committed without its copy)
    eos-ahead      a copy of an input record at or above the committed offset
                   (its copy committed without its offsets: it is copied again)

A check that needs a final read runs only when that read got to its seal
(an incomplete one is an error of the run, as in checker.py).
"""
from __future__ import annotations

import collections

from checker import FINAL, Anomaly

TXN_KINDS = ("aborted-read", "dirty-read", "txn-lost", "partial", "txn-duplicate",
             "eos-duplicate", "eos-mismatch", "eos-lost", "eos-ahead")


class _Txn:
    def __init__(self):
        self.values: list = []
        self.sends: list = []          # history indexes
        self.commit_try = None         # index
        self.outcome = None            # "commit", "abort", "unknown"
        self.end = None                # index of the outcome


def check_transactions(history: list):
    """(anomalies, errors, stats) of the transactional workload; nothing when
    the history has none."""
    anomalies: list = []
    errors: list = []
    txns = collections.defaultdict(_Txn)
    txn_of = {}
    live, final = [], collections.defaultdict(list)     # value -> [index]
    ends = {}                                           # (topic, partition) -> complete
    txn_topic = None
    eos_out = []                                        # indexes of eos-read events
    eos_committed = None
    for i, e in enumerate(history):
        kind = e["type"]
        if kind == "txn-send":
            t = txns[e["txn"]]
            t.values.append(e["value"])
            t.sends.append(i)
            txn_of[e["value"]] = e["txn"]
            txn_topic = e["topic"]
        elif kind == "txn-commit-try":
            txns[e["txn"]].commit_try = i
        elif kind in ("txn-commit", "txn-abort", "txn-unknown"):
            txns[e["txn"]].outcome = kind[4:]
            txns[e["txn"]].end = i
        elif kind == "txn-read":
            if e["consumer"] == FINAL:
                final[e["value"]].append(i)
            else:
                live.append(i)
        elif kind == "eos-read":
            eos_out.append(i)
        elif kind == "txn-final-end":
            ends[(e["topic"], e["partition"])] = e["complete"]
        elif kind == "eos-committed":
            eos_committed = i
    if not txns and not eos_out and eos_committed is None:
        return anomalies, errors, {}

    for (topic, p), complete in sorted(ends.items()):
        if not complete:
            errors.append(f"final read_committed read of {topic} partition {p} did not get "
                          "to its seal (an open transaction, or the cluster did not serve)")

    # --- reads of what was never committed ----------------------------------
    for i in live + [j for js in final.values() for j in js]:
        e = history[i]
        name = txn_of.get(e["value"])
        if name is None:
            continue
        t = txns[name]
        where = f"{e['consumer']} read {e['value']!r} at p{e['partition']}@{e['offset']}"
        if t.outcome == "abort":
            anomalies.append(Anomaly("aborted-read", f"{where}: its transaction {name} was "
                                     "aborted", [t.end, i], e["t"]))
        elif t.commit_try is None or e["t"] < history[t.commit_try]["t"]:
            anomalies.append(Anomaly(
                "dirty-read", f"{where} before its transaction {name} asked to commit",
                [i] + ([t.commit_try] if t.commit_try is not None else []), e["t"]))

    # --- the final read: all or nothing, committed ones all ------------------
    txn_ends = [c for (topic, _), c in ends.items() if topic == txn_topic]
    txn_final_complete = bool(txn_ends) and all(txn_ends)
    if txn_final_complete:
        for name, t in txns.items():
            seen = [v for v in t.values if v in final]
            if t.outcome == "commit" and len(seen) < len(t.values):
                missing = [v for v in t.values if v not in final]
                anomalies.append(Anomaly(
                    "txn-lost", f"transaction {name} committed, but the final read lacks "
                                f"{missing}", [t.end] + t.sends, history[t.end]["t"]))
            elif 0 < len(seen) < len(t.values):
                anomalies.append(Anomaly(
                    "partial", f"transaction {name} ({t.outcome or 'no outcome'}): the final "
                               f"read has {seen} of {t.values}",
                    t.sends + [final[v][0] for v in seen], history[t.sends[0]]["t"]))
    for v, idx in final.items():
        if len({history[i]["offset"] for i in idx}) > 1:
            anomalies.append(Anomaly("txn-duplicate", f"value {v!r} read at offsets "
                                     f"{sorted({history[i]['offset'] for i in idx})}", idx,
                                     history[idx[-1]]["t"]))

    anomalies += _check_eos(history, eos_out, eos_committed, ends, errors)
    stats = {
        "txn_committed": sum(1 for t in txns.values() if t.outcome == "commit"),
        "txn_aborted": sum(1 for t in txns.values() if t.outcome == "abort"),
        "txn_unknown": sum(1 for t in txns.values() if t.outcome in ("unknown", None)),
        "eos_commits": sum(1 for e in history if e["type"] == "eos-commit"),
        "eos_aborts": sum(1 for e in history if e["type"] == "eos-abort"),
        "eos_copies": len(eos_out),
    }
    return anomalies, errors, stats


def _check_eos(history, out_idx, committed_at, ends, errors) -> list:
    """Each input record below the group's committed offsets copied exactly
    once, and none at or above them."""
    if committed_at is None:
        return []
    committed = history[committed_at]
    if committed.get("offsets") is None:
        errors.append(f"the copier group's offsets could not be read: {committed.get('error')}")
        return []
    sink_ends = [c for (t, _), c in ends.items() if t == committed["sink"]]
    if not sink_ends or not all(sink_ends):
        return []
    inputs = {}                                          # (p, o) -> value
    for e in history:
        if e["type"] == "read" and e["consumer"] == FINAL:
            inputs[(e["partition"], e["offset"])] = e["value"]
    limit = {p: o for p, o in committed["offsets"]}
    out: list = []
    copies = collections.defaultdict(list)
    for i in out_idx:
        p, o, value = history[i]["value"].split(":", 2)
        copies[(int(p), int(o))].append((i, value))
    for (p, o), got in sorted(copies.items()):
        idx = [i for i, _ in got]
        if len(got) > 1:
            out.append(Anomaly("eos-duplicate", f"input p{p}@{o} copied {len(got)} times",
                               idx, history[idx[-1]]["t"]))
        want = inputs.get((p, o))
        if want is not None and any(v != want for _, v in got):
            out.append(Anomaly("eos-mismatch", f"input p{p}@{o} is {want!r}, copied as "
                               f"{sorted({v for _, v in got})}", idx, history[idx[0]]["t"]))
        if o >= limit.get(p, -1):
            out.append(Anomaly("eos-ahead", f"input p{p}@{o} copied, but the group's committed "
                               f"offset is {limit.get(p)}", idx + [committed_at],
                               history[idx[0]]["t"]))
    for p, upto in sorted(limit.items()):
        missing = [o for o in range(max(upto, 0)) if (p, o) not in copies]
        if missing:
            out.append(Anomaly("eos-lost", f"{len(missing)} input records of p{p} below the "
                               f"committed offset {upto} have no copy (first {missing[:5]})",
                               [committed_at], committed["t"]))
    return out
