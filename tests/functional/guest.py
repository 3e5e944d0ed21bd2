"""Plays the guest of a server configured by software deployments, with the real agent.

Nova's fake virt driver boots no guest, and an ``OS::Heat::DeployedServer`` is a machine the user
configures by hand, so a test plays that machine: :class:`BootData` is exactly what the server
was given (the user_data Nova holds for it, decoded and split into its cloud-init parts, or the
``os_collect_config`` a DeployedServer hands out), and :class:`Guest` boots the real
os-collect-config + heat-agents chain of an :class:`~tests.functional.services.AgentSandbox`
from it:

1. first boot (:meth:`Guest.boot`): the ``cfn-init-data`` part is written where cloud-init's
   part handler puts it, os-collect-config's ``heat_local`` collector reads it and
   os-apply-config renders the agent's configuration from its ``os-collect-config`` section
   with heat-agents' own template (``root/etc/os-collect-config.conf`` in the sandbox);
2. then (:meth:`Guest.run_once`, :meth:`Guest.polling`) os-collect-config runs with that
   rendered configuration and the collectors the section names, runs each deployment once and
   signals back, as the server would.

The section's ``ec2`` and ``local`` collectors are left out: there is no EC2 metadata service on
loopback, and ``local`` reads files a user places on the machine (and its locale handling fails
under this machine's C.UTF-8 locale).
"""

from __future__ import annotations

import base64
import configparser
import contextlib
import dataclasses
import email
import json
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from openstack.connection import Connection

from tests.functional.services import AgentSandbox

METADATA_PART = "cfn-init-data"
OCC_KEY = "os-collect-config"
UNREACHABLE_COLLECTORS = frozenset({"ec2", "local"})


@dataclasses.dataclass(frozen=True)
class BootPart:
    """One cloud-init part of a server's user_data."""

    content_type: str
    filename: str | None
    text: str


@dataclasses.dataclass(frozen=True)
class BootData:
    """What a server was given to configure its agent: its user_data's parts (none for a
    DeployedServer) and the metadata it boots with (``cfn-init-data``)."""

    parts: tuple[BootPart, ...]
    metadata: Mapping[str, Any]

    @property
    def agent_config(self) -> dict[str, Any]:
        """The ``os-collect-config`` section the server boots with."""
        section = self.metadata.get(OCC_KEY)
        assert isinstance(section, dict), f"the boot metadata has no {OCC_KEY} section"
        return section

    def part(self, filename: str) -> BootPart:
        """The part named ``filename``."""
        found = [p for p in self.parts if p.filename == filename]
        assert len(found) == 1, f"{len(found)} parts named {filename}: {self.parts}"
        return found[0]

    @classmethod
    def from_user_data(cls, text: str) -> BootData:
        """The boot data of a server whose user_data (decoded) is ``text``."""
        message = email.message_from_string(text)
        assert message.is_multipart(), "the user_data is no multipart MIME message"
        parts = []
        for part in message.walk():
            if part.is_multipart():
                continue
            raw = part.get_payload(decode=True)
            assert isinstance(raw, bytes)
            charset = part.get_content_charset() or "us-ascii"
            parts.append(
                BootPart(part.get_content_type(), part.get_filename(), raw.decode(charset))
            )
        boot = [p for p in parts if p.filename == METADATA_PART]
        assert len(boot) == 1, f"the user_data has {len(boot)} {METADATA_PART} parts"
        assert boot[0].content_type == "text/x-cfninitdata", boot[0].content_type
        return cls(tuple(parts), json.loads(boot[0].text))

    @classmethod
    def from_agent_config(cls, agent_config: Mapping[str, Any]) -> BootData:
        """A DeployedServer's: the ``os_collect_config`` its user installs on the machine."""
        return cls((), {OCC_KEY: dict(agent_config), "deployments": []})


def nova_boot_data(admin: Connection, server_id: str) -> BootData:
    """What Nova holds for the server: its user_data, which only an admin reads (compute API
    microversion 2.3 and later, as ``OS-EXT-SRV-ATTR:user_data``)."""
    server = admin.compute.get_server(server_id)
    encoded = server.user_data
    assert encoded, f"server {server_id} has no user_data"
    return BootData.from_user_data(base64.b64decode(encoded).decode("utf-8"))


class Guest:
    """A server's agent in a sandbox, configured from its :class:`BootData`."""

    def __init__(self, sandbox: AgentSandbox, data: BootData) -> None:
        self.sandbox = sandbox
        self.data = data

    @property
    def rendered_config(self) -> Path:
        """The agent configuration os-apply-config rendered at first boot."""
        return self.sandbox.path / "root" / "etc" / "os-collect-config.conf"

    @property
    def collectors(self) -> list[str]:
        """The collectors the guest polls (see the module docstring)."""
        names = self.data.agent_config.get("collectors") or []
        chosen = [str(n) for n in names if n not in UNREACHABLE_COLLECTORS]
        assert chosen, f"no collector to poll in {names}"
        return chosen

    def boot(self) -> configparser.ConfigParser:
        """First boot; returns the agent configuration it rendered."""
        boot_file = self.sandbox.path / METADATA_PART
        boot_file.write_text(json.dumps(dict(self.data.metadata)))
        self.sandbox.run("--boot", str(boot_file))
        assert self.rendered_config.is_file(), "os-apply-config rendered no agent configuration"
        # Every key of a section that names none is written: strict parsing would refuse the
        # repeated `collectors` lines heat-agents' template writes.
        parsed = configparser.ConfigParser(strict=False, interpolation=None)
        parsed.read(self.rendered_config)
        return parsed

    def run_once(self, timeout: float = 120) -> None:
        """One collection (and the deployments it brings) with the booted configuration."""
        self.sandbox.run("--once", "--configured", *self.collectors, timeout=timeout)

    @contextlib.contextmanager
    def polling(self, interval: int = 1) -> Iterator[subprocess.Popen[bytes]]:
        """The agent polling with the booted configuration until the block ends."""
        with self.sandbox.background(
            "--poll", str(interval), "--configured", *self.collectors
        ) as agent:
            yield agent
