"""``bench/big_stack_bench.py`` at a smoke size, so that the script cannot rot: the local
daemon on SQLite and service mode on the machine's PostgreSQL and MariaDB over its RabbitMQ.
Only that it runs and that every stack completes and is deleted is asserted, never a figure."""

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


def test_the_big_stack_bench_runs_at_smoke_size(tmp_path: Path) -> None:
    reasons = [dbservers.unavailable(b) for b in ("postgresql", "mysql")]
    for reason in [*reasons, rabbit_unreachable(RABBIT_URL)]:
        if reason is not None:
            unavailable(reason)
    figures = tmp_path / "figures.json"
    command = [sys.executable, str(ROOT / "bench" / "big_stack_bench.py"), "--resources", "8"]
    command += ["--json", str(figures), "--transport-url", RABBIT_URL]
    done = subprocess.run(command, capture_output=True, text=True, timeout=280, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(figures.read_text())
    assert found["target"] == "thermik"
    assert sorted(found) == ["mysql", "postgresql", "sqlite", "target"]
    for backend in dbservers.BACKENDS:
        assert sorted(found[backend]) == ["chain", "wide"], done.stdout
        for shape in found[backend].values():
            assert 0 < shape["post_s"] <= shape["create_s"], done.stdout
            assert shape["delete_s"] > 0, done.stdout
            assert shape["create_cpu_s"] > 0, done.stdout
    assert done.stdout.count("create ") == 6, done.stdout
