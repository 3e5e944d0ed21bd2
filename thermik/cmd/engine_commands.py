"""``thermik engine status|stop``: the local engine daemon of the state directory.

The daemon is started by the first command that needs the engine and exits by itself after
``[engine] local_daemon_idle_timeout`` seconds with nothing to do; these commands show it and
stop it (cleanly: what it recorded stays, and the next command's daemon resumes it).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path
from typing import cast

from cliff.command import Command
from cliff.show import ShowOne

from thermik.cmd import daemon
from thermik.cmd.helptext import PlainHelp
from thermik.cmd.local_engine import LOG_FILE
from thermik.cmd.render import Row
from thermik.cmd.session import ServiceCommand


class _EngineCommand(ServiceCommand):
    """Base of the ``engine`` commands: the state directory they act on."""

    remote_ok = False

    @property
    def state_dir(self) -> Path:
        """The state directory of this command's configuration."""
        return Path(self.thermik.settings().state_dir)


class EngineStatus(_EngineCommand, ShowOne):
    """Show whether the local engine daemon runs, and what keeps it up."""

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        found = daemon.running(self.state_dir)
        log = str(self.state_dir / LOG_FILE)
        if found is None:
            return ("status", "log"), ("not running", log)
        address, info = found
        started = datetime.datetime.fromtimestamp(float(info["started_at"]), datetime.UTC)
        busy = cast("list[str]", info.get("busy") or [])
        fields = (
            ("status", "running"),
            ("pid", address.pid),
            ("engine_id", address.engine_id),
            ("url", address.url),
            ("cloud", info.get("cloud") or ""),
            ("started_at", started.strftime("%Y-%m-%dT%H:%M:%SZ")),
            ("idle_timeout", info.get("idle_timeout")),
            ("busy", "; ".join(busy) if busy else "idle"),
            ("log", log),
        )
        return tuple(name for name, _ in fields), tuple(value for _, value in fields)


class EngineStop(_EngineCommand, PlainHelp, Command):
    """Stop the local engine daemon cleanly (stacks in progress resume with the next one)."""

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        pid = daemon.stop(self.state_dir)
        if pid is None:
            sys.stdout.write("The local engine is not running\n")
        else:
            sys.stdout.write(f"Stopped the local engine (pid {pid})\n")
        return 0
