"""How long the real services of the functional tests take: start-up and an agent round trip.

    .venv/bin/python bench/realparts_bench.py [--rounds N]

Starts its own Swift and Zaqar under a temporary THERMIK_STATE_DIR (services a developer runs in
.state are left alone), with the venvs already installed (tools/services-up.sh installs them), and
prints, per figure, min / median / max over the rounds:
  * swift-up.sh and zaqar-up.sh from stopped to answering (fresh state, rings, config);
  * one agent round trip: os-collect-config --one-time fetches a metadata document with two script
    deployments from a Swift TempURL and returns once both signals are PUT back to Swift;
  * a polling agent's reaction: from writing a new deployment into the document to its signal.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.functional.deployments import (  # noqa: E402
    publish_metadata,
    script_deployment,
    signal_of,
)
from tests.functional.services import AgentSandbox, SwiftAccount, SwiftEnv  # noqa: E402

SCRIPT = '#!/bin/sh\necho "deployed $deploy_resource_name"\n'


def tool(name: str, *args: str) -> None:
    command = [str(ROOT / "tools" / name), *args]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"tools/{name} failed:\n{done.stderr}")


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def wait_signal(account: SwiftAccount, deployment: dict[str, object]) -> None:
    deadline = time.monotonic() + 60
    while signal_of(account, deployment) is None:
        if time.monotonic() > deadline:
            raise SystemExit(f"no signal for {deployment['name']} within 60 s")
        time.sleep(0.05)


def one_shot(env: SwiftEnv, sandbox: AgentSandbox) -> float:
    """Seconds of one --one-time agent run that applies and signals two deployments."""
    account = env.new_account()
    deployments = [script_deployment(account, f"d{i}", SCRIPT, {}) for i in range(2)]
    url = publish_metadata(account, deployments)
    seconds = timed(lambda: sandbox.run_once(url))
    if any(signal_of(account, d) is None for d in deployments):
        raise SystemExit("the one-shot agent run signalled no deployment")
    return seconds


def poll_reaction(env: SwiftEnv, sandbox: AgentSandbox) -> float:
    """Seconds from adding a deployment to the document a polling agent watches to its signal."""
    account = env.new_account()
    first = script_deployment(account, "d1", SCRIPT, {})
    url = publish_metadata(account, [first])
    with sandbox.polling(url, interval=1):
        wait_signal(account, first)
        second = script_deployment(account, "d2", SCRIPT, {})
        return timed(
            lambda: (publish_metadata(account, [first, second]), wait_signal(account, second))
        )


def report(name: str, seconds: list[float]) -> None:
    print(
        f"{name:<34} min {min(seconds):6.2f} s   median {statistics.median(seconds):6.2f} s"
        f"   max {max(seconds):6.2f} s   ({len(seconds)} rounds)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="thermik-bench-") as tmp:
        os.environ["THERMIK_STATE_DIR"] = tmp
        figures: dict[str, list[float]] = {k: [] for k in ("swift", "zaqar", "once", "poll")}
        try:
            for n in range(rounds):
                tool("swift-down.sh")
                tool("zaqar-down.sh")
                figures["swift"].append(timed(lambda: tool("swift-up.sh")))
                figures["zaqar"].append(timed(lambda: tool("zaqar-up.sh")))
                tool("agent-setup.sh")
                env = SwiftEnv.from_settings()
                sandbox = Path(tmp) / f"agent-{n}"
                figures["once"].append(one_shot(env, AgentSandbox.create(sandbox / "once")))
                figures["poll"].append(poll_reaction(env, AgentSandbox.create(sandbox / "poll")))
        finally:
            tool("services-down.sh")
    report("swift-up.sh (stopped -> serving)", figures["swift"])
    report("zaqar-up.sh (stopped -> serving)", figures["zaqar"])
    report("agent one-shot, 2 deployments", figures["once"])
    report("polling agent, new deployment", figures["poll"])


if __name__ == "__main__":
    main()
