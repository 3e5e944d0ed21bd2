"""The real os-collect-config moves to a rotated builtin URL by itself.

The builtin backend re-signs a URL once half its lifetime is gone and serves the fresh one in
the document's ``os-collect-config`` section; the agent's os-apply-config template rewrites
``/etc/os-collect-config.conf`` from that section, so the agent's next poll uses the new URL.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.functional.services import AgentSandbox
from thermik.delivery import signing
from thermik.delivery.base import ServerRef
from thermik.delivery.document import metadata_document
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore

pytestmark = pytest.mark.functional
LIFETIME = 3600


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def signature_of(url: str) -> str:
    return dict(parse_qsl(urlsplit(url).query))[signing.SIG]


def test_the_agent_rewrites_its_config_with_the_rotated_url(agent_sandbox: AgentSandbox) -> None:
    clock = Clock()
    backend = BuiltinBackend(
        InMemoryObjectStore(), key="k", base_url="http://x", url_lifetime=LIFETIME, clock=clock
    )
    try:
        backend.serve_on_loopback()
        endpoint = backend.provision(ServerRef("srv"))
        old_url = endpoint.collector_settings["metadata_url"]
        document = metadata_document(
            collector=endpoint.collector,
            collector_settings=endpoint.collector_settings,
            deployments=(),
        )
        backend.publish(endpoint, document)
        clock.now += LIFETIME * 0.6
        fresh_url = backend.refreshed(endpoint).collector_settings["metadata_url"]
        assert signature_of(fresh_url) != signature_of(old_url)

        agent_sandbox.run_once(old_url)
    finally:
        backend.close()
    rendered = (Path(agent_sandbox.path) / "root" / "etc" / "os-collect-config.conf").read_text()
    assert signature_of(fresh_url) in rendered
    assert signature_of(old_url) not in rendered
