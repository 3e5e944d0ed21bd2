"""``bench/scale_bench.py`` at a smoke size, so that the script cannot rot: two engines, then
two engines of which one is killed mid-run, on the machine's PostgreSQL and RabbitMQ. Only
that it runs and that every stack completes is asserted, never a figure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import dbservers
from tests.functional.rpc.cluster import rabbit_unreachable
from tests.functional.rpc.conftest import RABBIT_URL
from tests.functional.services import ROOT, unavailable

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SMOKE = ["--stacks", "4", "--resources", "3", "--clients", "4", "--engines", "2", "--kill"]


def test_the_scale_bench_runs_at_smoke_size(tmp_path: Path) -> None:
    for reason in (dbservers.unavailable("postgresql"), rabbit_unreachable(RABBIT_URL)):
        if reason is not None:
            unavailable(reason)
    figures = tmp_path / "figures.json"
    command = [sys.executable, str(ROOT / "bench" / "scale_bench.py"), *SMOKE]
    # Each create waits long enough for the kill to find stacks running on the victim.
    command += ["--wait", "1.5", "--json", str(figures), "--transport-url", RABBIT_URL]
    command += ["--db-url", dbservers.SERVER_URLS["postgresql"]]
    done = subprocess.run(command, capture_output=True, text=True, timeout=280, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stacks/min" in done.stdout, done.stdout
    plain, killed = json.loads(figures.read_text())
    assert (plain["engines"], plain["killed"], plain["completed"]) == (2, False, 4)
    assert (killed["engines"], killed["killed"]) == (2, True)
    assert killed["completed"] + killed["refused"] == 4, done.stdout
    assert killed["victim_unfinished"] == [], done.stdout
    assert len(plain["engine_cpu_s"]) == len(killed["engine_cpu_s"]) == 2
