"""The unmodified os-collect-config reads what the builtin and fakeswift backends serve.

Set ``THERMIK_OS_COLLECT_CONFIG`` to the agent's executable (the realparts venv has one).
"""

from __future__ import annotations

import datetime
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.delivery_services import service_env
from thermik.delivery import document
from thermik.delivery.base import DeliveryBackend, ServerRef
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.delivery.impl_fakeswift import FakeSwiftBackend

pytestmark = pytest.mark.functional


def builtin() -> DeliveryBackend:
    backend = BuiltinBackend(InMemoryObjectStore(), key="agent", base_url="http://unused")
    backend.serve_on_loopback()
    return backend


def fakeswift() -> DeliveryBackend:
    return FakeSwiftBackend(FakeSwiftCluster(), serve=True)


@pytest.mark.parametrize("make", [builtin, fakeswift], ids=["builtin", "fakeswift"])
def test_request_collector_fetches_the_document(
    make: Callable[[], DeliveryBackend], tmp_path: Path
) -> None:
    agent = service_env("THERMIK_OS_COLLECT_CONFIG")["THERMIK_OS_COLLECT_CONFIG"]
    facts = document.DeploymentFacts("srv", "CREATE", "s/1", "d1", "NO_SIGNAL", "s-d1")
    source = document.SourceConfig(name="hello", group="script", config="#!/bin/sh\necho hi\n")
    now = datetime.datetime.now(datetime.UTC)
    config = document.derive_config(source, facts, config_id="cfg-1", created_at=now)
    with make() as backend:
        endpoint = backend.provision(ServerRef("srv"))
        doc = document.metadata_document(
            collector=endpoint.collector,
            collector_settings=endpoint.collector_settings,
            deployments=[config],
        )
        backend.publish(endpoint, document.with_generation(doc, 5))
        url = endpoint.collector_settings["metadata_url"]
        command = [agent, "--one-time", "--print", "--request-metadata-url", url]
        command += ["--cachedir", str(tmp_path / "cache")]
        command += ["--backup-cachedir", str(tmp_path / "backup"), "request"]
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=120, check=True
        )
    fetched = json.loads(completed.stdout)["request"]
    assert document.generation_of(fetched) == 5
    assert fetched["deployments"] == [config.entry()]
    assert fetched["os-collect-config"]["collectors"] == ["request", "local"]
