"""What every part of the orchestration service shares: its dependencies and stack lookups.

Every lookup is scoped by the caller's tenant: a stack of another tenant does not exist for
the caller, and the error says exactly what Heat says for a stack that does not exist.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Collection, Mapping
from typing import Any, Protocol

from thermik.actors.runtime import ConvergeRequest
from thermik.api.boundary import RequestContext, StackIdentity
from thermik.conf.settings import LimitSettings
from thermik.engine.states import State
from thermik.errors import LeaseConflict, StackNotFound
from thermik.orchestration.clouds import StackClouds
from thermik.orchestration.definitions import StoredDefinitions
from thermik.orchestration.descriptions import TemplateDescriptions
from thermik.orchestration.service_check import ServiceCheck, service_check
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, RawTemplate, Stack
from thermik.resources import CustomValidator, Registry
from thermik.resources.net_constraints import with_pure
from thermik.template import Environment, Identity, StackDefinition, Template, build_stack
from thermik.template.budget import Budget


class Runtime(Protocol):
    """What the service asks of the actor runtime (``thermik.actors.runtime.EngineRuntime``)."""

    @property
    def engine_id(self) -> str:
        """This engine's id (stack leases name the engine driving a stack)."""
        ...

    def create(self, new: NewStack, request: ConvergeRequest) -> Stack:
        """Store a new stack with its create (or adopt) started, in one transaction."""
        ...

    def converge(self, request: ConvergeRequest) -> str:
        """Start a traversal (a ``ConvergeRequest``); the new traversal id."""
        ...

    def cancel(self, stack_id: str, *, rollback: bool) -> None:
        """Cancel the running create or update."""
        ...

    def signal(self, stack_id: str, resource_name: str, data: Mapping[str, Any] | None) -> None:
        """Deliver a signal to a resource."""
        ...

    def wait(self, stack_id: str, timeout: float) -> State:
        """Block until the stack's current traversal ends."""
        ...

    def stop(self) -> None:
        """Stop every actor."""
        ...


class ServerDeployments(Protocol):
    """What the service asks of the software deployment machinery
    (``thermik.deployments.DeploymentService``)."""

    def deployments_changed(self, server_id: str, tenant: str) -> None:
        """Deployments of ``tenant`` for the server changed through the API: publish its
        metadata again."""
        ...


def not_found(name: str) -> StackNotFound:
    """Heat's error for a stack the caller cannot see."""
    return StackNotFound(f"The Stack ({name}) could not be found.", stack=name)


def is_uuid(text: str) -> bool:
    """Whether ``text`` looks like a stack id (Heat's ``uuidutils.is_uuid_like``)."""
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def identity_of(stack: Stack) -> StackIdentity:
    """The API identity of a stored stack."""
    return StackIdentity(stack.name, stack.id)


def definition_identity(stack: Stack) -> Identity:
    """The template layer's identity of a stored stack (its pseudo parameters)."""
    return Identity(stack_name=stack.name, stack_id=stack.id, project_id=stack.tenant)


class Base:
    """The dependencies of the service and the lookups every operation starts with."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        runtime: Runtime,
        limits: LimitSettings,
        *,
        servers: ServerDeployments | None = None,
        clouds: StackClouds | None = None,
        routed: bool = False,
    ) -> None:
        self.store = store
        self.registry = registry
        self.runtime = runtime
        self.limits = limits
        #: Publishes servers' metadata when the API changes their deployments (None: nothing
        #: delivers metadata in this process).
        self.servers = servers
        #: The cloud layer (None: no cloud configured, custom constraints go unchecked).
        self.clouds = clouds
        #: Whether the runtime carries each request to the engine that drives the stack
        #: (service mode's RPC): then no stack is out of reach.
        self.routed = routed
        self.descriptions = TemplateDescriptions(store)
        self.definitions = StoredDefinitions(lambda stack: self.stored_definition(stack)[1])

    def constraints(self, ctx: RequestContext) -> Mapping[str, CustomValidator]:
        """The custom constraint validators of one request: the cloud-free ones, and the
        cloud's when there is a cloud."""
        return with_pure(None if self.clouds is None else self.clouds.constraints(ctx))

    def services(
        self, ctx: RequestContext, ignore_errors: Collection[str] = ()
    ) -> ServiceCheck | None:
        """The check of one request's resource types against the caller's catalog; none
        without a cloud."""
        return service_check(
            None if self.clouds is None else self.clouds.offers(ctx), ignore_errors
        )

    def find_stack(
        self, ctx: RequestContext, identity: StackIdentity, *, live: bool = False
    ) -> Stack:
        """The stack ``identity`` names in the caller's tenant (deleted ones unless ``live``).

        A stack user (the Keystone user of a server's agent or a wait condition handle) calls
        with a token of its stack's stack user project, which finds the stack as Heat finds
        it; the policy limits such a caller to signals and metadata.
        """
        try:
            stack = self.store.get_stack(identity.id, tenant=ctx.tenant, show_deleted=not live)
        except StackNotFound:
            stack = self._of_stack_user_project(ctx, identity, live)
        if stack.name != identity.name:
            raise not_found(identity.name)
        return stack

    def _of_stack_user_project(
        self, ctx: RequestContext, identity: StackIdentity, live: bool
    ) -> Stack:
        try:
            stack = self.store.get_stack(identity.id, show_deleted=not live)
        except StackNotFound:
            raise not_found(identity.name) from None
        if stack.stack_user_project_id is None or stack.stack_user_project_id != ctx.tenant:
            raise not_found(identity.name)
        return stack

    def identify(self, ctx: RequestContext, name_or_id: str) -> Stack:
        """Heat's identify: an id finds deleted stacks too, a name only live ones."""
        try:
            if is_uuid(name_or_id):
                return self.store.get_stack(name_or_id, tenant=ctx.tenant, show_deleted=True)
            return self.store.get_stack_by_name(ctx.tenant, name_or_id)
        except StackNotFound:
            raise not_found(name_or_id) from None

    def driven_elsewhere(self, stack: Stack) -> LeaseConflict | None:
        """Why this engine cannot cancel or supersede the stack's running operation: another
        live engine (another ``thermik`` command, or a service on the same database) drives it,
        and engines do not message each other. ``None`` when nothing stands in the way (always
        in service mode, where the runtime routes every request to the driving engine)."""
        if self.routed:
            return None
        lease = self.store.get_lease(stack.id)
        if lease is None or lease.engine_id == self.runtime.engine_id:
            return None
        expires = lease.expires_at
        if expires.tzinfo is None:
            expires = expires.replace(tzinfo=datetime.UTC)
        if expires <= datetime.datetime.now(datetime.UTC):
            return None
        return LeaseConflict(
            f"Stack {stack.name} is {stack.action}_{stack.status} in another engine (engine "
            f"{lease.engine_id}, e.g. another thermik command still running): this one cannot "
            f"cancel or change that operation. Wait for it to end, or stop that engine (the "
            f"next one resumes the stack; a dead engine's hold expires at "
            f"{expires.strftime('%H:%M:%S')} UTC).",
            stack=stack.name,
        )

    def shown_definition(self, stack: Stack) -> StackDefinition:
        """The definition of the stack's current template, for views that only read it
        (built once per template, see :mod:`~thermik.orchestration.definitions`)."""
        return self.definitions.of(stack)

    def stored_definition(self, stack: Stack) -> tuple[RawTemplate, StackDefinition]:
        """The stack's stored template and its definition (validated when it was stored), its
        dependencies those the engine follows (what the resource types infer included)."""
        raw = self.store.get_raw_template(stack.raw_template_id)
        definition = definition_of(raw, stack, self.limits.function_budget())
        return raw, definition.with_implied(self.registry.implied)


def definition_of(raw: RawTemplate, stack: Stack, budget: Budget | None = None) -> StackDefinition:
    """The definition of a stored template for ``stack``, its functions evaluated under
    ``budget``.

    Built leniently: the template was fully validated when it was stored, and showing a stack
    must not fail because, say, a parameter constraint became stricter since.
    """
    template = Template.from_document(raw.template, raw.files)
    environment = Environment.from_dict(raw.environment)
    return build_stack(
        template, environment, None, definition_identity(stack), strict=False, budget=budget
    )
