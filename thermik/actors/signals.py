"""Handling one signal to a resource: the plugin's ``handle_signal`` on the executor.

The caller (API, CLI, a delivery backend) waits for the answer: the event reason on success, or
the error (``InvalidSignal`` for a resource that takes no signals now or malformed data, with
nothing stored). A handled signal is recorded as a ``SIGNAL`` event, as Heat does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from thermik.actors import node_rules, rows, steps
from thermik.actors.context import StoreContext
from thermik.actors.services import Services
from thermik.actors.stored import REFERENCE_ID_KEY
from thermik.engine.messages import SignalRequest, StepFinished
from thermik.engine.states import Action
from thermik.errors import InvalidSignal, PluginError, ThermikError
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.resources.context import StackIdentity
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.plugin import Operation, ResourcePlugin

if TYPE_CHECKING:
    from thermik.actors.node_state import Port

#: Actions during which a resource refuses signals (Heat's wording names the action).
_REFUSING = frozenset({Action.INIT.value, Action.DELETE.value, Action.SUSPEND.value})


@dataclasses.dataclass(frozen=True, slots=True)
class _Outcome:
    reason: str | None = None
    error: ThermikError | None = None


def _handle(
    call: steps.Call, details: Mapping[str, Any] | None, store: Store, row_id: int
) -> _Outcome:
    try:
        reason = steps.signal(call, details)
    except ThermikError as error:
        return _Outcome(error=error)
    if call.plugin.signal_refreshes_attributes:
        _refresh_attributes(call, store, row_id)
    return _Outcome(reason=reason)


def _refresh_attributes(call: steps.Call, store: Store, row_id: int) -> None:
    """Store again the attributes the version stored, as the plugin resolves them now."""
    stored = store.get_resource_attributes(row_id)
    if stored is None:
        return
    keys = [key for key in stored if key != REFERENCE_ID_KEY]
    fresh = steps.attribute_values(dataclasses.replace(call, attributes=keys))
    values = {**(fresh.attributes or {}), REFERENCE_ID_KEY: fresh.reference_id}
    store.store_resource_attributes(row_id, values)


def _with_files(
    store: Store, plugin_cls: type[ResourcePlugin], row: Resource
) -> type[ResourcePlugin]:
    """A nested-stack type bound to the files of its version's template (a group resized by
    a signal gives them to its child, as its create did)."""
    if not issubclass(plugin_cls, NestedStackResource) or row.current_template_id is None:
        return plugin_cls
    return plugin_cls.bind_files(store.get_raw_template(row.current_template_id).files)


class SignalWork:
    """One signal being handled by a resource actor."""

    def __init__(self, port: Port, services: Services, request: SignalRequest, job: int):
        self.port = port
        self.services = services
        self.request = request
        self.job = job
        self.row: Resource | None = None

    def begin(self) -> None:
        """Check the resource takes the signal now, then hand it to the plugin."""
        try:
            call = self._call()
        except ThermikError as error:
            self.fail(error)
            return
        details, row_id = self.request.signal.details, self.request.version_id
        store = self.services.store
        self.port.submit(self.job, lambda: _handle(call, details, store, row_id))

    def _call(self) -> steps.Call:
        store = self.services.store
        self.row = row = store.get_resource(self.request.version_id)
        if row.action in _REFUSING:
            raise InvalidSignal(
                f"Signal resource during {row.action} is not supported.", resource=row.name
            )
        plugin_cls = _with_files(store, node_rules.stored_plugin(self.services, None, row), row)
        if not plugin_cls.takes_signals:
            raise InvalidSignal(
                f"Resource {row.name} ({row.resource_type}) does not take signals",
                resource=row.name,
            )
        stack = store.get_stack(row.stack_id)
        identity = StackIdentity(stack.id, stack.name, stack.tenant)
        props = node_rules.stored_props(store, None, row, plugin_cls) or {}
        ctx = StoreContext(
            store,
            identity,
            row.id,
            row.name,
            row.resource_type,
            row.physical_resource_id,
            rng=self.services.rng(row.id),
            software=self.services.software,
            nested=self.services.nested,
            cloud=self.services.cloud_for(stack.root_id, stack.current_traversal),
            stack_users=self.services.stack_users,
        )
        return steps.Call(plugin_cls(), ctx, props, Operation.CHECK)

    def on_step(self, message: StepFinished[Any]) -> None:
        """The plugin handled the signal (or refused it)."""
        outcome = message.result
        if message.failure is not None:
            self.fail(PluginError(message.failure.detail))
        elif isinstance(outcome, _Outcome) and outcome.error is not None:
            self.fail(outcome.error)
        else:
            reason = outcome.reason if isinstance(outcome, _Outcome) else None
            self._record(reason or "Signal received")
            if not self.request.answer.done():  # refused already if the engine is stopping
                self.request.answer.set_result(reason or "Signal received")
            self.port.finished(self.job)

    def on_timer(self, grace: bool) -> None:
        """Signals arm no timers."""

    def _record(self, reason: str) -> None:
        row = self.row
        assert row is not None
        event = rows.event_for(row, rows.state_of(row), reason, row.physical_resource_id)
        self.services.store.append_event(dataclasses.replace(event, resource_action="SIGNAL"))

    def fail(self, error: BaseException) -> None:
        """Answer the caller with ``error``; nothing was stored."""
        if not self.request.answer.done():
            self.request.answer.set_exception(error)
        self.port.finished(self.job)
