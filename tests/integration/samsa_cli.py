"""Runs the `samsa` command-line verbs for the CLI integration tests.

cli(...) runs one verb to completion (bounded by a deadline) and returns its
exit code, stdout and stderr; start_cli(...) starts one in the background for
tests that need a long-running consumer. Nothing here sleeps to synchronise.
"""
from __future__ import annotations

import signal
import subprocess
from dataclasses import dataclass
from typing import Optional

from samsa_harness import samsa_bin, wait_until

CLI_DEADLINE_S = 60.0


@dataclass
class CliResult:
    args: list
    returncode: int
    stdout: str
    stderr: str

    def ok(self) -> "CliResult":
        assert self.returncode == 0, (f"samsa {' '.join(self.args)} exited {self.returncode}\n"
                                      f"--- stdout ---\n{self.stdout}\n"
                                      f"--- stderr ---\n{self.stderr}")
        return self

    def failed(self) -> "CliResult":
        assert self.returncode != 0, (f"samsa {' '.join(self.args)} unexpectedly succeeded\n"
                                      f"--- stdout ---\n{self.stdout}")
        # One clear line, never a trace or a crash.
        assert self.returncode > 0, f"killed by signal {-self.returncode}: {self.stderr}"
        assert "Traceback" not in self.stderr and "terminate called" not in self.stderr
        return self

    @property
    def error(self) -> str:
        """The "Error: ..." line of stderr."""
        lines = [l for l in self.stderr.splitlines() if l.startswith("Error: ")]
        assert lines, f"no 'Error:' line on stderr: {self.stderr!r}"
        return lines[-1]


def cli(*args: str, input: Optional[str] = None, timeout: float = CLI_DEADLINE_S) -> CliResult:
    argv = [str(a) for a in args]
    try:
        res = subprocess.run([str(samsa_bin()), *argv], input=input, capture_output=True,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"samsa {' '.join(argv)} still running after {timeout}s "
                             f"(stdout={e.stdout!r} stderr={e.stderr!r})") from None
    return CliResult(argv, res.returncode, res.stdout, res.stderr)


def on(broker, *args: str, **kwargs) -> CliResult:
    """A verb against `broker`: `on(b, "topics", "--list")`."""
    verb, rest = args[0], args[1:]
    if verb == "perf":
        verb, rest = f"perf {rest[0]}", rest[1:]
    return cli(*verb.split(), "--bootstrap-server", broker.bootstrap, *rest, **kwargs)


class BackgroundCli:
    """A verb left running (e.g. a group member); stop() ends it with SIGTERM."""

    def __init__(self, argv: list):
        self.argv = argv
        self.proc = subprocess.Popen([str(samsa_bin()), *argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)

    def stop(self, timeout: float = 30.0) -> CliResult:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError(f"samsa {' '.join(self.argv)} ignored SIGTERM for {timeout}s")
        return CliResult(self.argv, self.proc.returncode, out, err)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def start_on(broker, *args: str) -> BackgroundCli:
    return BackgroundCli([args[0], "--bootstrap-server", broker.bootstrap, *map(str, args[1:])])


def create_topic(broker, topic: str, partitions: int = 1, *extra: str) -> None:
    on(broker, "topics", "--create", "--topic", topic, "--partitions", str(partitions),
       "--replication-factor", "1", *extra).ok()


def produce_lines(broker, topic: str, lines: list, *extra: str) -> None:
    on(broker, "produce", "--topic", topic, *extra, input="".join(l + "\n" for l in lines)).ok()


def consume_all(broker, topic: str, count: int, *extra: str) -> list:
    """The values of the first `count` records of `topic`, read without a group."""
    res = on(broker, "consume", "--topic", topic, "--from-beginning", "--max-messages",
             str(count), "--timeout-ms", "20000", *extra).ok()
    return res.stdout.splitlines()


__all__ = ["cli", "on", "start_on", "BackgroundCli", "CliResult", "create_topic",
           "produce_lines", "consume_all", "wait_until"]
