"""Nemeses (the faults) and the seeded schedule that decides which fault hits
which nodes when.

    partition   nodes split in two groups that cannot reach each other
                (nftables drop rules in both directions, in every node's namespace)
    oneway      one group stops hearing the other (drop on input only):
                its packets still reach the other group
    bridge      two halves cut from each other, one node seeing both
    netem       packet loss, delay and reordering on some nodes' links (tc netem
                when the kernel has it; else nftables random loss plus a tbf
                rate limit, see `netem_mode`)
    kill        kill -9 of some nodes; healing restarts them on the same data
    pause       SIGSTOP of some nodes; healing sends SIGCONT
    clock       some nodes' wall clocks jumped (libfaketime): by seconds to an
                hour, forward or back, or strobing between two offsets;
                healing puts them back (itself a jump, as Jepsen's reset)
    disk        some nodes' data dirs (a tmpfs each) filled to the last byte, so
                that writes fail with ENOSPC; healing frees the space and
                restarts the node (a log dir that failed stays offline until then)

The client namespace always reaches every node: the faults are between nodes.
Every fault is healed at the end of its interval, and heal_all() heals what
is left at the end of a run.
"""
from __future__ import annotations

import random
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Optional

from netns import NetnsError, run

KINDS = ("partition", "oneway", "bridge", "netem", "kill", "pause", "disk", "clock")
TABLE = "samsa_faults"


@dataclass
class Fault:
    kind: str
    start: float                 # seconds since the run started
    end: float
    groups: list = field(default_factory=list)   # node id lists, by kind (see describe)
    params: dict = field(default_factory=dict)

    def describe(self) -> str:
        g = self.groups
        fmt = lambda ids: "{" + ",".join(str(i) for i in ids) + "}"  # noqa: E731
        if self.kind == "partition":
            return f"{fmt(g[0])} x {fmt(g[1])}"
        if self.kind == "oneway":
            return f"{fmt(g[0])} does not hear {fmt(g[1])}"
        if self.kind == "bridge":
            return f"{fmt(g[0])} x {fmt(g[1])}, bridge {fmt(g[2])}"
        if self.kind == "clock":
            offs = " ".join(f"{n}:{o:+d}s" for n, o in self.params["offsets"].items())
            return f"nodes {fmt(g[0])}: {offs}{' strobing' if self.params['strobe'] else ''}"
        if self.kind == "netem":
            return f"nodes {fmt(g[0])}: " + " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"nodes {fmt(g[0])}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "start": self.start, "end": self.end,
                "groups": self.groups, "params": self.params, "detail": self.describe()}


# --- the schedule -----------------------------------------------------------
def _targets(rng: random.Random, ids: list, full: bool) -> list:
    """Nodes a kill or pause hits: one in quick runs; in full runs one, a
    minority, a majority or all of them."""
    if not full:
        return sorted(rng.sample(ids, 1))
    n = rng.choice([1, 1, max(1, (len(ids) - 1) // 2), len(ids) // 2 + 1, len(ids)])
    return sorted(rng.sample(ids, n))


def make_fault(rng: random.Random, kind: str, start: float, end: float, ids: list,
               full: bool) -> Fault:
    shuffled = ids[:]
    rng.shuffle(shuffled)
    if kind in ("partition", "oneway"):
        k = rng.randint(1, len(ids) // 2) if len(ids) > 1 else 1
        return Fault(kind, start, end, [sorted(shuffled[:k]), sorted(shuffled[k:])])
    if kind == "bridge":
        b = shuffled[0]
        rest = shuffled[1:]
        half = len(rest) // 2
        return Fault(kind, start, end, [sorted(rest[:half]), sorted(rest[half:]), [b]])
    if kind == "netem":
        nodes = sorted(rng.sample(ids, rng.randint(1, len(ids))))
        return Fault(kind, start, end, [nodes],
                     {"delay_ms": rng.choice([20, 50, 100]), "jitter_ms": rng.choice([10, 30]),
                      "loss_pct": rng.choice([5, 10, 20]), "reorder_pct": rng.choice([10, 25])})
    if kind == "clock":
        nodes = sorted(rng.sample(ids, rng.randint(1, len(ids))))
        offsets = {n: rng.choice([-3600, -300, -60, -5, 5, 60, 300, 3600]) for n in nodes}
        strobe = rng.random() < 0.3
        return Fault(kind, start, end, [nodes],
                     {"offsets": {str(n): o for n, o in offsets.items()}, "strobe": strobe})
    if kind in ("kill", "pause", "disk"):
        return Fault(kind, start, end, [_targets(rng, ids, full)])
    raise ValueError(f"unknown nemesis {kind!r} (one of {', '.join(KINDS)})")


def schedule(seed: int, kinds: list, duration: float, ids: list, full: bool = False,
             warmup: float = 2.0, cooldown: float = 2.0,
             fault_len: tuple = (4.0, 7.0), quiet: tuple = (2.0, 4.0)) -> list:
    """The fault timeline of a run: after `warmup`, faults of the given kinds
    (in a seeded random order, each kind once before any repeats) separated
    by quiet intervals, all ending `cooldown` before `duration`. The same
    arguments always give the same timeline."""
    rng = random.Random(seed)
    faults = []
    t = warmup
    bag: list = []
    while True:
        length = rng.uniform(*fault_len)
        if t + length > duration - cooldown:
            break
        if not bag:
            bag = list(kinds)
            rng.shuffle(bag)
        kind = bag.pop()
        faults.append(make_fault(rng, kind, round(t, 2), round(t + length, 2), ids, full))
        t += length + rng.uniform(*quiet)
    if not faults:       # a run shorter than one fault still gets one, short
        length = max(1.0, duration - warmup - cooldown)
        faults.append(make_fault(rng, kinds[0], warmup, warmup + length, ids, full))
    return faults


# --- applying faults ----------------------------------------------------------
_netem_ok: Optional[bool] = None


def netem_mode(ns: str) -> str:
    """"netem" when the kernel has sch_netem, else "nft-loss" (random drops
    with nftables and a tbf rate limit; no reordering)."""
    global _netem_ok
    if _netem_ok is None:
        res = run("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root",
                  "netem", "delay", "1ms", check=False)
        _netem_ok = res.returncode == 0
        if _netem_ok:
            run("ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", "lo", "root", check=False)
    return "netem" if _netem_ok else "nft-loss"


class Nemesis:
    """Applies and heals faults on a FaultCluster (fault_cluster.py)."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.net = cluster.net
        self.active: list = []

    def node(self, node_id: int):
        return self.cluster.node(node_id)

    def _ns(self, node_id: int) -> str:
        return self.net.node_ns(node_id)

    def _nft(self, node_id: int, script: str) -> None:
        run("ip", "netns", "exec", self._ns(node_id), "nft", "-f", "-", input=script)

    def _drop(self, node_id: int, inbound: list, outbound: list) -> None:
        """Adds drop rules in node_id's namespace: packets from `inbound` nodes,
        packets to `outbound` nodes."""
        ips = lambda ids: ", ".join(self.net.node_ip(i) for i in ids)  # noqa: E731
        lines = [f"table inet {TABLE} {{",
                 "  chain input { type filter hook input priority 0; policy accept; }",
                 "  chain output { type filter hook output priority 0; policy accept; }",
                 "}"]
        if inbound:
            lines.append(f"add rule inet {TABLE} input ip saddr {{ {ips(inbound)} }} drop")
        if outbound:
            lines.append(f"add rule inet {TABLE} output ip daddr {{ {ips(outbound)} }} drop")
        self._nft(node_id, "\n".join(lines) + "\n")

    def _clear_rules(self, node_id: int) -> None:
        run("ip", "netns", "exec", self._ns(node_id), "nft", "delete", "table", "inet", TABLE,
            check=False)

    def apply(self, f: Fault) -> str:
        """Starts fault `f`; returns what was done, for the history."""
        g = f.groups
        if f.kind == "partition":
            for a, b in ((g[0], g[1]), (g[1], g[0])):
                for n in a:
                    self._drop(n, b, b)
        elif f.kind == "oneway":
            for n in g[0]:
                self._drop(n, g[1], [])
        elif f.kind == "bridge":
            for a, b in ((g[0], g[1]), (g[1], g[0])):
                for n in a:
                    self._drop(n, b, b)
        elif f.kind == "netem":
            mode = netem_mode(self._ns(g[0][0]))
            p = f.params
            for n in g[0]:
                if mode == "netem":
                    run("ip", "netns", "exec", self._ns(n), "tc", "qdisc", "add", "dev", "eth0",
                        "root", "netem", "delay", f"{p['delay_ms']}ms", f"{p['jitter_ms']}ms",
                        "loss", f"{p['loss_pct']}%", "reorder", f"{p['reorder_pct']}%")
                else:
                    others = [i for i in range(1, self.net.nodes + 1) if i != n]
                    ips = ", ".join(self.net.node_ip(i) for i in others)
                    self._nft(n, "\n".join([
                        f"table inet {TABLE} {{",
                        "  chain input { type filter hook input priority 0; policy accept; }",
                        "  chain output { type filter hook output priority 0; policy accept; }",
                        "}",
                        f"add rule inet {TABLE} input ip saddr {{ {ips} }} "
                        f"numgen random mod 100 < {p['loss_pct']} drop",
                        f"add rule inet {TABLE} output ip daddr {{ {ips} }} "
                        f"numgen random mod 100 < {p['loss_pct']} drop"]) + "\n")
                    run("ip", "netns", "exec", self._ns(n), "tc", "qdisc", "add", "dev", "eth0",
                        "root", "tbf", "rate", "2mbit", "burst", "16kb", "latency",
                        f"{max(50, p['delay_ms'] * 4)}ms")
            self.active.append(f)
            return f"{f.describe()} ({mode})"
        elif f.kind == "kill":
            for n in g[0]:
                b = self.node(n)
                b.killed = True
                b.kill(signal.SIGKILL)
                try:
                    b.wait(timeout=20)
                except Exception:
                    pass
        elif f.kind == "pause":
            for n in g[0]:
                b = self.node(n)
                if b.is_running():
                    b.kill(signal.SIGSTOP)
                    b.paused = True
        elif f.kind == "clock":
            for n, o in f.params["offsets"].items():
                self.node(int(n)).set_clock_offset(o)
            if f.params["strobe"]:
                f.stop_strobe = threading.Event()
                f.strober = threading.Thread(target=self._strobe, args=(f,), daemon=True)
                f.strober.start()
        elif f.kind == "disk":
            taken = []
            for n in g[0]:
                taken.append(f"node {n}: {self.node(n).fill_disk() // 1024} KiB taken")
            self.active.append(f)
            return f"{f.describe()} ({'; '.join(taken)})"
        else:
            raise ValueError(f.kind)
        self.active.append(f)
        return f.describe()

    def heal(self, f: Fault) -> None:
        g = f.groups
        if f.kind in ("partition", "oneway", "bridge"):
            for n in sorted({n for grp in g for n in grp}):
                self._clear_rules(n)
        elif f.kind == "netem":
            for n in g[0]:
                self._clear_rules(n)
                run("ip", "netns", "exec", self._ns(n), "tc", "qdisc", "del", "dev", "eth0",
                    "root", check=False)
        elif f.kind == "kill":
            for n in g[0]:
                b = self.node(n)
                if not b.is_running():
                    b.start(wait_ready=False)
                b.killed = False
        elif f.kind == "pause":
            for n in g[0]:
                b = self.node(n)
                if b.is_running():
                    b.kill(signal.SIGCONT)
                b.paused = False
        elif f.kind == "disk":
            for n in g[0]:
                b = self.node(n)
                b.free_disk()
                self._restart(b)
        elif f.kind == "clock":
            if getattr(f, "strober", None) is not None:
                f.stop_strobe.set()
                f.strober.join(timeout=10)
            for n in g[0]:
                self.node(n).set_clock_offset(0)
        if f in self.active:
            self.active.remove(f)

    def _strobe(self, f: Fault) -> None:
        """Flips the nodes' clocks between their offset and none, every 1.1 s
        (libfaketime reads its file once a second)."""
        on = True
        while not f.stop_strobe.wait(1.1):
            on = not on
            for n, o in f.params["offsets"].items():
                self.node(int(n)).set_clock_offset(o if on else 0)

    def _restart(self, b) -> None:
        """SIGTERM (SIGKILL after 20 s), then a start on the same data."""
        b.killed = True
        if b.is_running():
            b.kill(signal.SIGCONT)
            b.kill(signal.SIGTERM)
            try:
                b.wait(timeout=20)
            except Exception:
                b.kill(signal.SIGKILL)
                b.wait(timeout=20)
        b.start(wait_ready=False)
        b.killed = False

    def heal_all(self) -> None:
        """Heals every active fault, then makes sure no rule, qdisc, pause or
        dead node is left behind (whatever happened before)."""
        for f in list(self.active):
            try:
                self.heal(f)
            except (NetnsError, subprocess.SubprocessError):
                pass
        for b in self.cluster.nodes:
            if b.faketime_file is not None:
                b.set_clock_offset(0)
            if b.filler.exists():
                b.free_disk()
                self._restart(b)
            self._clear_rules(b.node_id)
            run("ip", "netns", "exec", self._ns(b.node_id), "tc", "qdisc", "del", "dev", "eth0",
                "root", check=False)
            if b.is_running():
                b.kill(signal.SIGCONT)
                b.paused = False
            elif getattr(b, "killed", False):
                b.start(wait_ready=False)
                b.killed = False
