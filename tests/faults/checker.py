"""The checker: reads a recorded history of a fault run and finds the
anomalies a Kafka-compatible log must never show, in the style of Jepsen's
queue and Kafka checkers.

A history is a list of events (dicts, in the order they happened; `t` is
seconds since the run started):

    {"type": "send",  "t", "producer", "seq", "value", "partition"}
    {"type": "ack",   "t", "producer", "seq", "value", "partition", "offset"}
                      (offset None: acknowledged without one, as librdkafka
                      reports a batch the broker answered as a duplicate)
    {"type": "fail",  "t", "producer", "seq", "value", "partition", "error"}
    {"type": "read",  "t", "consumer", "partition", "offset", "value"}
    {"type": "final-end", "t", "partition", "high", "complete"}
    {"type": "nemesis", "t", "phase": "start" | "heal", "fault", "detail"}

A member of a consumer group (group_workload.GroupReader) also records

    {"type": "assign", "t", "consumer", "group", "partitions"}
    {"type": "revoke", "t", "consumer", "group", "partitions", "lost"}
    {"type": "commit-try", "t", "consumer", "group", "offsets"}  ([[p, next offset]])
    {"type": "commit", "t", "consumer", "group", "offsets"}      (those committed)
    {"type": "commit-fail", "t", "consumer", "group", "error"}

and its reads as any consumer's, each assignment starting a new sequence of
them (a partition taken away and given back is read again from the commit).

The consumer named "final" is the read of every partition from the beginning
after all faults were healed; "final-end" closes its read of one partition
(`high`: the high watermark it read up to, `complete`: whether it got there).

Anomaly kinds:
    lost           an acknowledged value (or one a consumer read during the
                   run) that the final read does not hold
    duplicate      one value read at two positions (partition, offset)
    inconsistent   one position holding two values (between acks and reads),
                   or a value acknowledged at one position and read at another
    order          one producer's acknowledged values in a partition whose
                   offsets do not increase in the order they were sent
    nonmonotonic   a consumer that read an offset not above the one it read
                   before in the same partition
    skip           the final read jumping over offsets (no transactions and no
                   compaction here: a partition's offsets are dense)
    committed      a group member's first read of a partition it was assigned
                   not where the group's commits put it: below the highest
                   acknowledged commit (a commit lost: records read again), or
                   above every commit tried (records skipped)

An acknowledged write is lost only if the final read of its partition is
complete; an incomplete final read is an error of the run (the cluster did not
serve reads after healing), kept apart from the anomalies.
"""
from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Iterable, Optional

KINDS = ("lost", "duplicate", "inconsistent", "order", "nonmonotonic", "skip", "committed",
         # The transactional workload's (txn_checker.py).
         "aborted-read", "dirty-read", "txn-lost", "partial", "txn-duplicate",
         "eos-duplicate", "eos-mismatch", "eos-lost", "eos-ahead")
FINAL = "final"


@dataclass
class Anomaly:
    kind: str
    message: str
    events: list = field(default_factory=list)   # indexes into the history
    t: Optional[float] = None                     # when it shows (for the timeline)

    def describe(self, history: list, context: int = 2) -> str:
        """The anomaly and the events around it: its own events, and for each
        of them the `context` events of the same partition just before and
        after, plus the faults in force."""
        shown = set()
        for i in self.events:
            shown.add(i)
            p = history[i].get("partition")
            if p is None:
                continue
            same = [j for j, e in enumerate(history)
                    if e.get("partition") == p and e["type"] in ("ack", "read", "send", "fail")]
            k = same.index(i) if i in same else None
            if k is not None:
                shown.update(same[max(0, k - context):k + context + 1])
        ts = [history[i]["t"] for i in self.events] or [0.0]
        lo, hi = min(ts), max(ts)
        for j, e in enumerate(history):
            if e["type"] in ("nemesis", "client-log") and lo - 10 <= e["t"] <= hi + 1:
                shown.add(j)
        lines = [f"{self.kind}: {self.message}"]
        for j in sorted(shown):
            mark = ">>" if j in self.events else "  "
            lines.append(f"  {mark} #{j} {format_event(history[j])}")
        return "\n".join(lines)


@dataclass
class Result:
    anomalies: list
    errors: list
    stats: dict

    @property
    def valid(self) -> bool:
        return not self.anomalies and not self.errors

    def counts(self) -> dict:
        c = collections.Counter(a.kind for a in self.anomalies)
        return {k: c.get(k, 0) for k in KINDS}


def format_event(e: dict) -> str:
    t = f"t={e['t']:8.3f}"
    kind = e["type"]
    if kind == "send":
        return f"{t} send  {e['producer']}#{e['seq']} {e['value']!r} -> p{e['partition']}"
    if kind == "ack":
        return (f"{t} ack   {e['producer']}#{e['seq']} {e['value']!r} at "
                f"p{e['partition']}@{e['offset']}")
    if kind == "fail":
        return f"{t} fail  {e['producer']}#{e['seq']} {e['value']!r} p{e['partition']}: {e['error']}"
    if kind == "read":
        return f"{t} read  {e['consumer']} p{e['partition']}@{e['offset']} {e['value']!r}"
    if kind == "final-end":
        return (f"{t} final read of p{e['partition']} ends at high watermark {e['high']}"
                f"{'' if e['complete'] else ' (INCOMPLETE)'}")
    if kind == "nemesis":
        return f"{t} nemesis {e['phase']} {e['fault']} {e.get('detail', '')}"
    if kind == "client-log":
        return f"{t} {e['producer']} (librdkafka): {e['text']}"
    rest = {k: v for k, v in e.items() if k not in ("t", "type")}
    return f"{t} {kind} {rest}"


def longest_ack_gap(history: Iterable[dict], start: Optional[float] = None,
                    end: Optional[float] = None) -> float:
    """The longest time without an acknowledgement between `start` (the first
    send by default) and `end` (the last ack by default): availability."""
    acks = sorted(e["t"] for e in history if e["type"] == "ack")
    sends = [e["t"] for e in history if e["type"] == "send"]
    if start is None:
        start = min(sends) if sends else (acks[0] if acks else 0.0)
    points = [start] + [t for t in acks if t >= start]
    if end is not None:
        points = [t for t in points if t <= end] + [end]
    if len(points) < 2:
        return 0.0
    return max(b - a for a, b in zip(points, points[1:]))


def check(history: list) -> Result:
    anomalies: list = []
    errors: list = []

    sends = {}                                            # value -> index
    acks = {}                                             # value -> index
    fails = {}
    reads_by_value = collections.defaultdict(list)        # value -> [index]
    values_at = collections.defaultdict(dict)             # (p, o) -> {value: [index]}
    final_values = set()
    final_end = {}                                        # partition -> index
    partitions = set()

    for i, e in enumerate(history):
        kind = e["type"]
        if kind == "send":
            sends[e["value"]] = i
            partitions.add(e["partition"])
        elif kind == "ack":
            if e["value"] in acks:
                anomalies.append(Anomaly("duplicate", f"value {e['value']!r} acknowledged twice",
                                         [acks[e["value"]], i], e["t"]))
            acks[e["value"]] = i
            if e["offset"] is not None:
                values_at[(e["partition"], e["offset"])].setdefault(e["value"], []).append(i)
            partitions.add(e["partition"])
        elif kind == "fail":
            fails[e["value"]] = i
        elif kind == "read":
            reads_by_value[e["value"]].append(i)
            values_at[(e["partition"], e["offset"])].setdefault(e["value"], []).append(i)
            if e["consumer"] == FINAL:
                final_values.add(e["value"])
            partitions.add(e["partition"])
        elif kind == "final-end":
            final_end[e["partition"]] = i

    # --- the final read: complete for every partition written to? ---------
    complete = {p for p, i in final_end.items() if history[i]["complete"]}
    for p in sorted(partitions):
        if p not in final_end:
            errors.append(f"no final read of partition {p}")
        elif p not in complete:
            errors.append(f"final read of partition {p} incomplete: "
                          f"{format_event(history[final_end[p]])}")

    # --- lost: acknowledged, or read during the run, and not read at the end
    lost_values = []
    for v, i in acks.items():
        p = history[i]["partition"]
        if p in complete and v not in final_values:
            lost_values.append((v, i, "acknowledged"))
    for v, idx in reads_by_value.items():
        if v in acks or v in final_values:
            continue
        first = idx[0]
        p = history[first]["partition"]
        if p in complete:
            lost_values.append((v, first, f"read by {history[first]['consumer']}"))
    for v, i, how in sorted(lost_values, key=lambda x: x[1]):
        e = history[i]
        where = f"p{e['partition']}@{e['offset']}"
        evs = ([sends[v]] if v in sends else []) + [i]
        high = history[final_end[e["partition"]]]["high"]
        anomalies.append(Anomaly(
            "lost", f"value {v!r} {how} at {where}, absent from the final read "
                    f"(which read p{e['partition']} up to {high})", evs, e["t"]))

    # --- duplicate: one value read at two positions -----------------------
    for v, idx in reads_by_value.items():
        positions = sorted({(history[i]["partition"], history[i]["offset"]) for i in idx})
        if len(positions) > 1:
            firsts = [next(i for i in idx if (history[i]["partition"], history[i]["offset"]) == pos)
                      for pos in positions]
            anomalies.append(Anomaly(
                "duplicate", f"value {v!r} read at {len(positions)} positions: "
                             + ", ".join(f"p{p}@{o}" for p, o in positions),
                firsts, history[firsts[-1]]["t"]))

    # --- inconsistent: one position, two values; or ack and read disagree -
    for (p, o), vals in sorted(values_at.items()):
        if len(vals) > 1:
            idx = [ixs[0] for ixs in vals.values()]
            anomalies.append(Anomaly(
                "inconsistent", f"p{p}@{o} holds {len(vals)} values: "
                                + ", ".join(repr(v) for v in vals),
                sorted(idx), max(history[i]["t"] for i in idx)))
    for v, i in acks.items():
        a = history[i]
        if a["offset"] is None:
            continue
        elsewhere = [j for j in reads_by_value.get(v, ())
                     if (history[j]["partition"], history[j]["offset"]) != (a["partition"], a["offset"])]
        if elsewhere:
            j = elsewhere[0]
            anomalies.append(Anomaly(
                "inconsistent", f"value {v!r} acknowledged at p{a['partition']}@{a['offset']} "
                                f"but read at p{history[j]['partition']}@{history[j]['offset']}",
                [i, j], history[j]["t"]))

    # --- order: a producer's acks in a partition follow its send order ----
    by_producer = collections.defaultdict(list)
    for v, i in acks.items():
        a = history[i]
        if a["offset"] is None:
            continue
        by_producer[(a["producer"], a["partition"])].append(i)
    for (prod, p), idx in sorted(by_producer.items()):
        idx.sort(key=lambda i: history[i]["seq"])
        for x, y in zip(idx, idx[1:]):
            if history[y]["offset"] <= history[x]["offset"]:
                ex, ey = history[x], history[y]
                anomalies.append(Anomaly(
                    "order", f"{prod} sent {ex['value']!r} before {ey['value']!r} to p{p} but "
                             f"they were acknowledged at offsets {ex['offset']} and {ey['offset']}",
                    [x, y], max(ex["t"], ey["t"])))

    # --- nonmonotonic reads, and skips in the final read -------------------
    last = {}
    for i, e in enumerate(history):
        if e["type"] == "assign":
            # A group member reads an assigned partition afresh from the commit.
            for p in e["partitions"]:
                last.pop((e["consumer"], p), None)
            continue
        if e["type"] != "read":
            continue
        key = (e["consumer"], e["partition"])
        if key in last:
            prev = history[last[key]]
            if e["offset"] <= prev["offset"]:
                anomalies.append(Anomaly(
                    "nonmonotonic", f"{e['consumer']} read p{e['partition']}@{e['offset']} after "
                                    f"p{prev['partition']}@{prev['offset']}",
                    [last[key], i], e["t"]))
            elif e["consumer"] == FINAL and e["offset"] != prev["offset"] + 1:
                anomalies.append(Anomaly(
                    "skip", f"the final read of p{e['partition']} went from offset "
                            f"{prev['offset']} to {e['offset']}", [last[key], i], e["t"]))
        last[key] = i

    anomalies += check_commits(history)
    import txn_checker  # it imports this module
    txn_anomalies, txn_errors, txn_stats = txn_checker.check_transactions(history)
    anomalies += txn_anomalies
    errors += txn_errors

    acked_n = len(acks)
    stats = {
        "sends": len(sends),
        "acks": acked_n,
        "acks_without_offset": sum(1 for i in acks.values() if history[i]["offset"] is None),
        "fails": len(fails),
        "indeterminate": len(sends) - acked_n - len(fails),
        "reads": sum(len(v) for v in reads_by_value.values()),
        "client_epoch_bumps": sum(1 for e in history if e["type"] == "client-log"
                                  and "bumped epoch" in e.get("text", "")),
        "final_reads": len(final_values),
        "partitions": len(partitions),
        "longest_ack_gap": round(longest_ack_gap(history), 3),
        # The same within each partition (a partition without a leader
        # stalls while the others go on): the worst of them.
        "longest_partition_gap": round(max(
            [longest_ack_gap([e for e in history if e.get("partition") == p
                              and e["type"] in ("send", "ack")]) for p in partitions]
            or [0.0]), 3),
    }
    stats.update(txn_stats)
    anomalies.sort(key=lambda a: (KINDS.index(a.kind), a.t or 0.0))
    return Result(anomalies, errors, stats)


def check_commits(history: list) -> list:
    """The `committed` anomalies: for each partition a group member was
    assigned, its first read after that must be at an offset between the
    highest commit of the group acknowledged so far and the highest tried so
    far (a commit whose answer was lost may have been applied); with none,
    at the log's start (auto.offset.reset=earliest, nothing deleted)."""
    out: list = []
    acked = {}      # (group, partition) -> (offset, index)
    tried = {}      # (group, partition) -> (offset, index)
    pending = {}    # (consumer, partition) -> (group, index of the assign)
    for i, e in enumerate(history):
        kind = e["type"]
        if kind == "assign":
            for p in e["partitions"]:
                pending[(e["consumer"], p)] = (e["group"], i)
        elif kind == "revoke":
            for p in e["partitions"]:
                pending.pop((e["consumer"], p), None)
        elif kind in ("commit-try", "commit"):
            seen = tried if kind == "commit-try" else acked
            for p, o in e["offsets"]:
                key = (e["group"], p)
                if o > seen.get(key, (-1, -1))[0]:
                    seen[key] = (o, i)
        elif kind == "read" and (e["consumer"], e["partition"]) in pending:
            group, assigned = pending.pop((e["consumer"], e["partition"]))
            key = (group, e["partition"])
            lo, lo_at = acked.get(key, (0, None))
            hi, hi_at = tried.get(key, (0, None))
            hi = max(hi, lo)
            if lo <= e["offset"] <= hi:
                continue
            why = (f"below the acknowledged commit {lo}: a commit lost" if e["offset"] < lo
                   else f"above every commit tried ({hi}): records skipped")
            evs = sorted({assigned, i} | {j for j in (lo_at, hi_at) if j is not None})
            out.append(Anomaly(
                "committed", f"{e['consumer']} of group {group} first read p{e['partition']} "
                             f"at {e['offset']} after its assignment, {why}", evs, e["t"]))
    return out


def summary(result: Result, history: list, limit: int = 20) -> str:
    """The text of a result: counts, then each anomaly with its events (the
    first `limit` of them)."""
    lines = []
    s = result.stats
    lines.append(f"sends {s['sends']}, acked {s['acks']}, failed {s['fails']}, "
                 f"indeterminate {s['indeterminate']}, "
                 f"acked without an offset {s['acks_without_offset']}, reads {s['reads']}, "
                 f"final read {s['final_reads']} values, "
                 f"longest gap between acks {s['longest_ack_gap']:.1f}s "
                 f"({s['longest_partition_gap']:.1f}s in one partition)")
    if "txn_committed" in s:
        lines.append(f"transactions: committed {s['txn_committed']}, aborted "
                     f"{s['txn_aborted']}, unknown {s['txn_unknown']}; copier: "
                     f"{s['eos_commits']} commits, {s['eos_aborts']} aborts, "
                     f"{s['eos_copies']} copies read")
    counts = result.counts()
    lines.append("anomalies: " + ", ".join(f"{k} {n}" for k, n in counts.items())
                 + f" (total {len(result.anomalies)})")
    if s.get("client_epoch_bumps"):
        lines.append(f"note: the producers bumped their epoch {s['client_epoch_bumps']} times "
                     "(after messages timed out): librdkafka then renumbers the messages "
                     "still unacknowledged, and one already in the log is written again "
                     "(a duplicate the client causes)")
    for err in result.errors:
        lines.append(f"error: {err}")
    for a in result.anomalies[:limit]:
        lines.append(a.describe(history))
    if len(result.anomalies) > limit:
        lines.append(f"... and {len(result.anomalies) - limit} more")
    return "\n".join(lines)
