"""Driving the real actor runtime in tests: a real store, the real plugins, no mocks.

:class:`Harness` stores templates and stacks the way the orchestration service does, asks the
runtime to converge them and reads back what the store holds (rows, events, attributes).
"""

from __future__ import annotations

import base64
import contextlib
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pykka

from thermik.actors.runtime import ConvergeRequest, EngineRuntime
from thermik.actors.stored import current_versions
from thermik.conf.settings import DatabaseSettings, EngineSettings, LimitSettings
from thermik.engine.states import Action, State
from thermik.orchestration.nested import NestedStacks
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store
from thermik.persistence.resource_values import EventQuery, Resource
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack
from thermik.resources.plugin import ResourcePlugin
from thermik.resources.registry import Registry

#: Settings that keep tests quick: short grace and leases, frequent heartbeats.
TEST_SETTINGS = EngineSettings(
    max_concurrent_resources=16,
    executor_workers=8,
    cancel_grace_period=2,
    lease_seconds=3,
    heartbeat_interval=1,
)
REGISTRY = Registry.from_entry_points()
#: The key of every store of the scenarios (the same in the crash engines' processes), so they
#: run as the embedded default does: every document sealed. It protects nothing.
KEY = base64.urlsafe_b64encode(b"thermik scenarios: not a secret!").decode()
HOT = "2021-04-16"


def migrated_sqlite(directory: Path, template: Path | None = None) -> str:
    """A migrated SQLite database in ``directory`` (copied from ``template`` when given)."""
    path = directory / "thermik.sqlite"
    if template is not None:
        shutil.copy(template, path)
        return f"sqlite:///{path}"
    url = f"sqlite:///{path}"
    db = Database(DatabaseSettings(url))
    migration.upgrade(db)
    db.dispose()
    return url


def res(value: str = "v", **properties: Any) -> dict[str, Any]:
    """An ``OS::Heat::TestResource`` snippet."""
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **properties}}


def wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Poll ``condition`` until it holds (fail the test after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


class Harness:
    """A store and a runtime on it, with the service's side of the work done by hand."""

    def __init__(self, store: Store, runtime: EngineRuntime) -> None:
        self.store = store
        self.runtime = runtime

    def template(
        self,
        resources: Mapping[str, Any],
        outputs: Mapping[str, Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
    ) -> int:
        """Store a HOT template."""
        document: dict[str, Any] = {"heat_template_version": HOT, "resources": dict(resources)}
        if outputs:
            document["outputs"] = dict(outputs)
        if parameters:
            document["parameters"] = dict(parameters)
        return self.store.store_raw_template(document, {}, {})

    def stack(self, resources: Mapping[str, Any], name: str = "s", **fields: Any) -> str:
        """Store a stack as the service does (INIT_COMPLETE) with a template of ``resources``."""
        template_id = self.template(resources, fields.pop("outputs", None))
        return self.store.create_stack(NewStack(name, "tenant", template_id, **fields)).id

    def converge(
        self, stack_id: str, operation: Action, template_id: int | None = None, **fields: Any
    ) -> str:
        """Start a traversal; its id."""
        request = ConvergeRequest(stack_id, operation, template_id=template_id, **fields)
        return self.runtime.converge(request)

    def run(
        self, stack_id: str, operation: Action, template_id: int | None = None, **fields: Any
    ) -> str:
        """Converge and wait; the final state, e.g. ``"CREATE_COMPLETE"``."""
        self.converge(stack_id, operation, template_id, **fields)
        return self.wait(stack_id)

    def create(self, resources: Mapping[str, Any], **fields: Any) -> str:
        """Create a stack and check it completed; its id."""
        stack_id = self.stack(resources, **fields)
        state = self.run(stack_id, Action.CREATE)
        assert state == "CREATE_COMPLETE", self.reason(stack_id)
        return stack_id

    def wait(self, stack_id: str, timeout: float = 30.0) -> str:
        """Wait for the traversal to end; the state as text."""
        return str(self.runtime.wait(stack_id, timeout))

    def reason(self, stack_id: str) -> str:
        """The stack's status reason."""
        return self.store.get_stack(stack_id, show_deleted=True).status_reason

    def rows(self, stack_id: str) -> list[Resource]:
        """Every version row of the stack."""
        return self.store.list_resources(stack_id)

    def live(self, stack_id: str) -> dict[str, Resource]:
        """The current version of each resource."""
        stack = self.store.get_stack(stack_id, show_deleted=True)
        return current_versions(self.rows(stack_id), stack.raw_template_id)

    def states(self, stack_id: str) -> dict[str, str]:
        """Each current version's state."""
        return {name: f"{r.action}_{r.status}" for name, r in self.live(stack_id).items()}

    def locked(self, stack_id: str) -> list[str]:
        """Names of rows still locked by some engine."""
        return [row.name for row in self.rows(stack_id) if row.engine_id is not None]

    def events(self, stack_id: str) -> list[tuple[str, str, str, str]]:
        """(name, action, status, reason) of every event, oldest first."""
        return [
            (e.resource_name, e.resource_action, e.resource_status, e.resource_status_reason)
            for e in self.store.list_events(EventQuery(stack_id))
        ]

    def value_of(self, stack_id: str, name: str) -> Any:
        """The stored ``value`` property of a resource's current version."""
        properties = self.store.get_resource_properties(self.live(stack_id)[name].id) or {}
        return properties.get("value")


def start_runtime(
    store: Store,
    *,
    seed: int | None = 7,
    nested: bool = False,
    fallback_poll: float = 60.0,
    limits: LimitSettings | None = None,
    engine_id: str | None = None,
    settings: EngineSettings = TEST_SETTINGS,
) -> EngineRuntime:
    """A runtime on ``store``, optionally with the nested-stack services attached (as the
    composition root builds it)."""
    if not nested:
        return EngineRuntime.start(
            store=store, registry=REGISTRY, settings=settings, seed=seed, engine_id=engine_id
        )
    services = NestedStacks(
        store, REGISTRY, limits or LimitSettings(), fallback_poll=fallback_poll
    )
    runtime = EngineRuntime.start(
        store=store,
        registry=REGISTRY,
        settings=settings,
        seed=seed,
        engine_id=engine_id,
        nested=services,
        resume=False,
    )
    services.attach(runtime)
    runtime.resume_incomplete()
    return runtime


@contextlib.contextmanager
def harness_on(
    url: str, *, seed: int = 7, key: str | None = KEY, **nested: Any
) -> Iterator[Harness]:
    """A harness on the database at ``url`` (its store under ``key``); stops every actor
    afterwards.

    ``nested`` options (``nested=True``, ``fallback_poll``, ``limits``) go to
    :func:`start_runtime`.
    """
    store = open_store(DatabaseSettings(url, busy_timeout=10), key)
    runtime = start_runtime(store, seed=seed, **nested)
    try:
        yield Harness(store, runtime)
    finally:
        runtime.stop()
        pykka.ActorRegistry.stop_all()
        store.close()


@contextlib.contextmanager
def harness_with_types(
    directory: Path,
    types: Mapping[str, type[ResourcePlugin]],
    *,
    stack_observer: Callable[[Stack, State, str], None] | None = None,
) -> Iterator[Harness]:
    """A harness on a fresh SQLite database in ``directory`` whose registry also knows
    ``types`` (resource type name -> plugin, for tests that bring their own plugin), its
    runtime told each stack state by ``stack_observer`` if given."""
    registry = Registry.from_entry_points()
    for name, plugin in types.items():
        registry.register(name, plugin)
    store = open_store(DatabaseSettings(migrated_sqlite(directory), busy_timeout=10), KEY)
    runtime = EngineRuntime.start(
        store=store,
        registry=registry,
        settings=TEST_SETTINGS,
        seed=7,
        stack_observer=stack_observer,
    )
    try:
        yield Harness(store, runtime)
    finally:
        runtime.stop()
