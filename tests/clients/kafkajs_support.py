"""What the kafkajs test modules share: the scenario runner
(tests/clients/kafkajs/scenarios.js under the machine's node, NODE_PATH at the
kafkajs scripts/setup-clients.sh installed), the broker settings its groups and
transactions need, and the kafkajs_modules fixture (reached through
conftest.py), which fails, never skips, when kafkajs is missing."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
KAFKAJS_SRC = HERE / "kafkajs"
SCRIPT = KAFKAJS_SRC / "scenarios.js"
NODE = shutil.which("node") or "/usr/bin/node"
SCENARIO_TIMEOUT_S = 60

GROUP_BROKER = {
    "offsets.topic.replication.factor": 1,
    "group.initial.rebalance.delay.ms": 0,
    "group.min.session.timeout.ms": 500,
}
TXN_BROKER = {
    **GROUP_BROKER,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
}


@pytest.fixture(scope="session")
def kafkajs_modules(client_dir):
    modules = Path(client_dir) / "kafkajs" / "node_modules"
    installed = modules / "kafkajs" / "package.json"
    pinned = json.loads((KAFKAJS_SRC / "package.json").read_text())["dependencies"]["kafkajs"]
    if not installed.is_file():
        pytest.fail(f"kafkajs is not installed in {modules}: run scripts/setup-clients.sh "
                    f"{client_dir}", pytrace=False)
    version = json.loads(installed.read_text())["version"]
    if version != pinned:
        pytest.fail(f"{modules} holds kafkajs {version}, package.json pins {pinned}: run "
                    f"scripts/setup-clients.sh {client_dir}", pytrace=False)
    if not Path(NODE).exists():
        pytest.fail(f"node not found ({NODE})", pytrace=False)
    return modules


def run_scenario(modules, broker, scenario, args=None, timeout=SCENARIO_TIMEOUT_S,
                 bootstrap=None, name=None):
    """Runs one scenario against `broker` (at `bootstrap`, default its PLAINTEXT
    listener); returns its JSON result, or fails the test with the scenario's
    output (kafkajs' error log) and the broker's log."""
    name = name or f"kjs-{scenario}"
    cmd = [NODE, str(SCRIPT), scenario, bootstrap or broker.bootstrap, name,
           json.dumps(args or {})]
    env = dict(os.environ, NODE_PATH=str(modules),
               # the script's watchdog fires first, and says which step hung
               KAFKAJS_SCENARIO_TIMEOUT_MS=str(int((timeout - 8) * 1000)))

    def failure(what, stdout, stderr):
        log = broker.log_text()
        return (f"kafkajs scenario {scenario!r} {what}\n--- stdout ---\n{stdout}\n"
                f"--- stderr (kafkajs log) ---\n{stderr[-12000:]}\n"
                f"--- broker log (tail) ---\n{log[-6000:]}")

    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=modules.parent, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr
        pytest.fail(failure(f"still running after {timeout}s", out or "", err or ""),
                    pytrace=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    result = None
    if lines:
        try:
            result = json.loads(lines[-1])
        except json.JSONDecodeError:
            pass
    if proc.returncode != 0 or not result or not result.get("ok"):
        pytest.fail(failure(f"failed (exit code {proc.returncode})", proc.stdout, proc.stderr),
                    pytrace=False)
    return result


def offsets_of(messages):
    return [m["offset"] for m in messages]
