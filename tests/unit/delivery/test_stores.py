"""Generations move only by compare-and-swap; the runner bumps through lost races."""

from __future__ import annotations

import datetime

import pytest

from thermik.delivery import document
from thermik.delivery.base import ServerRef
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.delivery.metadata_actor import EffectRunner
from thermik.delivery.metadata_writer import (
    ReadGeneration,
    ReadServedGeneration,
    Snapshot,
    TakeSnapshot,
    WriteDocument,
)
from thermik.delivery.stores import InMemoryDeployments, InMemoryGenerationStore
from thermik.errors import GenerationConflict, NotFound

WHEN = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def test_bump_is_a_compare_and_swap() -> None:
    store = InMemoryGenerationStore()
    assert store.get_metadata_generation("s") == 0
    assert store.bump_metadata_generation("s", 0) == 1
    with pytest.raises(GenerationConflict) as info:
        store.bump_metadata_generation("s", 0)
    assert str(info.value) == "metadata generation of server s is 1, not 0"
    assert store.get_metadata_generation("other") == 0


class RivalEngine(InMemoryGenerationStore):
    """Another engine process that bumps first, ``wins`` times."""

    def __init__(self, wins: int) -> None:
        super().__init__()
        self.wins = wins

    def bump_metadata_generation(self, server_id: str, expected: int) -> int:
        if self.wins:
            self.wins -= 1
            super().bump_metadata_generation(server_id, expected)
        return super().bump_metadata_generation(server_id, expected)


def runner(generations: InMemoryGenerationStore) -> EffectRunner:
    backend = BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://h")
    endpoint = backend.provision(ServerRef("s"))
    deployments = InMemoryDeployments()
    deployments.add_server("s", endpoint.collector, endpoint.collector_settings, {"role": "db"})
    facts = document.DeploymentFacts("s", "CREATE", "st/1", "d", "NO_SIGNAL", "st-d")
    config = document.derive_config(
        document.SourceConfig(name="c"), facts, config_id="id1", created_at=WHEN
    )
    deployments.put_deployment("s", "d", config)
    return EffectRunner(endpoint, backend, generations, deployments)


def test_runner_bumps_through_lost_races_then_builds_the_labelled_document() -> None:
    generations = RivalEngine(wins=3)
    snapshot = runner(generations).run(TakeSnapshot(bump=True))
    assert isinstance(snapshot, Snapshot)
    assert snapshot.generation == 4
    assert document.generation_of(snapshot.document) == 4
    assert snapshot.document["role"] == "db"
    assert document.deployment_ids(snapshot.document) == {"id1"}


def test_runner_gives_up_on_a_generation_that_never_holds_still() -> None:
    with pytest.raises(GenerationConflict, match="kept moving"):
        runner(RivalEngine(wins=10_000)).run(TakeSnapshot(bump=True))


def test_runner_writes_and_reads_back_through_the_backend() -> None:
    run = runner(InMemoryGenerationStore())
    snapshot = run.run(TakeSnapshot(bump=True))
    assert isinstance(snapshot, Snapshot)
    assert run.run(ReadServedGeneration()) == 0
    run.run(WriteDocument(snapshot.document))
    assert run.run(ReadServedGeneration()) == 1
    assert run.run(ReadGeneration()) == 1
    assert run.run(TakeSnapshot(bump=False)).generation == 1  # type: ignore[attr-defined]


def test_unknown_servers_are_named() -> None:
    with pytest.raises(NotFound, match="server ghost has no metadata endpoint"):
        InMemoryDeployments().metadata_document("ghost")


def test_deleted_deployments_leave_the_document() -> None:
    deployments = InMemoryDeployments()
    deployments.add_server("s", "request", {"metadata_url": "u"})
    facts = document.DeploymentFacts("s", "CREATE", "st/1", "d", "NO_SIGNAL", "st-d")
    config = document.derive_config(
        document.SourceConfig(name="c"), facts, config_id="id1", created_at=WHEN
    )
    deployments.put_deployment("s", "d", config)
    deployments.delete_deployment("s", "d")
    assert deployments.metadata_document("s")["deployments"] == []
