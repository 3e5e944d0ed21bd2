"""A devstack that runs the Thermik plugin's phases without devstack.

Each phase runs as devstack runs it (``source plugin.sh stack install``, ...) in a bash of its
own that sourced ``fake_devstack.sh`` (the devstack functions the plugin calls) and the
plugin's ``settings``, with devstack's variables pointing into a temporary tree: ``DEST``
holds the plugin (a link to this checkout), ``/etc/thermik`` becomes ``<root>/etc/thermik``.
What the plugin would do to the host or the cloud is recorded in a log, one call per line.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path

from thermik.clients.stack_users import DomainSetup
from thermik.cmd.keystone_setup import report

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
SEPARATOR = "\x1f"
#: The password devstack's users share (its SERVICE_PASSWORD, ADMIN_PASSWORD).
PASSWORD = "devstack-secret"

#: A fake thermik-manage: records its arguments; ``keystone setup-domain`` prints what the real
#: command prints (``setup-domain.txt``, written with its own report function).
FAKE_MANAGE = """#!/bin/bash
(IFS=$'\\x1f'; printf '%s\\n' "thermik-manage$IFS$*" >> "$HARNESS_LOG")
case " $* " in
    *" setup-domain "*) cat "$HARNESS_BIN/setup-domain.txt" ;;
    *" db sync "*) echo "database is at schema revision head" ;;
esac
"""
#: What the fake ``keystone setup-domain`` reports having made.
DOMAIN = DomainSetup("d0ma1n", "thermik", "thermik_domain_admin", "u1", ("domain",), PASSWORD)


@dataclasses.dataclass(frozen=True)
class Phase:
    """What one phase printed and whether it succeeded."""

    returncode: int
    stdout: str
    stderr: str


class Devstack:
    """A temporary devstack tree and the variables devstack would have set."""

    def __init__(self, root: Path, **overrides: str) -> None:
        self.root = root
        self.log = root / "calls.log"
        self.bin = root / "bin"
        for folder in ("dest", "data", "etc", "bin", "run/uwsgi", "tempest/etc"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        (root / "dest" / "thermik").symlink_to(ROOT)
        self._executables()
        self.variables: dict[str, str] = {
            "DEST": str(root / "dest"),
            "DATA_DIR": str(root / "data"),
            "THERMIK_CONF_DIR": str(root / "etc" / "thermik"),
            "TEMPEST_CONFIG": str(root / "tempest" / "etc" / "tempest.conf"),
            "STACK_USER": os.environ.get("USER") or "root",
            "ENABLED_SERVICES": "key,mysql,rabbit,g-api,n-api,n-cpu,q-svc,s-proxy,tempest",
            "DATABASE_TYPE": "mysql",
            "DATABASE_BACKENDS": "mysql postgresql",
            "BASE_SQL_CONN": f"mysql+pymysql://root:{PASSWORD}@127.0.0.1",
            "RABBIT_USERID": "stackrabbit",
            "RABBIT_PASSWORD": PASSWORD,
            "RABBIT_HOST": "192.0.2.10",
            "SERVICE_HOST": "192.0.2.10",
            "SERVICE_PROTOCOL": "http",
            "SERVICE_PASSWORD": PASSWORD,
            "ADMIN_PASSWORD": PASSWORD,
            "SERVICE_PROJECT_NAME": "service",
            "SERVICE_DOMAIN_NAME": "Default",
            "REGION_NAME": "RegionOne",
            "KEYSTONE_SERVICE_URI": "http://192.0.2.10/identity",
            "SSL_BUNDLE_FILE": "",
            "MEMCACHE_SERVERS": "localhost:11211",
            "ENABLE_DEBUG_LOG_LEVEL": "True",
            "API_WORKERS": "2",
            "DEFAULT_IMAGE_NAME": "cirros-0.6.3-x86_64-disk",
        }
        self.variables.update(overrides)

    def _executables(self) -> None:
        manage = self.bin / "thermik-manage"
        manage.write_text(FAKE_MANAGE)
        (self.bin / "setup-domain.txt").write_text(report(DOMAIN) + "\n")
        for name in ("thermik-engine", "uwsgi"):
            (self.bin / name).write_text("#!/bin/sh\nexit 0\n")
        for name in ("thermik-manage", "thermik-engine", "uwsgi"):
            (self.bin / name).chmod(0o755)

    def environment(self) -> Mapping[str, str]:
        """The process environment of a phase: only what bash and Python need, plus the
        harness's variables (devstack's are set by the script itself)."""
        return {
            "PATH": f"{self.bin}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": os.environ.get("HOME", str(self.root)),
            "USER": self.variables["STACK_USER"],
            "HARNESS_ROOT": str(self.root),
            "HARNESS_LOG": str(self.log),
            "HARNESS_BIN": str(self.bin),
        }

    def run(self, *phase: str) -> Phase:
        """Source the plugin for ``phase`` (e.g. ``"stack", "install"``) as devstack does,
        with errexit on (stack.sh runs so)."""
        assigns = "\n".join(f"{key}={shlex.quote(value)}" for key, value in self.variables.items())
        plugin = self.root / "dest" / "thermik" / "devstack"
        script = "\n".join(
            [
                "set -o errexit -o pipefail",
                assigns,
                f"source {shlex.quote(str(HERE / 'fake_devstack.sh'))}",
                f"source {shlex.quote(str(plugin / 'settings'))}",
                f"source {shlex.quote(str(plugin / 'plugin.sh'))} {shlex.join(phase)}",
            ]
        )
        done = subprocess.run(
            ["bash", "-c", script],
            env=dict(self.environment()),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return Phase(done.returncode, done.stdout, done.stderr)

    def stack(self) -> None:
        """Every stack phase in devstack's order; fails on the first that fails."""
        for phase in ("install", "post-config", "extra", "test-config"):
            done = self.run("stack", phase)
            assert done.returncode == 0, f"stack {phase}: {done.stderr}"

    def calls(self, name: str | None = None) -> list[list[str]]:
        """The recorded calls (each a list: the function, then its arguments), of ``name``
        only when given."""
        if not self.log.exists():
            return []
        lines = self.log.read_text().splitlines()
        calls = [line.split(SEPARATOR) for line in lines]
        return [call for call in calls if name is None or call[0] == name]

    def forget_calls(self) -> None:
        """Start a new log (to look at one phase's calls)."""
        self.log.unlink(missing_ok=True)

    @property
    def thermik_conf(self) -> Path:
        """Where the plugin writes thermik.conf."""
        return Path(self.variables["THERMIK_CONF_DIR"]) / "thermik.conf"

    @property
    def uwsgi_conf(self) -> Path:
        """Where the plugin writes thermik-api's uWSGI configuration."""
        return Path(self.variables["THERMIK_CONF_DIR"]) / "thermik-api-uwsgi.ini"

    @property
    def tempest_conf(self) -> Path:
        """tempest.conf, as the test-config phase leaves it."""
        return Path(self.variables["TEMPEST_CONFIG"])
