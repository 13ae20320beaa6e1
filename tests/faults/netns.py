"""Network namespaces for the fault harness: one per node, one for the clients,
and a hub holding the Linux bridge that joins them (veth pairs), so nothing
touches the root namespace's network. Addresses come from a private /24 that
exists only inside these namespaces.

    net = Net(3).create()      # sfx-<pid>-hub, sfx-<pid>-n1..n3, sfx-<pid>-client
    with enter(net.client_ns): # this thread's sockets now live in the client ns
        ...
    net.destroy()              # kills what runs inside, removes every namespace

Namespaces of a run that died (their pid is gone) are removed by
remove_stale(), which Net.create() calls first.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import time
from typing import Iterator, Optional

PREFIX = "sfx-"
SUBNET = "10.213.0"           # the /24 inside the namespaces
CLIENT_HOST = 100             # the clients' address: SUBNET.100
CLONE_NEWNET = 0x40000000
NETNS_DIR = "/run/netns"

_libc = ctypes.CDLL(None, use_errno=True)


class NetnsError(RuntimeError):
    pass


def run(*cmd: str, input: Optional[str] = None, check: bool = True,
        timeout: float = 30.0) -> subprocess.CompletedProcess:
    res = subprocess.run(list(cmd), input=input, capture_output=True, text=True,
                         timeout=timeout)
    if check and res.returncode != 0:
        raise NetnsError(f"{' '.join(cmd)} exited {res.returncode}: "
                         f"{res.stderr.strip() or res.stdout.strip()}")
    return res


def can_create_namespaces() -> Optional[str]:
    """None when this process may create network namespaces, else why not."""
    if os.geteuid() != 0:
        return "the fault harness needs root (network namespaces, nftables): run it as root"
    for tool in ("ip", "nft", "tc"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            return (f"`{tool}` is not installed (scripts/install-deps.sh installs "
                    "iproute2 and nftables)")
    return None


def namespaces() -> list[str]:
    res = run("ip", "netns", "list", check=False)
    return [line.split()[0] for line in res.stdout.splitlines() if line.strip()]


def pids_in(ns: str) -> list[int]:
    res = run("ip", "netns", "pids", ns, check=False)
    return [int(x) for x in res.stdout.split() if x.isdigit()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def delete_namespace(ns: str) -> None:
    """Kills every process inside `ns` (SIGCONT first, for paused ones), waits
    for them to go, and removes it (its veth ends go with it)."""
    deadline = time.monotonic() + 20
    while True:
        pids = [p for p in pids_in(ns) if p != os.getpid()]
        if not pids:
            break
        for p in pids:
            for sig in (signal.SIGKILL, signal.SIGCONT):
                try:
                    os.kill(p, sig)
                except ProcessLookupError:
                    pass
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    run("ip", "netns", "del", ns, check=False)


def remove_stale(prefix: str = PREFIX) -> list[str]:
    """Removes the namespaces (and processes, and mounts under them) of runs
    whose process is gone: `sfx-<pid>-...` with no process <pid>."""
    removed = []
    for ns in namespaces():
        m = re.match(rf"{re.escape(prefix)}(\d+)-", ns)
        if not m or _alive(int(m.group(1))):
            continue
        delete_namespace(ns)
        removed.append(ns)
    # The nodes' data dirs (tmpfs mounts named after their namespace).
    try:
        with open("/proc/self/mounts") as f:
            mounts = [line.split()[:2] for line in f]
    except OSError:
        mounts = []
    for source, target in mounts:
        m = re.match(rf"{re.escape(prefix)}(\d+)-", source)
        if m and not _alive(int(m.group(1))):
            run("umount", "-l", target, check=False)
            removed.append(target)
            parent = os.path.dirname(target)
            if os.path.basename(parent).startswith("samsa-it-"):
                shutil.rmtree(parent, ignore_errors=True)
    return removed


@contextlib.contextmanager
def enter(ns: str) -> Iterator[None]:
    """Moves the calling thread into network namespace `ns` (threads it starts
    inherit it) and back to where it was at the end."""
    with open("/proc/thread-self/ns/net") as home, open(f"{NETNS_DIR}/{ns}") as target:
        if _libc.setns(target.fileno(), CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise NetnsError(f"setns into {ns}: {os.strerror(err)}")
        try:
            yield
        finally:
            if _libc.setns(home.fileno(), CLONE_NEWNET) != 0:
                err = ctypes.get_errno()
                raise NetnsError(f"setns back from {ns}: {os.strerror(err)}")


class Net:
    """The namespaces of one harness process: hub (bridge), n1..nN, client."""

    def __init__(self, nodes: int, prefix: Optional[str] = None):
        self.nodes = nodes
        self.prefix = prefix or f"{PREFIX}{os.getpid()}-"
        self.hub_ns = self.prefix + "hub"
        self.client_ns = self.prefix + "client"
        self.created: list[str] = []

    def node_ns(self, node_id: int) -> str:
        return f"{self.prefix}n{node_id}"

    @staticmethod
    def node_ip(node_id: int) -> str:
        return f"{SUBNET}.{10 + node_id}"

    @property
    def client_ip(self) -> str:
        return f"{SUBNET}.{CLIENT_HOST}"

    def _add_host(self, ns: str, ip: str, index: int) -> None:
        run("ip", "netns", "add", ns)
        self.created.append(ns)
        run("ip", "link", "add", "eth0", "netns", ns, "type", "veth",
            "peer", "name", f"v{index}", "netns", self.hub_ns)
        run("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", "eth0")
        run("ip", "-n", ns, "link", "set", "lo", "up")
        run("ip", "-n", ns, "link", "set", "eth0", "up")
        run("ip", "-n", self.hub_ns, "link", "set", f"v{index}", "master", "br0")
        run("ip", "-n", self.hub_ns, "link", "set", f"v{index}", "up")

    def create(self) -> "Net":
        remove_stale()
        for ns in namespaces():
            if ns.startswith(self.prefix):     # ours, from an earlier Net
                delete_namespace(ns)
        try:
            run("ip", "netns", "add", self.hub_ns)
            self.created.append(self.hub_ns)
            run("ip", "-n", self.hub_ns, "link", "add", "br0", "type", "bridge")
            run("ip", "-n", self.hub_ns, "link", "set", "br0", "up")
            run("ip", "-n", self.hub_ns, "link", "set", "lo", "up")
            for i in range(1, self.nodes + 1):
                self._add_host(self.node_ns(i), self.node_ip(i), i)
            self._add_host(self.client_ns, self.client_ip, CLIENT_HOST)
        except Exception:
            self.destroy()
            raise
        return self

    def exec_prefix(self, ns: str) -> list[str]:
        return ["ip", "netns", "exec", ns]

    def destroy(self) -> None:
        # Nodes and the client first (their veth ends go with them), hub last.
        for ns in sorted(self.created, key=lambda n: n == self.hub_ns):
            delete_namespace(ns)
        for ns in namespaces():
            if ns.startswith(self.prefix):
                delete_namespace(ns)
        self.created = []
