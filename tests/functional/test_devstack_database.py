"""The devstack plugin's database on the real servers: the URL it writes from devstack's
(``database_connection_url``) is one that the real ``thermik-manage db sync`` migrates."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import dbservers
from tests.unit.devstack.harness import Devstack
from tests.unit.devstack.test_plugin import service_conf

#: devstack's BASE_SQL_CONN for each DATABASE_TYPE: its own driver names, no database.
DEVSTACK_SCHEMES = {"mysql": "mysql+pymysql", "postgresql": "postgresql"}


def base_sql_conn(backend: str) -> str:
    """devstack's BASE_SQL_CONN for the test server of ``backend``."""
    server = dbservers.admin_url(backend)
    password = f":{server.password}" if server.password else ""
    return f"{DEVSTACK_SCHEMES[backend]}://{server.username}{password}@{server.host}:{server.port}"


@pytest.mark.parametrize("backend", ["mysql", "postgresql"])
def test_db_sync_migrates_the_database_the_plugin_configures(backend: str, tmp_path: Path) -> None:
    reason = dbservers.unavailable(backend)
    if reason:
        if dbservers.services_required():
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    with dbservers.scratch_database(backend, tmp_path) as url:
        name = url.rsplit("/", 1)[1]
        devstack = Devstack(
            tmp_path / "devstack",
            DATABASE_TYPE=backend,
            BASE_SQL_CONN=base_sql_conn(backend),
            THERMIK_DATABASE_NAME=name,
        )
        done = devstack.run("stack", "post-config")
        assert done.returncode == 0, done.stderr
        assert service_conf(devstack.thermik_conf).database.connection.endswith(
            ("charset=utf8mb4", "client_encoding=utf8")
        )
        manage = Path(sys.executable).parent / "thermik-manage"
        for command in (["db", "sync"], ["db", "version"]):
            ran = subprocess.run(
                [str(manage), "--config-file", str(devstack.thermik_conf), *command],
                check=False,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert ran.returncode == 0, ran.stderr
        assert "none" not in ran.stdout
        assert "this Thermik's schema" not in ran.stdout
