"""The engine's side of the RPC API: the endpoint that hands each request to the engine's
runtime, and the oslo.messaging server that listens for it.

An engine listens on the shared topic (new stacks, stacks no live engine drives) and on its
own server queue (``topic.<engine id>``: the stacks whose lease it holds). Every method
answers ``{"result": ...}`` or ``{"error": ...}`` (:mod:`thermik.rpc.codec`): a refusal is an
answer, not a remote exception, so the API raises the engine's own error class.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import oslo_messaging

from thermik.engine.messages import ConvergeRequest
from thermik.errors import ThermikError
from thermik.persistence.values import NewStack, Stack
from thermik.rpc import api, codec

LOG = logging.getLogger(__name__)


class EngineRuntime(Protocol):
    """What the endpoint asks of the engine (``thermik.actors.runtime.EngineRuntime``)."""

    def create(self, new: NewStack, request: ConvergeRequest) -> Stack:
        """Store a new stack with its create started."""
        ...

    def converge(self, request: ConvergeRequest) -> str:
        """Start a traversal; its id."""
        ...

    def cancel(self, stack_id: str, *, rollback: bool) -> None:
        """Cancel the running create or update."""
        ...

    def signal(self, stack_id: str, resource_name: str, data: Mapping[str, Any] | None) -> None:
        """Deliver a signal to a resource."""
        ...


class ServerDeployments(Protocol):
    """What the endpoint asks of the software deployment machinery."""

    def deployments_changed(self, server_id: str, tenant: str) -> None:
        """Publish the server's metadata again."""
        ...


def _answer(call: Callable[[], Any]) -> dict[str, Any]:
    try:
        return {api.RESULT: call()}
    except ThermikError as exc:
        return {api.ERROR: codec.error(exc)}


class DeliverySignals(Protocol):
    """What the endpoint asks of the builtin delivery backend (``BuiltinBackend``)."""

    def signalled(self, path: str) -> None:
        """A signal was stored at ``path`` by another process: tell the listeners."""
        ...


class EngineEndpoint:
    """The RPC methods of one engine (version :data:`thermik.rpc.api.VERSION`)."""

    target = oslo_messaging.Target(namespace=api.NAMESPACE, version=api.VERSION)

    def __init__(
        self,
        runtime: EngineRuntime,
        servers: ServerDeployments | None = None,
        delivery: DeliverySignals | None = None,
        wake: Callable[[str, str], None] | None = None,
    ) -> None:
        self.runtime = runtime
        self.servers = servers
        self.delivery = delivery
        self._wake = wake
        #: Parents woken by a cast from the engine their child ran on (a counter for
        #: operators and tests: children's ends that came by message, not by polling).
        self.peer_wakes = 0

    def create(self, ctxt: dict[str, Any], new: dict[str, Any], request: dict[str, Any]) -> Any:
        """Store and start a new stack here (this engine takes its lease); the stack id."""
        stack = codec.new_stack_from(new)
        start = codec.converge_request_from(request)
        return _answer(lambda: self.runtime.create(stack, start).id)

    def converge(self, ctxt: dict[str, Any], request: dict[str, Any]) -> Any:
        """Start a traversal of a stack; its id."""
        converge = codec.converge_request_from(request)
        return _answer(lambda: self.runtime.converge(converge))

    def cancel(self, ctxt: dict[str, Any], stack_id: str, rollback: bool) -> Any:
        """Cancel a stack's running create or update."""
        return _answer(lambda: self.runtime.cancel(stack_id, rollback=rollback))

    def signal(self, ctxt: dict[str, Any], stack_id: str, resource_name: str, data: Any) -> Any:
        """Deliver a signal to a resource (a hook clear is a signal too)."""
        return _answer(lambda: self.runtime.signal(stack_id, resource_name, data))

    def deployments_changed(self, ctxt: dict[str, Any], server_id: str, tenant: str) -> Any:
        """The API changed a server's deployments: publish its metadata again."""
        servers = self.servers
        if servers is None:
            return {api.RESULT: None}
        return _answer(lambda: servers.deployments_changed(server_id, tenant))

    def signalled(self, ctxt: dict[str, Any], path: str) -> None:
        """(cast, 1.1) An API worker stored a signal at ``path``: the deployment waiting for
        it, if this engine drives it, reads it now."""
        if self.delivery is not None:
            self.delivery.signalled(path)

    def wake(self, ctxt: dict[str, Any], stack_id: str, resource_name: str, child: str) -> None:
        """(cast, 1.1) The child stack ``child`` of resource ``resource_name`` of ``stack_id``
        ended on another engine: the parent resource, if it runs here, looks at it now."""
        if self._wake is None:
            return
        self.peer_wakes += 1
        LOG.info(
            "Child stack %s ended on another engine: waking %s of stack %s (peer wake %d)",
            child,
            resource_name,
            stack_id,
            self.peer_wakes,
        )
        self._wake(stack_id, resource_name)


class RpcServer:
    """The engine's oslo.messaging RPC server (threads; started and stopped with the engine);
    it owns the transport it is given."""

    def __init__(
        self,
        transport: oslo_messaging.Transport,
        topic: str,
        engine_id: str,
        endpoint: EngineEndpoint,
    ) -> None:
        target = oslo_messaging.Target(topic=topic, server=engine_id)
        self._server = oslo_messaging.get_rpc_server(
            transport, target, [endpoint], executor="threading"
        )
        self._transport = transport
        self.topic = topic
        self.engine_id = engine_id

    def start(self) -> None:
        """Listen on the shared topic and this engine's own queue."""
        self._server.start()
        LOG.info("Listening for RPC on topic %s (server %s)", self.topic, self.engine_id)

    def stop(self) -> None:
        """Stop taking requests, let the ones in progress end, release the transport."""
        try:
            self._server.stop()
            self._server.wait()
        finally:
            self._transport.cleanup()
