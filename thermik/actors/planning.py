"""Setting up a traversal: versions chosen, INIT rows inserted, graph built (steps 1 and 3 of
:mod:`thermik.engine`).

The same code starts a traversal and rebuilds one after a restart: the graph comes from the
rows as stored, so a resumed traversal sees the versions its first run inserted. Replacement
versions made by the traversal itself are set aside on resume: the graph must hold the version
they replace, whose slot they fill (``ResumeTraversal.replacements``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence, Set

from thermik.actors.codec import TraversalRecord
from thermik.actors.plan import (
    DefinitionCache,
    TraversalPlan,
    load_definition,
    referenced_attributes,
)
from thermik.actors.services import Services
from thermik.actors.stored import StoredResolution, to_version
from thermik.engine.graph import ConvergenceGraph, graph_for
from thermik.engine.states import Action, Status
from thermik.engine.versions import ResourceVersion, VersionId, select_versions
from thermik.errors import NotFound
from thermik.persistence.resource_values import NewResource, Resource
from thermik.persistence.values import Stack
from thermik.resources.context import StackIdentity
from thermik.template import StackDefinition

#: Operations that converge to an empty template: no definition, cleanup nodes only.
EMPTYING = frozenset({Action.DELETE, Action.ABANDON})
#: Operations that create the versions a template names and the stack lacks.
CREATING = frozenset({Action.CREATE, Action.ADOPT, Action.UPDATE, Action.ROLLBACK, Action.RESTORE})


@dataclasses.dataclass(frozen=True, slots=True)
class Prepared:
    """A traversal ready to start (or resume)."""

    plan: TraversalPlan
    graph: ConvergenceGraph
    replacements: Mapping[VersionId, VersionId]


def identity_of(stack: Stack) -> StackIdentity:
    """The identity plugins see."""
    return StackIdentity(stack.id, stack.name, stack.tenant)


def definition_of(services: Services, stack: Stack, template_id: int) -> StackDefinition:
    """The definition of ``template_id`` for ``stack``."""
    return load_definition(
        services.store, template_id, identity_of(stack), services.registry, services.budget
    )


def _own_replacements(rows: Sequence[Resource], stack: Stack) -> dict[VersionId, VersionId]:
    """The replacements the traversal made that still fill their slot.

    A failed one (its engine died creating it) does not: it stays an ordinary version, which
    the resumed traversal cleans up, and the version it replaced is replaced again (as Heat
    re-checks it); filling the slot, it could only fail the traversal.
    """
    started = stack.traversal_started_at
    if started is None:
        return {}
    return {
        row.replaces: row.id
        for row in rows
        if row.replaces is not None
        and row.status != Status.FAILED.value
        and _not_before(row, started)
    }


def _not_before(row: Resource, started: object) -> bool:
    created = row.created_at
    if created.tzinfo is None and getattr(started, "tzinfo", None) is not None:
        created = created.replace(tzinfo=started.tzinfo)  # type: ignore[attr-defined]
    return bool(created >= started)  # type: ignore[operator]


def _select(
    services: Services,
    stack: Stack,
    record: TraversalRecord,
    definition: StackDefinition,
    versions: list[ResourceVersion],
    rows: dict[int, Resource],
) -> tuple[dict[str, Set[str]], dict[str, VersionId]]:
    template_id = stack.raw_template_id
    selection = select_versions(
        versions,
        definition.resources,
        new_template_id=template_id,
        current_template_id=record.previous_template_id,
    )
    chosen = dict(selection.chosen)
    deps: dict[str, Set[str]] = dict(definition.dependencies())
    if not selection.missing:
        return deps, chosen
    if record.operation in CREATING:
        new = [
            NewResource(
                stack.id,
                stack.root_id,
                name,
                definition.resources[name].type,
                template_id,
            )
            for name in selection.missing
        ]
        for row in services.store.create_resources(new):
            rows[row.id] = row
            versions.append(to_version(row))
            chosen[row.name] = row.id
        return deps, chosen
    # Observing operations (check, suspend, ...) skip names that never got a version.
    deps = {name: frozenset(r for r in req if r in chosen) for name, req in deps.items()}
    return {name: req for name, req in deps.items() if name in chosen}, chosen


def prepare(
    services: Services,
    stack: Stack,
    record: TraversalRecord,
    traversal_id: str,
    definition: StackDefinition | None,
    *,
    resuming: bool = False,
) -> Prepared:
    """Choose versions, insert the missing ones in one transaction, and build the graph.

    ``stack`` is the row after the traversal's compare-and-swap: its ``raw_template_id`` is the
    template converged to.
    """
    all_rows = services.store.list_resources(stack.id)
    replacements = _own_replacements(all_rows, stack) if resuming else {}
    own = set(replacements.values())
    rows = {row.id: row for row in all_rows if row.id not in own}
    shared: dict[tuple[int, ...], frozenset[int]] = {}
    versions = [to_version(row, shared) for row in rows.values()]
    rows = _sharing_requires(rows, shared)
    deps: Mapping[str, Set[str]] = {}
    chosen: dict[str, VersionId] = {}
    if definition is not None:
        deps, chosen = _select(services, stack, record, definition, versions, rows)
    graph = graph_for(record.operation, versions, deps, chosen)
    identity = identity_of(stack)
    cache = DefinitionCache(lambda tid: _noted(services, tid, definition_of(services, stack, tid)))
    if definition is not None:
        cache.seed(stack.raw_template_id, definition)
        _noted(services, stack.raw_template_id, definition)
    plan = TraversalPlan(
        traversal_id=traversal_id,
        operation=record.operation,
        stack=identity,
        root_id=stack.root_id,
        template_id=None if definition is None else stack.raw_template_id,
        definition=definition,
        referenced={} if definition is None else referenced_attributes(definition),
        rows=rows,
        properties=services.store.list_resource_properties(stack.id),
        definitions=cache,
        stored=StoredResolution(services.store, stack.id),
        adopt=_resources_map(record.adopt_data),
        snapshot=_snapshot_resources(services, record),
    )
    return Prepared(plan, graph, replacements)


def _noted(services: Services, template_id: int, definition: StackDefinition) -> StackDefinition:
    """``definition``, once what the engine remembers of every built template is noted."""
    services.retention.note(template_id, definition)
    services.plain.note(template_id, definition, services.registry)
    return definition


def _sharing_requires(
    rows: dict[int, Resource], shared: Mapping[tuple[int, ...], frozenset[int]]
) -> dict[int, Resource]:
    """The rows with equal ``requires`` tuples made one object: a traversal keeps its rows,
    and a stack of layers has thousands of rows requiring the same hundreds of versions."""
    tuples: dict[tuple[int, ...], tuple[int, ...]] = {key: key for key in shared}
    return {
        vid: row
        if tuples.get(row.requires, row.requires) is row.requires
        else dataclasses.replace(row, requires=tuples[row.requires])
        for vid, row in rows.items()
    }


def _resources_map(adopt_data: Mapping[str, object] | None) -> Mapping[str, object] | None:
    if adopt_data is None:
        return None
    resources = adopt_data.get("resources", adopt_data)
    return resources if isinstance(resources, Mapping) else None


def _snapshot_resources(
    services: Services, record: TraversalRecord
) -> Mapping[str, object] | None:
    """RESTORE: the per-resource data of the snapshot restored (``None`` if it is gone)."""
    if record.operation is not Action.RESTORE or record.snapshot_id is None:
        return None
    try:
        data = services.store.get_snapshot(record.snapshot_id).data
    except NotFound:
        return None
    return _resources_map(data)
