"""Plugin calls, as executor jobs: the only place the shell runs plugin code.

A resource actor does not call its plugin itself (a plugin may block on a cloud API): it submits
one of these functions to the shared executor and gets a :class:`StepFinished` message back
(a store-only plugin's action that returns at once runs on the actor's thread instead, and
reports back by the same message).
Each step does as much as it can without waiting (start the action *and* poll it once, and on
completion resolve the attribute values), so an action that finishes at once costs one hop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from typing import Any

from thermik.actors.codec import jsonable
from thermik.actors.context import StoreContext
from thermik.actors.stored import ERRORS_KEY, split_attribute_key
from thermik.errors import (
    AttributeValueError,
    CloudUnavailable,
    Failure,
    PluginError,
    ThermikError,
)
from thermik.resources.context import ValidationContext
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    Operation,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
    plan_update,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Pending:
    """The action runs; poll again after ``poll_after`` seconds (``None``: the shell's backoff)."""

    progress: Progress | None
    poll_after: float | None


@dataclasses.dataclass(frozen=True, slots=True)
class Completed:
    """The action finished; for update nodes, the attribute values and the reference id."""

    attributes: Mapping[str, Any] | None = None
    reference_id: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Replace:
    """The resource cannot be converged in place; nothing was changed."""

    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class Planned:
    """An update changes ``changed`` in place."""

    changed: frozenset[str]


@dataclasses.dataclass(frozen=True, slots=True)
class Ran:
    """A store-only plugin's action ran before its row was locked (see
    ``ResourcePlugin.store_only``): its ``result``, or the ``failure`` it raised. Nothing of it
    is stored yet; its resource data waits in the call's context."""

    result: Pending | Completed | Replace | None
    failure: Failure | None = None


StepResult = Pending | Completed | Replace | Planned | Ran


@dataclasses.dataclass(frozen=True, slots=True)
class Call:
    """Everything a step needs: the plugin, its context and the properties."""

    plugin: ResourcePlugin
    ctx: StoreContext
    props: Props
    operation: Operation
    #: Attribute names to resolve on completion (``None``: none, update nodes only resolve them).
    attributes: Collection[str] | None = None


def _start(call: Call) -> Progress | None:
    plugin, ctx, props = call.plugin, call.ctx, call.props
    starts: dict[Operation, Callable[[], Progress | None]] = {
        Operation.CREATE: lambda: plugin.create(ctx, props),
        Operation.DELETE: lambda: plugin.delete(ctx, props),
        Operation.SUSPEND: lambda: plugin.suspend(ctx, props),
        Operation.RESUME: lambda: plugin.resume(ctx, props),
        Operation.CHECK: lambda: plugin.check(ctx, props),
        Operation.SNAPSHOT: lambda: plugin.snapshot(ctx, props),
    }
    return starts[call.operation]()


def _check(call: Call, progress: Progress | None) -> CheckResult:
    plugin, ctx, props = call.plugin, call.ctx, call.props
    checks: dict[Operation, Callable[[], CheckResult]] = {
        Operation.CREATE: lambda: plugin.check_create_complete(ctx, props, progress),
        Operation.UPDATE: lambda: plugin.check_update_complete(ctx, props, progress),
        Operation.DELETE: lambda: plugin.check_delete_complete(ctx, props, progress),
        Operation.SUSPEND: lambda: plugin.check_suspend_complete(ctx, props, progress),
        Operation.RESUME: lambda: plugin.check_resume_complete(ctx, props, progress),
        Operation.CHECK: lambda: plugin.check_check_complete(ctx, props, progress),
        Operation.SNAPSHOT: lambda: plugin.check_snapshot_complete(ctx, props, progress),
        Operation.RESTORE: lambda: plugin.check_restore_complete(ctx, props, progress),
    }
    return checks[call.operation]()


def attribute_values(call: Call) -> Completed:
    """Resolve the attributes a completed update node reports and stores."""
    if call.attributes is None:
        return Completed()
    plugin, ctx, props = call.plugin, call.ctx, call.props
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key in call.attributes:
        name, path = split_attribute_key(key)
        try:
            values[key] = jsonable(plugin.attribute(ctx, props, name, path))
        except AttributeValueError as exc:
            # As in Heat, the resource completes; what reads the attribute gets the error.
            values[key] = None
            errors[name] = exc.message
    if errors:
        values[ERRORS_KEY] = errors
    return Completed(values, plugin.reference_id(ctx, props))


#: Progress keys of an action the cloud could not serve: the start to run again (its
#: operation), the cloud's last answer, and how often it was tried (the backoff's exponent).
RETRY_START = "thermik_retry_start"
UNAVAILABLE = "thermik_unavailable"
TRIES = "thermik_tries"
#: Retries of an unavailable cloud start this far apart and back off to at most this.
_FIRST_RETRY, _MAX_RETRY = 1.0, 15.0


def unavailable_reason(progress: Progress | None) -> str | None:
    """The cloud's last answer when an action waits for an unavailable service, else None."""
    reason = (progress.state if progress else {}).get(UNAVAILABLE)
    return reason if isinstance(reason, str) else None


def _unavailable(progress: Progress | None, error: CloudUnavailable, *, restart: bool) -> Pending:
    """Wait, with backoff, for a service that is down or overloaded; the stack's timeout ends
    the wait (the abort then names the cloud's answer, see :func:`unavailable_reason`)."""
    state = dict(progress.state) if progress else {}
    tries = int(state.get(TRIES, 0))
    state.update({UNAVAILABLE: f"{error.kind}: {error.message}", TRIES: tries + 1})
    if restart:
        state[RETRY_START] = True
    return Pending(Progress(state), min(_FIRST_RETRY * 2**tries, _MAX_RETRY))


def _plugin_progress(progress: Progress | None) -> Progress | None:
    """The progress as the plugin made it (without what waiting on the cloud added)."""
    if progress is None or not any(k in progress.state for k in (UNAVAILABLE, RETRY_START)):
        return progress
    state = {k: v for k, v in progress.state.items() if k not in (UNAVAILABLE, RETRY_START)}
    state.pop(TRIES, None)
    return Progress(state) if state else None


def poll(call: Call, progress: Progress | None) -> Pending | Completed:
    """Ask the plugin once whether the action finished (or start it again, when the cloud
    could not serve its start)."""
    if progress is not None and progress.state.get(RETRY_START):
        return _started(call, progress)
    try:
        return _poll(call, _plugin_progress(progress))
    except CloudUnavailable as error:
        return _unavailable(progress, error, restart=False)


def _started(call: Call, waited: Progress | None) -> Pending | Completed:
    """Start the action (again); a cloud that cannot serve it is waited for."""
    try:
        started = _start(call)
    except CloudUnavailable as error:
        return _unavailable(waited, error, restart=True)
    return poll(call, started)


def _poll(call: Call, progress: Progress | None) -> Pending | Completed:
    result = _check(call, progress)
    if result is True:
        return attribute_values(call)
    if isinstance(result, PollAfter):
        moved = progress if result.progress is None else result.progress
        return Pending(moved, max(0.0, result.seconds))
    if result is False:
        return Pending(progress, None)
    raise PluginError(f"check of {call.operation.value} returned {result!r}, not a bool")


def _validate(call: Call) -> None:
    """The plugin's own checks across properties, before it converges to them."""
    try:
        call.plugin.validate(call.props, ValidationContext())
    except ThermikError as error:
        error.resource = call.ctx.resource_name
        raise error.at("resources", call.ctx.resource_name) from None


def start(call: Call) -> Pending | Completed:
    """Start the action and poll it once (a create validates the properties first)."""
    if call.operation is Operation.CREATE:
        _validate(call)
    return _started(call, None)


def plan(call: Call, old_props: Props, *, force: bool = False) -> Replace | Planned | Completed:
    """Validate the new properties and decide how an update goes: replacement, in place, or
    no change at all (with ``force``, in place even if no property changed: the definition
    did, as a changed ``depends_on``)."""
    _validate(call)
    decided = plan_update(call.plugin, call.ctx, call.props, old_props)
    if decided.replacement is not None:
        return Replace(decided.replacement.reason)
    if not decided.changed and not call.plugin.always_update and not force:
        return attribute_values(call)
    return Planned(decided.changed)


def update(call: Call, old_props: Props, changed: frozenset[str]) -> Pending | Completed | Replace:
    """Start an in-place update and poll it once."""
    progress = call.plugin.update(call.ctx, call.props, old_props, changed)
    if isinstance(progress, NeedsReplacement):
        return Replace(progress.reason)
    return poll(call, progress)


def restore(call: Call, snapshot: Mapping[str, str]) -> Pending | Completed:
    """Start restoring from snapshot data and poll it once."""
    return poll(call, call.plugin.restore(call.ctx, call.props, snapshot))


def ahead(action: Callable[[], Pending | Completed | Replace]) -> Ran:
    """Run a store-only plugin's action before its row is locked (what it raises is the
    action's failure, recorded once the row is locked)."""
    try:
        return Ran(action())
    except Exception as error:  # the plugin's failure, as any step's
        return Ran(None, Failure.from_exception(error))


def update_ahead(
    call: Call, old_props: Props, *, force: bool = False
) -> Replace | Completed | Ran:
    """Plan an update (as :func:`plan`) and, when it goes in place, run it ahead of the lock:
    a store-only plugin's update in one step."""
    planned = plan(call, old_props, force=force)
    if not isinstance(planned, Planned):
        return planned
    return ahead(lambda: update(call, old_props, planned.changed))


def cancel(call: Call) -> None:
    """Tell the plugin to abandon the running action."""
    call.plugin.cancel(call.ctx, call.props, call.operation)


def signal(call: Call, details: Mapping[str, Any] | None) -> str | None:
    """Let the plugin handle a signal; the event reason it gives."""
    return call.plugin.handle_signal(call.ctx, call.props, details)
