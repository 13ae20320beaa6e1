"""N `samsa server` nodes, each in its own network namespace (netns.Net), every
node broker and controller of one Raft quorum, as tests/cluster runs them on
loopback (cluster_harness.Cluster, whose health checks this reuses); or, with
separate roles, the first nodes the controller quorum (process.roles=controller)
and the others brokers only, as Kafka's production deployments run them.

The orchestrating thread must be inside the client namespace
(netns.enter(net.client_ns)) to reach the nodes: readiness checks, admin
clients and the workload all connect from there.
"""
from __future__ import annotations

import base64
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Mapping, Optional

import paths  # noqa: F401  (tests/integration and tests/cluster on the path)
from cluster_harness import Cluster  # noqa: E402
from netns import Net
from samsa_harness import Broker, port_accepts, samsa_bin

CLIENT_PORT = 9092
CONTROLLER_PORT = 9093
METRICS_PORT = 9644
# 0 (SAMSA_FAULTS_DISK_MB=0): data dirs on the ordinary file system, no disk nemesis.
DISK_MB = int(os.environ.get("SAMSA_FAULTS_DISK_MB", "256"))
# The clock nemesis: each node runs under libfaketime (Debian's libfaketime),
# its wall clock offset by what the file `faketime` in its dir says (re-read
# every second); CLOCK_MONOTONIC is left alone, as a real clock jump would.
FAKETIME_LIB = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1")


def faketime_available() -> bool:
    return FAKETIME_LIB.exists() and os.environ.get("SAMSA_FAULTS_FAKETIME", "1") != "0"

# Elections and fencing quick enough for runs of seconds (as tests/cluster),
# and internal topics replicated over the three nodes.
NODE_PROPERTIES = {
    "controller.quorum.election.timeout.ms": 1000,
    "controller.quorum.fetch.timeout.ms": 2000,
    "broker.session.timeout.ms": 4000,
    "broker.heartbeat.interval.ms": 500,
    "replica.fetch.wait.max.ms": 100,
    "replica.lag.time.max.ms": 4000,
    "offsets.topic.replication.factor": 3,
    "transaction.state.log.replication.factor": 3,
    "transaction.state.log.min.isr": 2,
    "auto.create.topics.enable": "false",
    # Fewer and smaller preallocated indexes: each data dir is a small tmpfs.
    # (Log recovery reads only an index's written pages: on tmpfs a read of a
    # hole through the mapping takes memory, and on a full one is a SIGBUS.)
    "offsets.topic.num.partitions": 6,
    # KIP-848 members heartbeat every second (Kafka's 5 s is long for runs of
    # seconds), as tests/clients runs them.
    "group.consumer.heartbeat.interval.ms": 1000,
    "group.consumer.min.heartbeat.interval.ms": 1000,
    "log.index.size.max.bytes": 1048576,
}


class NetnsBroker(Broker):
    """A Broker (tests/integration/samsa_harness.py) whose process runs inside
    network namespace `ns` with address `ip` and the standard ports."""

    def __init__(self, ns: str, ip: str, node_id: int, cluster_id: str,
                 binary: Optional[Path] = None,
                 properties: Optional[Mapping[str, object]] = None,
                 disk_mb: int = DISK_MB):
        super().__init__(host=ip, node_id=node_id, binary=binary, properties=properties,
                         port=CLIENT_PORT, cluster_id=cluster_id)
        self.ns = ns
        # Environment variables the process gets beside the harness's own
        # (the broker's bug on purpose, SAMSA_UNSAFE_TEST_ACK_AT_LOG_END).
        self.extra_env: dict = {}
        # The data dir is a small tmpfs of its own, so that the disk nemesis
        # can fill it (ENOSPC) without touching any other file system. Its
        # source names the namespace, for netns.remove_stale().
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.mounted = False
        if disk_mb:
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={disk_mb}m", f"{ns}-disk",
                            str(self.data_dir)], check=True, capture_output=True)
            self.mounted = True
        self.filler = self.data_dir / "zz-disk-filler"
        self.faketime_file: Optional[Path] = None
        if faketime_available():
            self.faketime_file = self.root / "faketime"
            self.set_clock_offset(0)
        self.controller_port = CONTROLLER_PORT
        self.metrics_port = METRICS_PORT
        self.paused = False
        self.role = "broker,controller"
        self._write_properties()

    def make_controller_only(self) -> None:
        """process.roles=controller: its one listener is CONTROLLER, which
        readiness and accepts() then look at."""
        self.role = "controller"
        self.port = self.controller_port
        self.extra_properties.update({
            "process.roles": "controller",
            "listeners": f"CONTROLLER://{self.host}:{self.controller_port}"})

    def make_broker_only(self) -> None:
        self.role = "broker"
        self.extra_properties.update({
            "process.roles": "broker",
            "listeners": f"PLAINTEXT://{self.host}:{self.port}"})

    @property
    def is_broker(self) -> bool:
        return self.role != "controller"

    def command(self) -> list[str]:
        env = [f"{k}={v}" for k, v in sorted(self.extra_env.items())]
        if self.faketime_file is not None:
            env += [f"LD_PRELOAD={FAKETIME_LIB}", f"FAKETIME_TIMESTAMP_FILE={self.faketime_file}",
                    "FAKETIME_CACHE_DURATION=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"]
        return ["ip", "netns", "exec", self.ns] + (["env"] + env if env else []) + \
            super().command()

    def set_clock_offset(self, seconds: int) -> None:
        """Moves this node's wall clock `seconds` away from the real one
        (within a second); 0 puts it back."""
        if self.faketime_file is None:
            raise RuntimeError("no clock nemesis: libfaketime is not installed "
                               "(scripts/install-deps.sh installs it)")
        tmp = self.faketime_file.with_suffix(".tmp")
        tmp.write_text(f"{seconds:+d}\n")
        tmp.rename(self.faketime_file)

    def fill_disk(self) -> int:
        """Takes every free byte of the data dir's file system; returns how many."""
        if not self.mounted:
            # Never fill a file system the harness did not make for it.
            raise RuntimeError("no disk nemesis: the data dirs are not on their own tmpfs "
                               "(SAMSA_FAULTS_DISK_MB=0)")
        st = os.statvfs(self.data_dir)
        free = st.f_bavail * st.f_frsize
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            try:
                os.posix_fallocate(fd, 0, free)
            except OSError:
                pass   # as much as there was
        finally:
            os.close(fd)
        return free

    def free_disk(self) -> None:
        try:
            self.filler.unlink()
        except FileNotFoundError:
            pass

    def cleanup(self) -> None:
        if self.is_running():
            self.proc.kill()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.data_dir)], capture_output=True)
            self.mounted = False
        super().cleanup()

    def accepts(self) -> bool:
        return self.is_running() and not self.paused and port_accepts(self.host, self.port, 0.5)


class FaultCluster(Cluster):
    def __init__(self, net: Net, binary: Optional[Path] = None,
                 properties: Optional[Mapping[str, object]] = None, controllers: int = 0,
                 env: Optional[Mapping[str, str]] = None):
        """`controllers` > 0: separate roles, nodes 1..controllers the quorum
        and the rest brokers only; 0: every node both."""
        # Not Cluster.__init__: the nodes differ (namespaces, fixed ports).
        self.net = net
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        props = {**NODE_PROPERTIES, **(properties or {})}
        self.nodes = [NetnsBroker(net.node_ns(i), net.node_ip(i), i, cluster_id,
                                  binary=binary or samsa_bin(), properties=props)
                      for i in range(1, net.nodes + 1)]
        if controllers:
            assert 0 < controllers < len(self.nodes), "separate roles need brokers too"
            for b in self.nodes:
                if b.node_id <= controllers:
                    b.make_controller_only()
                else:
                    b.make_broker_only()
        voters = self.nodes[:controllers] if controllers else self.nodes
        quorum = ",".join(f"{b.node_id}@{b.host}:{b.controller_port}" for b in voters)
        for b in self.nodes:
            b.extra_properties["controller.quorum.voters"] = quorum
            b.extra_env.update(env or {})
            b._write_properties()

    @property
    def brokers(self) -> list:
        return [b for b in self.nodes if b.is_broker]

    def start(self, timeout: float = 60.0) -> "FaultCluster":
        for b in self.nodes:
            b.start(wait_ready=False)
        for b in self.nodes:
            b.wait_ready(timeout=timeout)
        return self

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers)

    def quorum(self, via: Optional[Broker] = None):
        """The metadata quorum as a broker describes it (controllers have no
        client listener to ask)."""
        for b in ([via] if via else [b for b in self.brokers if b.is_running()]):
            q = super().quorum(via=b)
            if q is not None:
                return q
        return None

    def wait_healthy(self, timeout: float = 90.0) -> None:
        """Every node running, unpaused and accepting clients, and a metadata
        quorum leader: polled against a generous deadline."""
        deadline = time.monotonic() + timeout
        while True:
            self.check_alive()
            down = [b.node_id for b in self.nodes if not b.accepts()]
            if not down and self.quorum() is not None:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"cluster not healthy after {timeout}s: nodes {down} "
                                   f"not accepting clients, quorum {self.quorum()}")
            time.sleep(0.2)

    def check_alive(self) -> None:
        """A node that exited though no nemesis killed it (the nemeses restart
        what they kill when they heal) is a finding: raised with its log."""
        for b in self.nodes:
            if b.proc is not None and not b.is_running() and not getattr(b, "killed", False):
                raise AssertionError(
                    f"node {b.node_id} exited by itself with code {b.returncode}\n"
                    f"--- its log (tail) ---\n" + "\n".join(b.log_text().splitlines()[-60:]))
