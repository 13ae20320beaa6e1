"""Runs real `samsa server` processes for the integration tests.

Each Broker owns a fresh temporary directory (data dir, server.properties, log
file), listens on free loopback ports, and is always killed and removed by
cleanup(). Nothing here sleeps to synchronise: every wait polls a condition
against a deadline (wait_until).
"""
from __future__ import annotations

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Mapping, Optional, TypeVar

REPO_ROOT = Path(__file__).resolve().parents[2]
START_DEADLINE_S = 20.0
STOP_DEADLINE_S = 20.0

T = TypeVar("T")


def samsa_bin() -> Path:
    """$SAMSA_BIN (set by scripts/run-tests.sh), else build/samsa in the repo."""
    return Path(os.environ.get("SAMSA_BIN") or REPO_ROOT / "build" / "samsa")


def wait_until(condition: Callable[[], T], timeout: float, what: str,
               interval: float = 0.02) -> T:
    """Polls `condition` until it returns something truthy (returned), or raises
    TimeoutError naming `what` once `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(n: int) -> list[int]:
    """n distinct loopback ports that were free a moment ago (the sockets are
    held open together so that none is handed out twice).

    They come from below the kernel's ephemeral range: a port the kernel
    picked (bind to 0) can be handed to any outgoing connection of any
    process before the broker binds it, and a cluster node then fails with
    "Address already in use". Below that range only a listener that chose it
    can take it."""
    rng = random.SystemRandom()
    high = _ephemeral_low()
    socks = []
    try:
        while len(socks) < n:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.1", rng.randrange(10000, high)))
            except OSError:
                s.close()
                continue
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def port_accepts(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class BrokerError(AssertionError):
    pass


class Broker:
    """One `samsa server` process: a one-node cluster (broker and controller)."""

    def __init__(self, overrides: Optional[Mapping[str, object]] = None,
                 host: str = "127.0.0.1", node_id: int = 1,
                 binary: Optional[Path] = None,
                 properties: Optional[Mapping[str, object]] = None,
                 port: Optional[int] = None, cluster_id: Optional[str] = None):
        """`properties` go into server.properties (after the harness's own keys),
        `overrides` onto the command line as --override key=value; `port` fixes
        the PLAINTEXT port instead of picking a free one."""
        self.binary = Path(binary or samsa_bin())
        self.host = host
        self.node_id = node_id
        self.root = Path(tempfile.mkdtemp(prefix="samsa-it-"))
        self.data_dir = self.root / "data"
        self.log_path = self.root / "broker.log"
        self.properties_path = self.root / "server.properties"
        self.port, self.controller_port, self.metrics_port = free_ports(3)
        self._fixed_port = port is not None
        if port is not None:
            self.port = port
        self.overrides = {k: str(v) for k, v in (overrides or {}).items()}
        self.cluster_id = cluster_id  # formats fresh dirs with it (multi-node clusters)
        # A value of None leaves the harness's own key out of the file.
        self.extra_properties = {k: None if v is None else str(v)
                                 for k, v in (properties or {}).items()}
        self.proc: Optional[subprocess.Popen] = None
        self.starts = 0
        self._log_offset = 0
        self._write_properties()

    # --- addresses ---------------------------------------------------------
    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def metrics_url(self) -> str:
        return f"http://{self.host}:{self.metrics_port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "broker never started"
        return self.proc.pid

    @property
    def returncode(self) -> Optional[int]:
        return None if self.proc is None else self.proc.poll()

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # --- configuration -----------------------------------------------------
    def _write_properties(self) -> None:
        props = {
            "process.roles": "broker,controller",
            "node.id": str(self.node_id),
            "listeners": f"PLAINTEXT://{self.host}:{self.port},"
                         f"CONTROLLER://{self.host}:{self.controller_port}",
            "controller.listener.names": "CONTROLLER",
            "controller.quorum.voters": f"{self.node_id}@{self.host}:{self.controller_port}",
            "log.dirs": str(self.data_dir),
            "metrics.listener": f"{self.host}:{self.metrics_port}",
        }
        lines = ["# written by tests/integration/samsa_harness.py"]
        props.update(self.extra_properties)
        lines += [f"{k}={v}" for k, v in props.items() if v is not None]
        self.properties_path.write_text("\n".join(lines) + "\n")

    def command(self) -> list[str]:
        cmd = [str(self.binary), "server", str(self.properties_path)]
        if self.cluster_id:
            cmd += ["--cluster-id", self.cluster_id]
        for k, v in self.overrides.items():
            cmd += ["--override", f"{k}={v}"]
        return cmd

    # --- process control ---------------------------------------------------
    def start(self, wait_ready: bool = True) -> "Broker":
        first_start = self.starts == 0
        for attempt in range(3):
            log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
            try:
                return self._start_once(wait_ready)
            except BrokerError:
                # Another process may have taken a port between free_ports() and
                # the broker's bind: on a first start with ports we picked, pick
                # new ones and try again.
                lost_port = b"Address already in use" in self.log_path.read_bytes()[log_offset:]
                if not (first_start and lost_port and not self._fixed_port and attempt < 2):
                    raise
                self.port, self.controller_port, self.metrics_port = free_ports(3)
                self._write_properties()
        raise AssertionError("unreachable")

    def _start_once(self, wait_ready: bool) -> "Broker":
        if not self.binary.exists():
            raise BrokerError(f"samsa binary not found at {self.binary} "
                              "(build it, or set SAMSA_BIN)")
        assert not self.is_running(), "broker already running"
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"----- harness: start #{self.starts}: {' '.join(self.command())}\n"
                      .encode())
            log.flush()
            self._log_offset = log.tell()
            self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, cwd=self.root)
        if wait_ready:
            self.wait_ready()
        return self

    def _logged_listening(self) -> bool:
        # This start's own "event=listening listener=PLAINTEXT port=N" line, so
        # that a port held by some other process is not taken for ours.
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self._log_offset)
                text = f.read().decode(errors="replace")
        except FileNotFoundError:
            return False
        mine = re.compile(rf"event=listening .*\bport={self.port}\b")
        return any(mine.search(line) for line in text.splitlines())

    def wait_ready(self, timeout: float = START_DEADLINE_S) -> None:
        """Returns once this process has logged that it listens on the PLAINTEXT
        port and the port accepts connections; raises with the broker's log if
        the process exits first or the deadline passes."""
        deadline = time.monotonic() + timeout
        while True:
            if not self.is_running():
                raise BrokerError(f"samsa exited with code {self.returncode} before "
                                  f"listening on {self.bootstrap}\n--- broker log ---\n"
                                  f"{self.log_text()}")
            if self._logged_listening() and port_accepts(self.host, self.port, timeout=0.2):
                return
            if time.monotonic() >= deadline:
                raise BrokerError(f"samsa did not accept connections on {self.bootstrap} "
                                  f"within {timeout}s\n--- broker log ---\n{self.log_text()}")
            time.sleep(0.02)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Sends `sig` to the broker process (no wait)."""
        if self.is_running():
            self.proc.send_signal(sig)

    def wait(self, timeout: float = STOP_DEADLINE_S) -> int:
        """Waits for the process to exit and returns its exit code."""
        assert self.proc is not None, "broker never started"
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise BrokerError(f"samsa (pid {self.proc.pid}) still running after {timeout}s"
                              f"\n--- broker log ---\n{self.log_text()}") from None

    def stop(self, timeout: float = STOP_DEADLINE_S, sig: int = signal.SIGTERM) -> None:
        """SIGTERM, wait for exit, and require exit code 0."""
        assert self.is_running(), (f"broker is not running (exit code {self.returncode})"
                                   f"\n--- broker log ---\n{self.log_text()}")
        self.kill(sig)
        code = self.wait(timeout)
        if code != 0:
            raise BrokerError(f"samsa exited with code {code} after signal {sig}"
                              f"\n--- broker log ---\n{self.log_text()}")

    def restart(self, wait_ready: bool = True) -> "Broker":
        """Clean stop (if running), then start again on the same ports and data dir."""
        if self.is_running():
            self.stop()
        return self.start(wait_ready=wait_ready)

    def cleanup(self) -> None:
        if self.is_running():
            self.proc.kill()
            try:
                self.proc.wait(timeout=STOP_DEADLINE_S)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.root, ignore_errors=True)

    # --- observation -------------------------------------------------------
    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_for_log(self, needle: str, timeout: float = 10.0) -> str:
        """Waits until the log contains `needle`; returns the first line holding it."""
        def find():
            for line in self.log_text().splitlines():
                if needle in line:
                    return line
            return None
        try:
            return wait_until(find, timeout, f"log line containing {needle!r}")
        except TimeoutError as e:
            raise BrokerError(f"{e}\n--- broker log ---\n{self.log_text()}") from None

    def meta_properties(self) -> dict[str, str]:
        return read_properties(self.data_dir / "meta.properties")


def read_properties(path: Path) -> dict[str, str]:
    """Java .properties, the simple subset samsa writes (key=value, # comments)."""
    out = {}
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        key, _, value = line.partition("=")
        out[key.strip()] = value.strip()
    return out


def run_kcat(*args: str, timeout: float = 30.0) -> subprocess.CompletedProcess:
    """Runs kcat; raises with its output if it fails or overruns `timeout`."""
    cmd = ["kcat", *args]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"{cmd} still running after {timeout}s: {e.stdout} {e.stderr}")
    assert res.returncode == 0, f"{cmd} exited {res.returncode}\n{res.stdout}\n{res.stderr}"
    return res
