"""A server URL whose driver is not installed says which extra to install, not only
``No module named ...``."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from thermik.conf.settings import DatabaseSettings
from thermik.errors import ConfigError
from thermik.persistence.database import Database


@pytest.mark.parametrize(
    ("url", "module", "advice"),
    [
        (
            "postgresql+psycopg2://heat:pw@db/thermik",
            "psycopg2",
            "pip install 'thermik[postgresql]' and a postgresql+psycopg:// URL",
        ),
        ("mysql://heat:pw@db/thermik", "MySQLdb", "pip install 'thermik[mysql]'"),
        ("mariadb+mariadbconnector://heat@db/thermik", "mariadb", "a mysql+pymysql:// URL"),
    ],
)
def test_a_driver_that_is_not_installed_names_the_extra(
    url: str, module: str, advice: str
) -> None:
    assert importlib.util.find_spec(module) is None, f"{module} is installed here"
    with pytest.raises(ConfigError) as caught:
        Database(DatabaseSettings(url))
    message = str(caught.value)
    assert f"needs the Python module {module!r}, which is not installed" in message
    assert advice in message
    assert "pw" not in message


def test_the_supported_postgresql_driver_missing_names_its_extra() -> None:
    """psycopg hidden from a fresh interpreter, as on a machine installed without the extra."""
    script = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from thermik.conf.settings import DatabaseSettings\n"
        "from thermik.persistence.database import Database\n"
        "Database(DatabaseSettings('postgresql+psycopg://heat@db/thermik'))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode != 0
    assert "ConfigError" in run.stderr
    assert "needs the Python module 'psycopg'" in run.stderr
    assert "pip install 'thermik[postgresql]'" in run.stderr
