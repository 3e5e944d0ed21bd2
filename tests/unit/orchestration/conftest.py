"""Fixtures: the real orchestration service over a real SQLite Store and the real runtime.

Every test gets its own database (a copy of one migrated once per session) under its tmp dir,
built through the composition root exactly as ``thermik-api`` and the CLI build it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from thermik.api.boundary import RequestContext, StackIdentity, StackRequest, StackView
from thermik.conf.settings import Settings
from thermik.orchestration import Orchestrator
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.service import build_orchestration_service

CTX = RequestContext(tenant="tenant1", user="alice")
OTHER = RequestContext(tenant="tenant2", user="bob")
WAIT = 30.0

#: Two resources with a dependency, parameters (one hidden, one immutable) and outputs.
TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "A small stack",
    "parameters": {
        "word": {"type": "string", "default": "hello"},
        "secret": {"type": "string", "default": "s3cret", "hidden": True},
        "size": {"type": "number", "default": 8, "immutable": True},
    },
    "resources": {
        "first": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "word"}},
        },
        "second": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["first", "output"]}},
        },
        "password": {
            "type": "OS::Heat::RandomString",
            "properties": {"length": {"get_param": "size"}},
        },
    },
    "outputs": {
        "echo": {"description": "What second stored", "value": {"get_attr": ["second", "output"]}},
        "first_id": {"value": {"get_resource": "first"}},
        "broken": {"value": {"list_join": [",", {"get_attr": ["first", "output"]}]}},
    },
}


@pytest.fixture(scope="session")
def migrated_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database at the current schema, migrated once."""
    settings = Settings.embedded(tmp_path_factory.mktemp("migrated"))
    db = Database(settings.database)
    migration.upgrade(db)
    db.dispose()
    return settings.state_dir / "thermik.sqlite"


@pytest.fixture
def settings(tmp_path: Path, migrated_db: Path) -> Settings:
    """Embedded settings with a fresh copy of the migrated database."""
    shutil.copy(migrated_db, tmp_path / "thermik.sqlite")
    return Settings.embedded(tmp_path)


@pytest.fixture
def service(settings: Settings) -> Iterator[Orchestrator]:
    """The service as the composition root builds it; closed after the test."""
    built = build_orchestration_service(settings)
    try:
        yield built
    finally:
        built.close()


def request(name: str = "s1", template: Any = None, **fields: Any) -> StackRequest:
    """A create request for ``TEMPLATE`` (or ``template``)."""
    return StackRequest(name=name, template=TEMPLATE if template is None else template, **fields)


def settle(service: Orchestrator, stack: StackIdentity, ctx: RequestContext = CTX) -> StackView:
    """Wait for the stack's operation to end; its view with outputs."""
    service.runtime.wait(stack.id, WAIT)
    return service.show_stack(ctx, stack)


def create(service: Orchestrator, name: str = "s1", **fields: Any) -> StackIdentity:
    """Create a stack and wait until it is CREATE_COMPLETE."""
    stack = service.create_stack(CTX, request(name, **fields))
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
    return stack
