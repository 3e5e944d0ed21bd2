"""Twenty deployments to one server created at once, through the whole engine, against the fake
Swift with skewed proxy clocks (writes through a proxy behind are silently dropped, 202): the
served document must end up with every one of them, and each is applied exactly once.

It needs no service, so it always runs. The object writes it took are printed (-s) and kept as
a test property; bench/delivery_bench.py measures them properly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.functional.software_deployments.engine import CTX, EngineUnderTest
from tests.functional.software_deployments.http_agent import HttpAgent
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster, Knobs
from thermik.delivery.impl_fakeswift import ACCOUNT, FakeSwiftBackend

COUNT = 20


def racing_template(count: int) -> str:
    lines = [
        "heat_template_version: 2018-08-31",
        "resources:",
        "  server: {type: OS::Heat::DeployedServer}",
        "  config: {type: OS::Heat::SoftwareConfig, properties: {group: script, config: 'true'}}",
    ]
    for n in range(count):
        lines += [
            f"  d{n:02}:",
            "    type: OS::Heat::SoftwareDeployment",
            "    properties:",
            "      server: {get_resource: server}",
            "      config: {get_resource: config}",
            "      signal_transport: TEMP_URL_SIGNAL",
            f"      name: d{n:02}",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("skew", [0.0, 0.5], ids=["no-skew", "skew-0.5s"])
def test_no_deployment_is_lost(
    tmp_path: Path, skew: float, record_property: Callable[[str, object], None]
) -> None:
    knobs = Knobs(
        proxy_offsets=(0.0, -skew, skew),
        latency=(0.0005, 0.003),
        commit_delay=(0.001, 0.01),
        reorder_probability=0.2,
        reorder_delay=0.01,
    )
    cluster = FakeSwiftCluster(knobs, seed=7)
    engine = EngineUnderTest(tmp_path, backend=FakeSwiftBackend(cluster, serve=True))
    try:
        stack = engine.create("race", racing_template(COUNT))
        url = engine.metadata_url(stack)
        with HttpAgent(url).running() as agent:
            view = engine.wait(stack, 120)
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
        assert sorted(agent.signalled.values()) == [f"d{n:02}" for n in range(COUNT)]
        server = engine.service.show_resource(CTX, stack, "server").physical_resource_id
        stored = cluster.stored(f"{ACCOUNT}/thermik-{server}/metadata")
        assert stored is not None
        served = json.loads(stored)
        assert [e["name"] for e in served["deployments"]] == [f"d{n:02}" for n in range(COUNT)]
        writes = engine.engine.deployments.writers.writes if engine.engine.deployments else 0
        record_property("metadata_writes", writes)
        record_property("puts_dropped", cluster.counters.puts_dropped)
        print(f"skew {skew}s: {writes} metadata writes, {cluster.counters.puts_dropped} dropped")
    finally:
        engine.close()
