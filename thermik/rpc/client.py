"""The API's side of the RPC API: calls to the engines, routed by the stack's lease.

:class:`EngineClient` makes one call to one engine (or to any, on the shared topic) and turns
silence into :class:`~thermik.errors.EngineUnavailable`. :class:`RoutedRuntime` is the
runtime the orchestration service of an engine-less ``thermik-api`` gets: a new stack goes to
any engine, which takes its lease; every other request goes to the engine whose live lease
drives the stack, or to any engine when none does.
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Mapping
from typing import Any, Protocol

import oslo_messaging

from thermik.engine.messages import ConvergeRequest
from thermik.engine.states import State
from thermik.errors import EngineUnavailable, LeaseConflict, ThermikError
from thermik.persistence.software_values import StackLease
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack
from thermik.rpc import api, codec

LOG = logging.getLogger(__name__)
#: How often ``wait`` reads a stack's state (the API process has no actor to notify it).
WAIT_POLL = 0.5


class Engines(Protocol):
    """Calls to the engines (:class:`EngineClient` over the message bus; tests hand in
    their own)."""

    def call(self, engine_id: str | None, method: str, **kwargs: Any) -> Any:
        """Call ``method`` on the engine ``engine_id`` (any engine when None); its result."""
        ...

    def close(self) -> None:
        """Release what the calls hold."""
        ...


class EngineClient:
    """Calls to the engines on one transport and topic; each waits ``timeout`` seconds."""

    def __init__(self, transport: oslo_messaging.Transport, topic: str, timeout: float) -> None:
        target = oslo_messaging.Target(
            topic=topic, namespace=api.NAMESPACE, version=api.CALLS_VERSION
        )
        self._client = oslo_messaging.get_rpc_client(transport, target, timeout=timeout)
        self.transport = transport
        self.timeout = timeout

    def call(self, engine_id: str | None, method: str, **kwargs: Any) -> Any:
        """Call ``method`` on the engine ``engine_id`` (any engine when None); its result.

        Raises:
            ThermikError: the engine's refusal, of the engine's own error class.
            EngineUnavailable: no engine answered within the timeout.
        """
        client = self._client if engine_id is None else self._client.prepare(server=engine_id)
        try:
            answer = client.call({}, method, **kwargs)
        except (oslo_messaging.MessagingTimeout, oslo_messaging.MessageUndeliverable):
            raise EngineUnavailable(self._silence(engine_id)) from None
        except oslo_messaging.RemoteError as exc:
            # A bug in the engine, not a refusal (those come back as answers): it is logged
            # there; the caller gets a 500 without the engine's traceback.
            raise ThermikError(
                f"The engine failed to carry out {method} ({exc.exc_type})"
            ) from None
        except oslo_messaging.MessagingException as exc:
            raise EngineUnavailable(
                f"The engines cannot be reached over the message bus: {type(exc).__name__}"
            ) from None
        if api.ERROR in answer:
            raise codec.error_from(answer[api.ERROR])
        return answer.get(api.RESULT)

    def cast(
        self, engine_id: str | None, method: str, *, fanout: bool = False, **kwargs: Any
    ) -> None:
        """Send ``method`` without waiting: to the engine ``engine_id``, to any engine
        (None), or to every engine (``fanout``). A message the bus cannot take is logged and
        dropped: what a cast tells, the engines also find out by their slower paths."""
        if fanout:
            client = self._client.prepare(fanout=True, version=api.CASTS_VERSION)
        elif engine_id is None:
            client = self._client.prepare(version=api.CASTS_VERSION)
        else:
            client = self._client.prepare(server=engine_id, version=api.CASTS_VERSION)
        try:
            client.cast({}, method, **kwargs)
        except oslo_messaging.MessagingException as exc:
            LOG.warning("%s not sent to the engines: %s", method, type(exc).__name__)

    def _silence(self, engine_id: str | None) -> str:
        if engine_id is None:
            return (
                f"No engine answered within {self.timeout:g} s: is a thermik-engine running "
                "on this message bus? Try again when one is."
            )
        return (
            f"The engine driving this stack ({engine_id}) did not answer within "
            f"{self.timeout:g} s. If it died, another engine resumes the stack when its lease "
            "expires; try again then."
        )

    def close(self) -> None:
        """Release the transport's connections."""
        self.transport.cleanup()


def live_holder(lease: StackLease | None, now: datetime.datetime) -> str | None:
    """The engine whose lease on a stack is still valid at ``now``, if any."""
    if lease is None:
        return None
    expires = lease.expires_at
    if expires.tzinfo is None:
        expires = expires.replace(tzinfo=datetime.UTC)
    return lease.engine_id if expires > now else None


class RoutedRuntime:
    """The runtime of the orchestration service in an engine-less ``thermik-api``: each
    request travels to the engine that carries it out (see the module docstring)."""

    #: No engine runs here: no lease ever names this process.
    engine_id = ""

    def __init__(self, engines: Engines, store: Store) -> None:
        self.engines = engines
        self.store = store

    def _route(self, stack_id: str) -> str | None:
        return live_holder(self.store.get_lease(stack_id), datetime.datetime.now(datetime.UTC))

    def _routed(self, stack_id: str, method: str, /, **kwargs: Any) -> Any:
        """Call the stack's engine; once more if its lease moved meanwhile (the engine asked
        no longer drives the stack, or one took it over since it was read)."""
        engine_id = self._route(stack_id)
        try:
            return self.engines.call(engine_id, method, **kwargs)
        except LeaseConflict:
            moved = self._route(stack_id)
            if moved == engine_id:
                raise
            return self.engines.call(moved, method, **kwargs)

    def create(self, new: NewStack, request: ConvergeRequest) -> Stack:
        """Store and start the stack on any engine (which takes its lease); the stored stack."""
        stack_id = self.engines.call(
            None,
            api.CREATE,
            new=codec.new_stack(new),
            request=codec.converge_request(request),
        )
        return self.store.get_stack(stack_id, show_deleted=True)

    def converge(self, request: ConvergeRequest) -> str:
        """Start a traversal on the stack's engine; its id."""
        traversal: str = self._routed(
            request.stack_id, api.CONVERGE, request=codec.converge_request(request)
        )
        return traversal

    def cancel(self, stack_id: str, *, rollback: bool) -> None:
        """Cancel the running create or update on the stack's engine."""
        self._routed(stack_id, api.CANCEL, stack_id=stack_id, rollback=rollback)

    def signal(self, stack_id: str, resource_name: str, data: Mapping[str, Any] | None) -> None:
        """Deliver a signal through the stack's engine."""
        self._routed(
            stack_id,
            api.SIGNAL,
            stack_id=stack_id,
            resource_name=resource_name,
            data=None if data is None else dict(data),
        )

    def wait(self, stack_id: str, timeout: float) -> State:
        """Poll the database until the stack's traversal is over (or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        while True:
            stack = self.store.get_stack(stack_id, show_deleted=True)
            state = State.parse(f"{stack.action}_{stack.status}")
            if state.settled or time.monotonic() >= deadline:
                return state
            time.sleep(WAIT_POLL)

    def stop(self) -> None:
        """Release the message bus or the daemon's link (nothing runs here to stop)."""
        self.engines.close()


class RoutedDeployments:
    """The API's changes to a server's deployments, published by any engine."""

    def __init__(self, engines: Engines) -> None:
        self.engines = engines

    def deployments_changed(self, server_id: str, tenant: str) -> None:
        """Ask an engine to publish the server's metadata again."""
        self.engines.call(None, api.DEPLOYMENTS_CHANGED, server_id=server_id, tenant=tenant)
