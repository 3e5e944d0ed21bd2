"""The runtime facade: the one entry point of the actor layer (``RUNTIME_CONTRACT.md``).

:class:`EngineRuntime` owns the engine's shared machinery (stack and resource actor tables, the
plugin executor, the actor threads, the timer service), registers the engine and heartbeats,
renews the leases of the stacks it drives, and recovers stacks whose engine died. Its methods
are called from outside any actor (API, CLI, tests): ``create``, ``converge``, ``cancel`` and
``signal`` wait for the actor's answer, ``wait`` for a traversal to end.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import pykka

from thermik.actors import recovery
from thermik.actors.affinity import engine_cpus
from thermik.actors.collector import pace_collector
from thermik.actors.creation import CreateStack
from thermik.actors.event_sinks import EventSinks
from thermik.actors.resource import ResourceActor, Wake
from thermik.actors.services import Services
from thermik.actors.stack import StackActor
from thermik.actors.stored import current_versions
from thermik.actors.table import ActorTable
from thermik.actors.threads import JobThreads
from thermik.actors.timers import TimerHandle, TimerService
from thermik.conf.settings import EngineSettings
from thermik.engine.messages import (
    CancelStack,
    ClearHook,
    ConvergeRequest,
    SignalReceived,
    SignalRequest,
)
from thermik.engine.states import State
from thermik.errors import (
    EngineStopping,
    InvalidBreakPointHook,
    LeaseConflict,
    NotFound,
    ResourceNotFound,
    ThermikError,
)
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack, UserCreds
from thermik.resources.cloud_access import CloudAccessProvider
from thermik.resources.nested_services import NestedStackServices
from thermik.resources.registry import Registry
from thermik.resources.software_services import SoftwareDeploymentServices
from thermik.resources.stack_users import StackUsers
from thermik.template.budget import Budget

__all__ = ["ConvergeRequest", "EngineRuntime"]

#: See :meth:`EngineRuntime.attach_peers`.
ParentWaker = Callable[[str, str, str], None]
LOG = logging.getLogger(__name__)

#: Upper bound of live actor threads (threads are made on demand and reused).
MAX_ACTOR_THREADS = 4096
#: How long a caller waits for an actor to answer a request.
ANSWER_TIMEOUT = 300.0
#: How long ``stop`` waits for each actor to stop.
STOP_WAIT = 5.0
#: How often ``wait`` looks at a stack driven by another engine.
POLL_OTHER_ENGINE = 0.5


class EngineRuntime:
    """One engine: its actors, executor, timers, registration and leases."""

    def __init__(self, services: Services) -> None:
        self._services = services
        self._settled = threading.Condition()
        self._heartbeat: TimerHandle | None = None
        self._stopped = False
        self._stop_lock = threading.Lock()
        #: Tells the engine driving a parent stack elsewhere that its child ended (service
        #: mode: an RPC cast); None when every parent runs here.
        self._wake_peer: ParentWaker | None = None

    @classmethod
    def start(  # noqa: PLR0913 - keyword-only, one per service the engine is built from
        cls,
        *,
        store: Store,
        registry: Registry,
        settings: EngineSettings,
        engine_id: str | None = None,
        delivery: object | None = None,
        seed: int | None = None,
        software: SoftwareDeploymentServices | None = None,
        nested: NestedStackServices | None = None,
        cloud: CloudAccessProvider | None = None,
        release_credentials: Callable[[UserCreds], None] | None = None,
        stack_users: StackUsers | None = None,
        resume: bool = True,
        budget: Budget | None = None,
        stack_observer: Callable[[Stack, State, str], None] | None = None,
    ) -> EngineRuntime:
        """Start an engine on ``store``; it resumes stacks left behind by dead engines.

        Args:
            store: where every fact lives.
            registry: the resource plugins.
            settings: engine tuning (concurrency, executor size, timeouts, leases).
            engine_id: this engine's id (a fresh one by default).
            delivery: the software deployment delivery backend (not used yet).
            seed: seeds every resource's random source (reproducible tests).
            software: the software deployment services plugins get as ``ctx.software``
                (:class:`thermik.deployments.DeploymentService`); without them software
                config, deployment and server resources fail clearly.
            nested: the nested-stack services plugins get as ``ctx.nested``
                (:class:`thermik.orchestration.nested.NestedStacks`); without them template
                resources and the other nested-stack types fail clearly.
            cloud: the cloud access plugins get as ``ctx.cloud``
                (:class:`thermik.clients.access.CloudAccesses`); without it cloud resource
                types fail clearly.
            release_credentials: undoes a deleted stack's delegation (its trust).
            stack_users: the stack domain users plugins get as ``ctx.stack_users``; a
                deleted stack tree's project is deleted with it.
            resume: resume interrupted stacks now; ``False`` leaves it to the caller (who
                first attaches services that need the runtime, then calls
                :meth:`resume_incomplete`).
            budget: what evaluating a template's functions may build (the composition root
                derives it from the limits; :class:`~thermik.template.budget.Budget`'s
                defaults if ``None``).
            stack_observer: told each state a stack enters (it must return at once):
                service mode's notifications.
        """
        pace_collector()
        cpus = engine_cpus(settings.cpu_affinity)
        services = Services(
            store=store,
            registry=registry,
            settings=settings,
            engine_id=engine_id or str(uuid.uuid4()),
            timers=TimerService(cpus),
            executor=JobThreads(max(1, settings.executor_workers), "thermik-plugin", cpus),
            threads=JobThreads(MAX_ACTOR_THREADS, "thermik-actor", cpus),
            seed=seed,
            software=software,
            nested=nested,
            cloud=cloud,
            release_credentials=release_credentials,
            stack_users=stack_users,
            budget=Budget() if budget is None else budget,
            stack_observer=stack_observer,
        )
        # A traversal runs up to max_concurrent_resources resource actors beside its stack
        # actor: their threads are started now rather than by the first big stack.
        services.threads.start_idle(settings.max_concurrent_resources + 1)
        services.stacks = ActorTable(lambda stack_id: StackActor.start(services, stack_id))
        services.resources = ActorTable(lambda version: ResourceActor.start(services, version))
        runtime = cls(services)
        services.settled = runtime._notify_settled
        store.watch_events(EventSinks(store, cloud, services.executor.submit).observe)
        store.register_engine(
            services.engine_id,
            socket.gethostname(),
            "thermik-engine",
            "engine",
            settings.heartbeat_interval,
        )
        runtime._schedule_heartbeat()
        if resume:
            runtime.resume_incomplete()
        return runtime

    @property
    def engine_id(self) -> str:
        """This engine's id."""
        return self._services.engine_id

    # -- requests -----------------------------------------------------------------------------

    def converge(self, request: ConvergeRequest) -> str:
        """Start a traversal; its id once it is durably started (never waits for the end).

        Raises:
            EngineStopping: the runtime is stopping.
            TraversalConflict: ``expected_traversal`` is not the stack's current traversal.
            InvalidTransition: the operation is not legal in the stack's state.
            StackNotFound: no such stack.
        """
        try:
            answer: str = self._services.stacks.ask(request.stack_id, request).get(
                timeout=ANSWER_TIMEOUT
            )
        except pykka.ActorDeadError:
            raise EngineStopping(f"stack {request.stack_id}: the engine is stopping") from None
        return answer

    def create(self, new: NewStack, request: ConvergeRequest) -> Stack:
        """Store the new stack ``new`` with the create (or adopt) ``request`` started, in one
        transaction (:mod:`thermik.actors.creation`), then converge it; the stored stack.

        Raises:
            EngineStopping: the runtime is stopping.
            DuplicateName: the tenant has a live stack of that name (nothing is stored).
        """
        new = dataclasses.replace(new, id=request.stack_id)
        try:
            stack: Stack = self._services.stacks.ask(
                request.stack_id, CreateStack(new, request)
            ).get(timeout=ANSWER_TIMEOUT)
        except pykka.ActorDeadError:
            raise EngineStopping(f"stack {request.stack_id}: the engine is stopping") from None
        return stack

    def cancel(self, stack_id: str, *, rollback: bool) -> None:
        """Cancel the running traversal (``cancel_update`` with rollback, else without).

        Raises:
            InvalidTransition: nothing to cancel, or not cancellable that way.
            StackNotFound: no such stack.
        """
        self._services.store.get_stack(stack_id)
        try:
            self._services.stacks.ask(stack_id, CancelStack(stack_id, rollback)).get(
                timeout=ANSWER_TIMEOUT
            )
        except pykka.ActorDeadError:
            raise EngineStopping(f"stack {stack_id}: the engine is stopping") from None

    def signal(self, stack_id: str, resource_name: str, data: Mapping[str, Any] | None) -> None:
        """Deliver a signal to a resource and wait until its plugin handled it.

        A signal ``{"unset_hook": hook}`` clears the breakpoint hook the resource waits at
        instead (Heat's ``stack hook clear``); it goes to the stack's actor.

        Raises:
            InvalidSignal: the resource takes no signals (now), or ``data`` is malformed.
            InvalidBreakPointHook: the resource does not wait at that hook.
            ResourceNotFound: the stack has no such resource.
            StackNotFound: no such stack.
        """
        store = self._services.store
        stack = store.get_stack(stack_id)
        row = current_versions(store.list_resources(stack_id), stack.raw_template_id).get(
            resource_name
        )
        if row is None:
            raise ResourceNotFound(
                f"The Resource ({resource_name}) could not be found in stack {stack.name}.",
                resource=resource_name,
                stack=stack.name,
            )
        if data is not None and "unset_hook" in data:
            self._clear_hook(stack_id, resource_name, str(data["unset_hook"]))
            return
        answer: concurrent.futures.Future[str] = concurrent.futures.Future()
        details: Any = {} if data is None else data
        request = SignalRequest(SignalReceived(stack_id, resource_name, details), row.id, answer)
        self._services.resources.tell(row.id, request)
        answer.result(ANSWER_TIMEOUT)

    def _clear_hook(self, stack_id: str, resource_name: str, hook: str) -> None:
        """Clear the hook the resource waits at (the stack's traversal decides; a resource
        of a stack with no traversal here waits at none)."""
        if stack_id not in self._services.stacks:
            raise InvalidBreakPointHook(
                f'The "{hook}" hook is not defined on {resource_name}', resource=resource_name
            )
        try:
            self._services.stacks.ask(stack_id, ClearHook(stack_id, resource_name, hook)).get(
                timeout=ANSWER_TIMEOUT
            )
        except pykka.ActorDeadError:
            raise EngineStopping(f"stack {stack_id}: the engine is stopping") from None

    def wake(self, stack_id: str, resource_name: str) -> None:
        """Let a resource whose action waits for something external (a deployment's signal)
        look again now instead of at its next poll; nothing happens if it waits for nothing."""
        try:
            rows = self._services.store.list_resources(stack_id)
        except NotFound:
            return
        for row in rows:
            if row.name == resource_name:
                self._services.resources.tell_existing(row.id, Wake())

    def wait(self, stack_id: str, timeout: float) -> State:
        """Block until the stack's current traversal is over; the state it ended in.

        After ``timeout`` seconds, the state as it is then (still IN_PROGRESS).
        """
        deadline = time.monotonic() + timeout
        with self._settled:
            while True:
                # While this engine's actor drives the stack, its end is notified (under this
                # condition's lock, so not missed): the database is read once, after it.
                here = stack_id in self._services.stacks
                remaining = deadline - time.monotonic()
                if here and remaining > 0:
                    self._settled.wait(remaining)
                    continue
                state = self._stored_state(stack_id)
                if (state.settled and stack_id not in self._services.stacks) or remaining <= 0:
                    return state
                self._settled.wait(min(remaining, POLL_OTHER_ENGINE))

    def _stored_state(self, stack_id: str) -> State:
        stack = self._services.store.get_stack(stack_id, show_deleted=True)
        return State.parse(f"{stack.action}_{stack.status}")

    def _notify_settled(self, stack_id: str) -> None:
        with self._settled:
            self._settled.notify_all()
        if self._services.nested is not None and not self._stopped:
            # Finding the parent reads the database: not on the retiring stack actor's thread.
            with contextlib.suppress(RuntimeError):  # the executor is shut down: stopping
                self._services.executor.submit(lambda: self._wake_owner(stack_id))

    def _wake_owner(self, stack_id: str) -> None:
        """A child stack's traversal ended: its parent resource looks at it now (the
        completion message nested-stack parents wait on instead of polling).

        The parent is the owner's resource of that name and any resource whose physical id
        is the child (a parent that adopted it from an abandoned one).
        """
        store = self._services.store
        try:
            stack = store.get_stack(stack_id, show_deleted=True)
            if stack.owner_id is None:
                return
            rows = store.find_resources_by_physical_id(stack_id)
            if stack.parent_resource_name is not None:
                rows += store.find_resources_by_name(stack.owner_id, stack.parent_resource_name)
        except NotFound:
            return
        except ThermikError as error:
            # The parent's fallback poll still finds the child settled.
            LOG.warning("stack %s settled; its parent was not woken: %s", stack_id, error)
            return
        for version_id in {row.id for row in rows}:
            self._services.resources.tell_existing(version_id, Wake())
        wake_peer = self._wake_peer
        if wake_peer is not None:
            for parent_id, name in {(row.stack_id, row.name) for row in rows}:
                wake_peer(parent_id, name, stack_id)

    def attach_peers(self, wake_peer: ParentWaker) -> None:
        """Service mode: a child's end also wakes its parent resource on the engine that
        drives the parent (``wake_peer(parent stack id, resource name, child id)``), when
        that is another engine; without it, such a parent finds out at its fallback poll."""
        self._wake_peer = wake_peer

    # -- recovery, heartbeats, leases ---------------------------------------------------------

    def resume_incomplete(self) -> list[str]:
        """Take over stacks whose engine is gone and resume their traversals; their ids."""
        return recovery.resume_incomplete(self._services)

    def _schedule_heartbeat(self) -> None:
        interval = max(0.1, float(self._services.settings.heartbeat_interval))

        def due() -> None:
            self._services.executor.submit(self._beat)

        self._heartbeat = self._services.timers.call_later(interval, due)

    def _beat(self) -> None:
        if self._stopped:
            return
        services = self._services
        try:
            services.store.heartbeat(services.engine_id)
            for stack_id in services.stacks.live():
                self._renew(stack_id)
            recovery.resume_incomplete(services)
        except NotFound:
            LOG.error("engine %s was deregistered while running", services.engine_id)
        except ThermikError as error:
            LOG.warning("heartbeat: %s", error)
        finally:
            if not self._stopped:
                self._schedule_heartbeat()

    def _renew(self, stack_id: str) -> None:
        services = self._services
        seconds = float(services.settings.lease_seconds)
        try:
            services.store.renew_lease(stack_id, services.engine_id, seconds)
        except LeaseConflict:
            # A stack actor that has not taken its lease yet (it is still planning), or one
            # that lost it: its own writes are fenced by the traversal id either way.
            LOG.debug("stack %s: no lease to renew", stack_id)

    def stop(self) -> None:
        """Stop every actor, the timers and the executors; deregister. Idempotent."""
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
        services = self._services
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        actors = services.stacks.close() + services.resources.close()
        # Wait for the stop replies, not ``actor_stopped``: pykka sets that before ``on_stop``
        # runs, and a resource actor's ``on_stop`` leaves its action resumable.
        stopping = [actor.stop(block=False) for actor in actors]
        for future in stopping:
            with contextlib.suppress(pykka.Timeout):
                future.get(timeout=STOP_WAIT)
        services.timers.stop()
        services.store.watch_events(None)
        services.executor.shutdown()
        services.threads.shutdown()
        try:
            services.store.deregister_engine(services.engine_id)
        except ThermikError as error:
            LOG.warning("engine %s not deregistered: %s", services.engine_id, error)
