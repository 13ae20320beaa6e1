#!/usr/bin/python3
"""Runs the fault harness (docs/faults.md): a cluster in network namespaces, a
workload of real clients, seeded faults, and the checker over the history.

    /usr/bin/python3 tests/faults/run.py                 quick: one short run per nemesis
    /usr/bin/python3 tests/faults/run.py --full          10 runs of 5 minutes per nemesis,
                                                         and 10 mixing them all
    /usr/bin/python3 tests/faults/run.py --nemesis kill --seed 42 --duration 20
                                                         replays one run

Ends with one line: "faults: N anomalies in M runs". Needs root.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
for d in (HERE, HERE.parent / "integration", HERE.parent / "cluster"):
    if str(d) not in sys.path:
        sys.path.insert(0, str(d))

import checker  # noqa: E402
import group_workload  # noqa: E402
import netns  # noqa: E402
import nemesis as nem  # noqa: E402
import report  # noqa: E402
import txn_workload  # noqa: E402
import workload  # noqa: E402
from fault_cluster import FaultCluster  # noqa: E402
from samsa_harness import samsa_bin  # noqa: E402

QUICK_DURATION = 12.0
FULL_DURATION = 300.0
FULL_RUNS = 10
PARTITIONS = 3
PRODUCERS = 2
RATE = 50.0            # sends per second per producer
GROUP_MEMBERS = 2      # members of the consumer group reading the topic
GROUP_REJOIN_S = 5.0   # how often one of them leaves and joins again


def artefacts_root() -> Path:
    base = os.environ.get("SAMSA_ARTIFACTS_DIR")
    if base:
        p = Path(base) / "faults"
        p.mkdir(parents=True, exist_ok=True)
        return p
    return Path(tempfile.mkdtemp(prefix="samsa-faults-"))


def replay_command(kinds: list, seed: int, duration: float, full: bool,
                   controllers: int = 0) -> str:
    nem_arg = "+".join(kinds)     # one run mixing them
    return (f"make faults NEMESIS={nem_arg} SEED={seed} DURATION={duration:g}"
            f"{' FULL=1' if full else ''}{f' CONTROLLERS={controllers}' if controllers else ''}"
            f" RUNS=1   "
            f"(or: /usr/bin/python3 tests/faults/run.py --nemesis {nem_arg} --seed {seed} "
            f"--duration {duration:g}{' --full' if full else ''}"
            f"{f' --controllers {controllers}' if controllers else ''} --runs 1)")


class Harness:
    """Namespaces and a started cluster, with this thread inside the client
    namespace; everything is removed on close(), pass or fail."""

    def __init__(self, nodes: int = 3, binary: Optional[Path] = None, controllers: int = 0,
                 env: Optional[dict] = None):
        """`nodes` brokers; `controllers` > 0 adds that many controller-only
        nodes (separate roles), else every node is both; `env`: environment
        variables of the nodes' processes."""
        why = (netns.can_create_namespaces() or workload.kafkajs_problem()
               or group_workload.librdkafka_next_problem())
        if why:
            raise RuntimeError(why)
        self.binary = Path(binary or samsa_bin())
        if not self.binary.exists():
            raise RuntimeError(f"samsa binary not found at {self.binary}: build it "
                               "(cmake --build build --target samsa) or set SAMSA_BIN")
        self.net = netns.Net(nodes + controllers)
        self.controllers = controllers
        self.env = env
        self._stack = contextlib.ExitStack()
        self.cluster: Optional[FaultCluster] = None
        self.nemesis: Optional[nem.Nemesis] = None

    def open(self) -> "Harness":
        try:
            self.net.create()
            self._stack.callback(self.net.destroy)
            self._stack.enter_context(netns.enter(self.net.client_ns))
            self.cluster = FaultCluster(self.net, binary=self.binary,
                                        controllers=self.controllers, env=self.env)
            self._stack.callback(self.cluster.cleanup)
            self.nemesis = nem.Nemesis(self.cluster)
            self._stack.callback(self.nemesis.heal_all)
            self.cluster.start(timeout=90)
        except BaseException:
            self.close()
            raise
        return self

    def keep_logs(self, into: Path) -> None:
        if self.cluster is None:
            return
        into.mkdir(parents=True, exist_ok=True)
        for b in self.cluster.nodes:
            if b.log_path.exists():
                shutil.copyfile(b.log_path, into / f"node-{b.node_id}.log")

    def keep_data(self, topic: str, into: Path) -> None:
        """Copies every node's directories of `topic`'s partitions, with a
        `samsa dump-log` of each segment beside them: for a run that found an
        anomaly, what each replica's log held at the end."""
        if self.cluster is None:
            return
        for b in self.cluster.nodes:
            if not b.data_dir.exists():
                continue
            for d in sorted(b.data_dir.iterdir()):
                if not d.name.startswith(topic + "-") or not d.is_dir():
                    continue
                dest = into / f"node-{b.node_id}" / d.name
                shutil.copytree(d, dest, dirs_exist_ok=True)
                for seg in sorted(dest.glob("*.log")):
                    res = subprocess.run([str(self.binary), "dump-log", "--deep-iteration",
                                          "--print-data-log", str(seg)],
                                         capture_output=True, text=True, timeout=60)
                    (dest / (seg.name + ".txt")).write_text(res.stdout + res.stderr)

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> "Harness":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class RunResult:
    name: str
    kinds: list
    seed: int
    duration: float
    full: bool
    faults: list
    result: checker.Result
    history: list
    elapsed: float
    dir: Path
    errors: list = field(default_factory=list)
    topic: str = ""
    controllers: int = 0    # separate roles: the controller-only nodes

    @property
    def anomalies(self) -> int:
        return len(self.result.anomalies)

    @property
    def ok(self) -> bool:
        return not self.result.anomalies and not self.result.errors and not self.errors

    def line(self) -> str:
        c = self.result.counts()
        found = ", ".join(f"{k} {n}" for k, n in c.items() if n) or "none"
        errs = len(self.result.errors) + len(self.errors)
        roles = f" ({self.controllers} controllers apart)" if self.controllers else ""
        return (f"run {self.name}{roles}: nemesis {','.join(self.kinds)} seed {self.seed}: "
                f"{self.result.stats['acks']} acked, longest gap "
                f"{self.result.stats['longest_ack_gap']:.1f}s "
                f"({self.result.stats['longest_partition_gap']:.1f}s in one partition), "
                f"anomalies: {found}"
                f"{f', {errs} errors' if errs else ''} ({self.elapsed:.0f}s; report {self.dir})")


class _Watch:
    """Polls for nodes that exit though no nemesis killed them."""

    def __init__(self, cluster, history):
        self.cluster = cluster
        self.history = history
        self.seen = set()
        self.errors: list = []

    def poll(self) -> None:
        for b in self.cluster.nodes:
            if (b.proc is not None and not b.is_running() and not getattr(b, "killed", False)
                    and (b.node_id, b.starts) not in self.seen):
                self.seen.add((b.node_id, b.starts))
                starved = _starved_at_start(b)
                self.history.add(type="node-exit", node=b.node_id, code=b.returncode,
                                 starved=starved)
                if not starved:
                    self.errors.append(
                        f"node {b.node_id} exited by itself with code {b.returncode}")


def _starved_at_start(b) -> bool:
    """A node the disk nemesis filled again right after the heal restarted it
    cannot open its logs, says so and exits, as Kafka does; the next heal
    starts it. Any other exit is an error of the run."""
    if not b.filler.exists():
        return False
    tail = b.log_text()[-4000:]
    return "event=start_failed" in tail and "No space left on device" in tail


def run_one(h: Harness, kinds: list, seed: int, duration: float, name: str,
            full: bool = False, out_root: Optional[Path] = None,
            partitions: int = PARTITIONS, producers: int = PRODUCERS, rate: float = RATE,
            faults: Optional[list] = None, log=print) -> RunResult:
    """One run: a fresh topic (RF 3, min.insync.replicas 2), the workload for
    `duration` seconds under the seeded faults, healing, the final read and
    the checker. Writes history.jsonl, report.txt and timeline.svg."""
    started = time.monotonic()
    cluster = h.cluster
    ids = [b.node_id for b in cluster.nodes]
    if faults is None:
        faults = nem.schedule(seed, kinds, duration, ids, full=full)
    out = (out_root or artefacts_root()) / name
    out.mkdir(parents=True, exist_ok=True)
    topic = "faults-" + name.replace("+", "_")     # a legal topic name
    errors: list = []

    cluster.wait_healthy(timeout=120)
    workload.create_topic(cluster.bootstrap, topic, partitions, 3, 2)
    # The transactional workload's: its transactions, and the copies of
    # `topic` made by consume-transform-produce.
    txn_topic, eos_topic, eos_group = f"{topic}-txn", f"{topic}-copies", f"{topic}-eos"
    workload.create_topic(cluster.bootstrap, txn_topic, partitions, 3, 2)
    workload.create_topic(cluster.bootstrap, eos_topic, partitions, 3, 2)

    history = workload.History()
    watch = _Watch(cluster, history)
    stop = threading.Event()
    limit = int(rate * duration * 2) + 100
    workers = [workload.ProducerWorker(f"p{i}", cluster.bootstrap, topic, partitions, history,
                                       stop, rate, limit) for i in range(producers)]
    # And one producer on kafkajs, its own protocol code.
    workers.append(workload.KafkajsProducerWorker("k0", cluster.bootstrap, topic, partitions,
                                                  history, stop, rate, limit))
    workers.append(txn_workload.TxnProducer("t0", cluster.bootstrap, txn_topic, partitions,
                                            history, stop, seed, limit))
    reader_stop = threading.Event()
    readers = [workload.LiveReader("c0", cluster.bootstrap, topic, partitions, history,
                                   reader_stop)]
    # A consumer group of GROUP_MEMBERS members, committing as they read; the
    # last leaves and joins again every GROUP_REJOIN_S, moving partitions.
    readers += [group_workload.GroupReader(
        f"g{i}", cluster.bootstrap, topic, f"{topic}-group", history, reader_stop,
        rejoin_every=GROUP_REJOIN_S if i == GROUP_MEMBERS - 1 else None)
        for i in range(GROUP_MEMBERS)]
    # The same on the KIP-848 consumer protocol (librdkafka 2.15.1).
    readers += [group_workload.Kip848GroupReader(
        f"n{i}", cluster.bootstrap, topic, f"{topic}-kip848", history, reader_stop,
        rejoin_every=GROUP_REJOIN_S if i == GROUP_MEMBERS - 1 else None)
        for i in range(GROUP_MEMBERS)]
    readers.append(txn_workload.TxnReader("c1", cluster.bootstrap, txn_topic, partitions,
                                          history, reader_stop))
    readers.append(txn_workload.EosCopier("e0", cluster.bootstrap, topic, eos_topic, eos_group,
                                          history, reader_stop))
    for w in workers:
        w.start()
    for r in readers:
        r.start()

    def until(t: float) -> None:
        while history.now() < t:
            watch.poll()
            time.sleep(min(0.1, max(0.0, t - history.now())))

    try:
        for f in faults:
            until(f.start)
            detail = h.nemesis.apply(f)
            history.add(type="nemesis", phase="start", fault=f.kind, detail=detail)
            log(f"  {history.now():6.1f}s {f.kind} {detail}")
            until(f.end)
            h.nemesis.heal(f)
            history.add(type="nemesis", phase="heal", fault=f.kind, detail=f.describe())
            log(f"  {history.now():6.1f}s healed {f.kind}")
        until(duration)
    except BaseException:
        reader_stop.set()
        raise
    finally:
        stop.set()
        h.nemesis.heal_all()
    for w in workers:
        w.join(timeout=workload.MESSAGE_TIMEOUT_MS / 1000 + 60)
        errors += w.errors
        if w.is_alive():
            errors.append(f"{w.name} did not finish")
    history.add(type="info", what="producers done")
    watch.poll()
    try:
        cluster.wait_healthy(timeout=120)
    except (TimeoutError, AssertionError) as e:
        errors.append(f"cluster not healthy after healing: {e}")
    reader_stop.set()
    for r in readers:
        r.join(timeout=70)
        errors += getattr(r, "errors", [])
    workload.wait_settled(cluster.bootstrap, topic, partitions, history)
    workload.final_read(cluster.bootstrap, topic, partitions, history)
    txn_workload.committed_offsets(cluster.bootstrap, eos_group, topic, partitions, history,
                                   eos_topic)
    for t, event in ((txn_topic, "txn-read"), (eos_topic, "eos-read")):
        if txn_workload.seal(cluster.bootstrap, t, partitions, history):
            txn_workload.final_read_committed(cluster.bootstrap, t, partitions, history, event)
        else:
            errors.append(f"could not commit the seal of {t}")
    errors += watch.errors

    events = history.snapshot()
    result = checker.check(events)
    rr = RunResult(name, kinds, seed, duration, full, [f.to_json() for f in faults], result,
                   events, time.monotonic() - started, out, errors, topic, h.controllers)
    write_report(rr, h)
    return rr


def write_report(rr: RunResult, h: Optional[Harness] = None) -> None:
    out = rr.dir
    with open(out / "history.jsonl", "w") as f:
        for e in rr.history:
            f.write(json.dumps(e, sort_keys=True) + "\n")
    (out / "faults.json").write_text(json.dumps(rr.faults, indent=1) + "\n")
    lines = [f"run {rr.name}: nemesis {','.join(rr.kinds)}, seed {rr.seed}, "
             f"duration {rr.duration:g}s{' (full)' if rr.full else ''}",
             f"replay: {replay_command(rr.kinds, rr.seed, rr.duration, rr.full, rr.controllers)}",
             "faults:"]
    for f in rr.faults:
        lines.append(f"  {f['start']:6.1f}s-{f['end']:6.1f}s {f['kind']} {f['detail']}")
    lines.append(checker.summary(rr.result, rr.history))
    for e in rr.errors:
        lines.append(f"error: {e}")
    lines.append(f"files: {out}/history.jsonl, {out}/timeline.svg")
    (out / "report.txt").write_text("\n".join(lines) + "\n")
    anomalies = [{"kind": a.kind, "message": a.message, "t": a.t} for a in rr.result.anomalies]
    (out / "timeline.svg").write_text(report.svg_timeline(
        rr.history, rr.faults, anomalies,
        f"{rr.name}: nemesis {','.join(rr.kinds)} seed {rr.seed} - "
        f"{len(anomalies)} anomalies", rr.duration))
    if h is not None and (not rr.ok or os.environ.get("SAMSA_FAULTS_KEEP_LOGS")):
        h.keep_logs(out / "logs")
    if h is not None and rr.result.anomalies:
        h.keep_data(rr.topic, out / "data")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nemesis", default="all",
                    help="comma-separated kinds, one run each ('all': every kind; "
                         "'mixed': one run with every kind; "
                         "'a+b': one run mixing kinds a and b); "
                         f"kinds: {', '.join(nem.KINDS)}")
    ap.add_argument("--seed", type=int, default=None, help="base seed (default: random)")
    ap.add_argument("--duration", type=float, default=None, help="seconds per run")
    ap.add_argument("--runs", type=int, default=None, help="runs per nemesis")
    ap.add_argument("--full", action="store_true",
                    help=f"{FULL_RUNS} runs of {FULL_DURATION:g}s per nemesis, faults hitting "
                         "one node up to all of them")
    ap.add_argument("--nodes", type=int, default=3, help="brokers (each also a controller "
                    "unless --controllers is given)")
    ap.add_argument("--controllers", type=int, default=0,
                    help="separate roles: this many controller-only nodes beside the brokers")
    args = ap.parse_args(argv)

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**6)
    duration = args.duration or (FULL_DURATION if args.full else QUICK_DURATION)
    runs = args.runs or (FULL_RUNS if args.full else 1)
    if args.nemesis == "all":
        groups = [[k] for k in nem.KINDS]
        if args.full:
            groups.append(list(nem.KINDS))   # and "mixed": every kind in one run
    else:
        groups = [list(nem.KINDS) if g == "mixed" else g.split("+")
                  for g in args.nemesis.split(",")]
    for g in groups:
        for k in g:
            if k not in nem.KINDS:
                ap.error(f"unknown nemesis {k!r}; kinds: {', '.join(nem.KINDS)}")

    out_root = artefacts_root()
    print(f"faults: seed {seed}, {runs} run(s) of {duration:g}s per nemesis "
          f"({', '.join('+'.join(g) for g in groups)}), reports in {out_root}", flush=True)
    total_anomalies, total_runs, failed = 0, 0, 0
    results = []
    started = time.monotonic()
    h: Optional[Harness] = None
    why = netns.can_create_namespaces()
    if why:
        print(f"faults: cannot run: {why}", flush=True)
        print("faults: 0 anomalies in 0 runs", flush=True)
        return 2
    try:
        for gi, g in enumerate(groups):
            for r in range(runs):
                run_seed = seed + 1000 * gi + r
                label = "mixed" if set(g) == set(nem.KINDS) else "+".join(g)
                name = f"{label}-{run_seed}"
                # A fresh cluster for every full run (a replay starts from one too);
                # the quick runs share one to stay within their two minutes.
                if h is None or args.full:
                    if h is not None:
                        h.close()
                        h = None
                    try:
                        h = Harness(args.nodes, controllers=args.controllers).open()
                    except Exception as e:  # no cluster: this run could not run
                        print(f"run {name}: ERROR starting the cluster: "
                              f"{type(e).__name__}: {e}", flush=True)
                        failed += 1
                        total_runs += 1
                        continue
                print(f"run {name}: {','.join(g)}, seed {run_seed}, {duration:g}s", flush=True)
                try:
                    rr = run_one(h, g, run_seed, duration, name, full=args.full,
                                 out_root=out_root,
                                 log=lambda s: print(s, flush=True))
                except Exception as e:  # a run that could not run: counted as failed
                    print(f"run {name}: ERROR {type(e).__name__}: {e}", flush=True)
                    traceback.print_exc()
                    failed += 1
                    total_runs += 1
                    h.keep_logs(out_root / name / "logs")
                    h.close()
                    h = None
                    continue
                results.append(rr)
                total_runs += 1
                total_anomalies += rr.anomalies
                if not rr.ok:
                    failed += 1
                    print((rr.dir / "report.txt").read_text(), flush=True)
                print(rr.line(), flush=True)
    finally:
        if h is not None:
            h.close()
    by_kind: dict = {}
    for rr in results:
        k = "+".join(rr.kinds)
        a, gap, pgap, n = by_kind.get(k, (0, 0.0, 0.0, 0))
        by_kind[k] = (a + rr.anomalies, max(gap, rr.result.stats["longest_ack_gap"]),
                      max(pgap, rr.result.stats["longest_partition_gap"]), n + 1)
    for k, (a, gap, pgap, n) in by_kind.items():
        print(f"  {k}: {n} runs, {a} anomalies, longest gap between acks {gap:.1f}s "
              f"({pgap:.1f}s in one partition)")
    print(f"  elapsed {time.monotonic() - started:.0f}s; reports in {out_root}")
    print(f"faults: {total_anomalies} anomalies in {total_runs} runs", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
