"""Wait conditions: ``OS::Heat::WaitCondition`` and its handles.

A handle receives signals (``{"status": "SUCCESS"|"FAILURE", "reason", "data", "id"}``) and
keeps each one in its resource data; the wait condition reads its handle's signals (through
``ctx.peer_data``), completes once ``count`` successes arrived, fails on the first failure, and
fails after ``timeout`` seconds. The bookkeeping is pure (:func:`normalise_signal`,
:func:`judge_signals`). What a signaller needs (the handle's ``endpoint``, ``token``,
``curl_cli`` and ``signal`` attributes) is made on create per ``signal_transport``
(:mod:`thermik.resources.handle_credentials`); signals reach a handle through the engine
(``EngineRuntime.signal``), from the REST API or the builtin delivery's handle URL.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.errors import InvalidSignal, PluginError
from thermik.resources import handle_credentials
from thermik.resources.constraints import AllowedValues, Range
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
)
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)
from thermik.resources.signal_bodies import signals_of
from thermik.resources.swift.signal_objects import read_signals
from thermik.resources.zaqar.signal_queues import bodies, refresh_reads, stored_reads

SUCCESS = "SUCCESS"
FAILURE = "FAILURE"
_SIGNAL_KEYS = frozenset({"data", "reason", "status", "id"})
#: Resource data keys of a handle's signals: this prefix and the signal id.
SIGNAL_KEY_PREFIX = "signal:"
#: How often a wait condition looks at its handle, at most.
_POLL_SECONDS = 1.0
#: How often a wait condition reads its handle's Zaqar queue, at most (a request each time).
_QUEUE_POLL_SECONDS = 2.0
SIGNAL_TRANSPORTS = (
    "CFN_SIGNAL",
    "TEMP_URL_SIGNAL",
    "HEAT_SIGNAL",
    "NO_SIGNAL",
    "ZAQAR_SIGNAL",
    "TOKEN_SIGNAL",
)


def normalise_signal(data: Any, received: int) -> tuple[str, dict[str, Any]]:
    """Complete a signal sent to a handle and check its shape.

    Missing keys default as Heat defaults them: success, ``Signal <n> received``, no data, and
    the signal's sequence number as id.

    Args:
        data: the signal body (``None`` for an empty signal).
        received: how many signals the handle holds already.

    Returns:
        The signal id and the entry to store under it (status, reason, data).

    Raises:
        InvalidSignal: the body is not a map, has unknown keys, or a bad status.
    """
    if data is not None and not isinstance(data, Mapping):
        raise InvalidSignal("Metadata format invalid")
    number = received + 1
    entry = {"reason": f"Signal {number} received", "data": None, "id": number, "status": SUCCESS}
    entry.update(data or {})
    if set(entry) != _SIGNAL_KEYS or entry["status"] not in (SUCCESS, FAILURE):
        raise InvalidSignal("Metadata format invalid")
    signal_id = str(entry.pop("id"))
    return signal_id, entry


def signal_reason(entry: Mapping[str, Any]) -> str:
    """The event reason recorded for a handled signal."""
    return f"status:{entry['status']} reason:{entry['reason']}"


def stored_signals(data: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The signals a handle holds in its resource data, by signal id."""
    return {
        key[len(SIGNAL_KEY_PREFIX) :]: json.loads(value)
        for key, value in data.items()
        if key.startswith(SIGNAL_KEY_PREFIX)
    }


def judge_signals(
    signals: Mapping[str, Mapping[str, Any]],
    count: int,
    timed_out: bool,
    kind: str = "WaitCondition",
) -> bool:
    """Whether a wait condition is satisfied by the signals its handle holds.

    Raises:
        PluginError: a failure was signalled (the failure reasons), or the wait timed out
            (``<n> of <count> received`` with the success reasons); named as Heat's
            ``<kind>Failure`` and ``<kind>Timeout`` (``WaitConditionFailure`` ...) in the
            status reason.
    """
    failures = [s["reason"] for s in signals.values() if s["status"] != SUCCESS]
    if failures:
        raise PluginError(";".join(failures), kind=f"{kind}Failure")
    if len(signals) >= count:
        return True
    if timed_out:
        reasons = [s["reason"] for s in signals.values()]
        message = f"{len(reasons)} of {count} received"
        text = f"{message} - {';'.join(reasons)}" if reasons else message
        raise PluginError(text, kind=f"{kind}Timeout")
    return False


class WaitCondition(ResourcePlugin):
    """``OS::Heat::WaitCondition``: waits for ``count`` success signals on a handle."""

    support_status = SupportStatus(version="2014.2")
    properties_schema: ClassVar[PropertiesSchema] = {
        "handle": PropertySchema(
            Type.STRING, "Reference to the handle that receives the signals.", required=True
        ),
        "timeout": PropertySchema(
            Type.NUMBER,
            "Seconds to wait for the signals.",
            required=True,
            constraints=(Range(1, 43200),),
        ),
        "count": PropertySchema(
            Type.INTEGER,
            "How many success signals complete the wait.",
            default=1,
            constraints=(Range(min=1),),
            update_allowed=True,
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "data": AttributeSchema(
            "JSON map of signal id to the data sent with it.",
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
        ),
    }

    @staticmethod
    def _handle_data(ctx: ResourceContext, props: Props) -> Mapping[str, str]:
        data = ctx.peer_data(props["handle"])
        if data is None:
            raise PluginError(
                f"handle {props['handle']} of {ctx.resource_name} is not a resource of this stack",
                resource=ctx.resource_name,
            )
        return data

    def _signals(
        self, ctx: ResourceContext, props: Props, *, read: bool = True
    ) -> dict[str, dict[str, Any]]:
        """The handle's signals; ``read``: the handle's Zaqar queue is read again (else only
        what this wait condition kept of it counts)."""
        data = self._handle_data(ctx, props)
        signals = stored_signals(data)
        swift_object = data.get(handle_credentials.SWIFT_OBJECT)
        if swift_object is not None:  # a TEMP_URL_SIGNAL handle: signals PUT to Swift too
            signals.update(read_signals(ctx, swift_object))
        queue = data.get(handle_credentials.ZAQAR_QUEUE)
        if queue is not None:  # ZAQAR_SIGNAL: signals posted to the handle's queue too
            user = handle_credentials.stored_user(data)
            entries = (
                refresh_reads(ctx, user, queue) if read and user is not None else stored_reads(ctx)
            )
            signals.update(signals_of(bodies(entries, ctx.resource_name), ctx.resource_name))
        return signals

    def _start(self, ctx: ResourceContext) -> Progress:
        return Progress({"started": ctx.clock.now()})

    def _wait(self, ctx: ResourceContext, props: Props, progress: Progress | None) -> CheckResult:
        started = ctx.clock.now() if progress is None else progress.state["started"]
        remaining = started + props["timeout"] - ctx.clock.now()
        if judge_signals(self._signals(ctx, props), props["count"], timed_out=remaining <= 0):
            return True
        queued = self._handle_data(ctx, props).get(handle_credentials.ZAQAR_QUEUE) is not None
        return PollAfter(min(_QUEUE_POLL_SECONDS if queued else _POLL_SECONDS, remaining))

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start waiting for the handle's signals."""
        ctx.set_physical_id(physical_resource_name(ctx))
        return self._start(ctx)

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done once ``count`` successes arrived; fails on a failure or after ``timeout``."""
        return self._wait(ctx, props, progress)

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Wait again, for the new ``count`` (signals already received count)."""
        return self._start(ctx)

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """As for create."""
        return self._wait(ctx, props, progress)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``data``: the data of every signal, by signal id, as JSON text."""
        if name != "data":
            return None
        signals = self._signals(ctx, props, read=False)
        return json.dumps({sid: entry["data"] for sid, entry in sorted(signals.items())})


def _handle_attribute(description: str) -> AttributeSchema:
    # Whoever reads one can signal the handle: a credential.
    return AttributeSchema(
        description, type=AttributeType.STRING, cache_mode=CacheMode.NONE, secret=True
    )


class WaitConditionHandle(ResourcePlugin):
    """``OS::Heat::WaitConditionHandle``: receives signals for a wait condition."""

    support_status = SupportStatus(version="2014.2")
    takes_signals = True
    properties_schema: ClassVar[PropertiesSchema] = {
        "signal_transport": PropertySchema(
            Type.STRING,
            "How the signaller reaches the handle (TOKEN_SIGNAL posts to the engine API with a "
            "token; NO_SIGNAL completes without any signal).",
            default="TOKEN_SIGNAL",
            constraints=(AllowedValues(SIGNAL_TRANSPORTS),),
            support_status=SupportStatus(version="6.0.0"),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "token": _handle_attribute("Token to signal with (TOKEN_SIGNAL only)."),
        "endpoint": _handle_attribute("URL to signal (TOKEN_SIGNAL only)."),
        "curl_cli": _handle_attribute("A curl command prefix that signals (TOKEN_SIGNAL only)."),
        "signal": _handle_attribute("JSON map of what a signaller needs for the transport."),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Name the handle and make what its signaller needs (a NO_SIGNAL handle signals
        itself)."""
        ctx.set_physical_id(physical_resource_name(ctx))
        transport = props.get("signal_transport")
        if transport == handle_credentials.NO_SIGNAL:
            self.handle_signal(ctx, props, None)
        elif isinstance(transport, str):
            handle_credentials.provision(ctx, transport)
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Delete the handle's stack user, if it has one."""
        handle_credentials.release(ctx)
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``token``, ``endpoint``, ``curl_cli`` and ``signal`` as Heat resolves them."""
        transport = props.get("signal_transport")
        if ctx.physical_id is None or not isinstance(transport, str):
            return None
        return handle_credentials.attribute(ctx, transport, name)

    def handle_signal(
        self, ctx: ResourceContext, props: Props, data: Mapping[str, Any] | None
    ) -> str | None:
        """Keep the signal (under its id; a repeated id replaces the earlier signal)."""
        received = len(stored_signals(ctx.data.as_dict()))
        signal_id, entry = normalise_signal(data, received)
        ctx.data.set(SIGNAL_KEY_PREFIX + signal_id, json.dumps(entry))
        return signal_reason(entry)


class UpdateWaitConditionHandle(WaitConditionHandle):
    """``OS::Heat::UpdateWaitConditionHandle``: a CFN-style handle replaced on every update,
    so every stack update waits for fresh signals.
    """

    support_status = SupportStatus(version="2014.1")
    takes_signals = True
    properties_schema: ClassVar[PropertiesSchema] = {}
    attributes_schema: ClassVar[AttributesSchema] = {}

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        """Always: a new handle per update."""
        return NeedsReplacement("a new handle is made on every update")
