"""A clean stop leaves running resource actions resumable instead of failed.

When an engine stops cleanly (``EngineRuntime.stop()``, Ctrl-C in the CLI), each resource
action it runs is *suspended*: the row keeps its ``<ACTION>_IN_PROGRESS`` state but its lock is
released, and the plugin's :class:`~thermik.resources.plugin.Progress` (JSON by contract) is
stored in the version's data. The next engine's traversal finds the unlocked IN_PROGRESS row,
locks it again and continues polling from that progress, or retries the action when none was
recorded. Rows still locked by an engine that died (SIGKILL) are released by
:func:`release_dead`: as suspended with no progress known when their plugin can run the action
again safely (a cloud type's create finds what the dead engine's made), else as FAILED
(:func:`thermik.actors.rows.steal`), as Heat does.
"""

from __future__ import annotations

import dataclasses
import json

from thermik.actors import rows
from thermik.engine.states import Status
from thermik.persistence.resource_values import Resource, ResourceChanges
from thermik.persistence.store import Store
from thermik.persistence.values import KEEP, Keep
from thermik.resources.plugin import Operation, Progress, ResourcePlugin

#: The data key holding a suspended action's progress (JSON of ``Progress.state``).
PROGRESS_KEY = "__thermik_suspended_progress__"
#: The reason a suspended row records.
SUSPENDED_REASON = "Engine stopped during resource {action}; the next engine resumes it"
#: Operations that may simply be started again when their progress is unknown.
RESTARTABLE = frozenset(
    {
        Operation.CREATE,
        Operation.DELETE,
        Operation.SUSPEND,
        Operation.RESUME,
        Operation.CHECK,
        Operation.SNAPSHOT,
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class Suspended:
    """Where a suspended action was: done (only its completion is left to record), polling
    from ``progress``, or unknown (``known`` false: it had not run a step yet)."""

    known: bool = False
    done: bool = False
    progress: Progress | None = None


def suspend(
    store: Store, row: Resource, engine_id: str, where: Suspended, physical: str | Keep | None
) -> Resource:
    """Release the lock ``engine_id`` holds on ``row``, keeping it IN_PROGRESS, and record
    ``where`` its action was."""
    if where.known:
        state = None if where.progress is None else dict(where.progress.state)
        store.set_resource_data(
            row.id, PROGRESS_KEY, json.dumps({"done": where.done, "state": state})
        )
    changes = ResourceChanges(
        physical_resource_id=physical,
        status_reason=SUSPENDED_REASON.format(action=row.action),
    )
    key = store.unlock_resource(row.id, engine_id, row.atomic_key, changes)
    return dataclasses.replace(row, atomic_key=key, engine_id=None)


def release_dead(store: Store, row: Resource, plugin: type[ResourcePlugin] | None) -> Resource:
    """Release the lock of an engine that died on ``row``: resumable (IN_PROGRESS, unlocked,
    progress unknown, so the next engine starts the action again) when ``plugin`` says its
    interrupted action may restart, else FAILED."""
    operation = operation_of(row)
    if (
        plugin is None
        or row.engine_id is None
        or row.status != Status.IN_PROGRESS.value
        or operation is None
        or not plugin.restarts_after_crash(operation)
    ):
        return rows.steal(store, row)
    store.delete_resource_data(row.id, PROGRESS_KEY)
    return suspend(store, row, row.engine_id, Suspended(), KEEP)


def is_suspended(row: Resource) -> bool:
    """Whether ``row`` is an action a cleanly stopped engine left to be resumed."""
    return row.status == Status.IN_PROGRESS.value and row.engine_id is None


def operation_of(row: Resource) -> Operation | None:
    """The plugin operation a suspended row was running (``None``: not one to resume)."""
    try:
        return Operation(row.action)
    except ValueError:
        return None


def take(store: Store, row: Resource) -> Suspended:
    """Where the suspended action of ``row`` was (the record is removed from its data)."""
    raw = store.get_resource_data(row.id).get(PROGRESS_KEY)
    if raw is None:
        return Suspended()
    store.delete_resource_data(row.id, PROGRESS_KEY)
    found = json.loads(raw)
    state = found.get("state")
    progress = None if state is None else Progress(state)
    return Suspended(known=True, done=bool(found.get("done")), progress=progress)
