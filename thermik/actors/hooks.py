"""What the StackActor hands the core about breakpoint hooks, and the events they record.

The core (:mod:`thermik.engine.step`) decides where a node stops and what clears it; the shell
only reads the environment's hooks for the traversal (the definition converged to, or for a
delete the stack's stored environment) and records the resource events the core asks for.
"""

from __future__ import annotations

from collections.abc import Iterable

from immutables import Map

from thermik.actors import rows
from thermik.engine.messages import RecordEvent
from thermik.engine.operations import hook_cleared_reason, paused_reason
from thermik.engine.states import State
from thermik.errors import NotFound, ThermikError
from thermik.persistence.resource_values import EventQuery, Resource
from thermik.persistence.store import Store
from thermik.persistence.values import Stack
from thermik.template import StackDefinition
from thermik.template.environment import Environment
from thermik.template.registry import HOOK_TYPES

NO_HOOKS: Map[str, frozenset[str]] = Map()


def hook_table(
    store: Store, stack: Stack, definition: StackDefinition | None, names: Iterable[str]
) -> Map[str, frozenset[str]]:
    """The hooks set on each of ``names``, by name (names without any are left out)."""
    environment = definition.environment if definition is not None else _stored(store, stack)
    if environment is None:
        return NO_HOOKS
    table = {name: environment.hooks(name) for name in set(names)}
    return Map({name: hooks for name, hooks in table.items() if hooks})


def _stored(store: Store, stack: Stack) -> Environment | None:
    """The environment a stack was last converged with (a delete's hooks come from it)."""
    try:
        document = store.get_raw_template(stack.raw_template_id).environment
    except NotFound:
        return None
    registry = (document or {}).get("resource_registry") or {}
    if not isinstance(registry, dict) or not registry.get("resources"):
        return None
    try:
        return Environment.from_dict(document)
    except ThermikError:
        return None


#: Events read at a time, newest first, looking for the start of the traversal resumed.
_PAGE = 500


def recorded_hooks(
    store: Store, stack: Stack, started: str
) -> tuple[frozenset[tuple[str, str]], frozenset[tuple[str, str]]]:
    """The (resource, hook) pairs the events since the stack's last ``started`` event show
    waiting, and those they show cleared: what a resumed traversal met already."""
    waiting: set[tuple[str, str]] = set()
    cleared: set[tuple[str, str]] = set()
    marker: str | None = None
    while True:
        page = store.list_events(EventQuery(stack.id, marker=marker, limit=_PAGE, sort_dir="desc"))
        for event in page:
            reason = event.resource_status_reason or ""
            if event.resource_name == stack.name and reason == started:
                return frozenset(waiting - cleared), frozenset(cleared)
            hook = _hook_in(reason)
            if hook is None:
                continue
            key = (event.resource_name, hook)
            if reason == hook_cleared_reason(hook):
                cleared.add(key)
            else:
                waiting.add(key)
        if len(page) < _PAGE:
            return frozenset(waiting - cleared), frozenset(cleared)
        marker = page[-1].id


def _hook_in(reason: str) -> str | None:
    """The hook an event reason says a resource waits at or was released from."""
    for hook in HOOK_TYPES:
        if reason in (paused_reason(hook), hook_cleared_reason(hook)):
            return hook
    return None


def record_resource_event(store: Store, command: RecordEvent, known: Resource | None) -> None:
    """Append the event of a resource the core stopped at (or released from) a hook;
    ``known`` is the version as the traversal found it (a deleted row is gone)."""
    if command.version_id is None:
        return
    try:
        row = store.get_resource(command.version_id)
    except NotFound:
        if known is None:
            return
        row = known
    state: State = command.state
    store.append_event(rows.event_for(row, state, command.reason, row.physical_resource_id))
