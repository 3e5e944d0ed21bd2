"""The typed boundary between the REST layer and the orchestration service.

The HTTP layer parses requests into the frozen values below, calls one method of
:class:`OrchestrationService`, and renders the views it gets back as Heat's JSON. It never sees
templates being evaluated, rows, or actors; the composition root (``thermik.service``) supplies the
implementation. Every method takes the caller's :class:`RequestContext` first and must scope every
lookup by ``ctx.tenant``: a stack of another tenant does not exist for the caller.

Errors are raised as :mod:`thermik.errors` classes (``StackNotFound``, ``DuplicateName``,
``InvalidTransition``, ``InvalidInput`` ...); the API maps them to HTTP through their
``http_status``/``heat_type``.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

#: A JSON document as the client sent it (already decoded).
Json = Any
#: A template or environment as sent: a decoded mapping, or JSON/YAML text the service parses.
Document = Mapping[str, Any] | str

T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True)
class RequestContext:
    """Who is calling: the tenant every lookup is scoped by, and the caller's credentials."""

    tenant: str
    #: The caller's user id (what trusts and cloud calls name).
    user: str | None = None
    roles: tuple[str, ...] = ()
    is_admin: bool = False
    token: str | None = None
    request_id: str = ""
    #: The caller's user name, which Heat shows as a stack's ``stack_owner`` (the id if none).
    user_name: str | None = None
    #: The trust a trust-scoped token acts through (an engine's call, e.g. for a remote
    #: ``OS::Heat::Stack``), and that trust's trustee; ``None`` for an ordinary token.
    trust_id: str | None = None
    trustee_user_id: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class StackIdentity:
    """The canonical name of a stack: its name and id (``/stacks/{name}/{id}``)."""

    name: str
    id: str

    @property
    def path(self) -> str:
        """``name/id``, the form heatclient passes to skip a lookup."""
        return f"{self.name}/{self.id}"


# ---------------------------------------------------------------------------------------------
# Requests


@dataclasses.dataclass(frozen=True, slots=True)
class StackRequest:
    """The body of a stack create, preview, adopt, update or validate (Heat's InstantiationData).

    ``name`` is None for update and validate; ``template`` is None for a PATCH that keeps the
    current template. ``parameters`` are merged over ``environment``'s ``parameters``.
    """

    name: str | None = None
    template: Document | None = None
    template_url: str | None = None
    parameters: Mapping[str, Json] = dataclasses.field(default_factory=dict)
    environment: Document | None = None
    files: Mapping[str, str] = dataclasses.field(default_factory=dict)
    environment_files: tuple[str, ...] = ()
    files_container: str | None = None
    disable_rollback: bool | None = None
    timeout_mins: int | None = None
    tags: tuple[str, ...] | None = None
    adopt_data: Mapping[str, Json] | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class StackUpdate:
    """An update: PUT replaces (``existing`` False), PATCH keeps what is not sent (True)."""

    request: StackRequest
    existing: bool = False
    clear_parameters: tuple[str, ...] = ()
    converge: bool = False


class SortDir(enum.Enum):
    """Sort direction of a list."""

    ASC = "asc"
    DESC = "desc"


@dataclasses.dataclass(frozen=True, slots=True)
class ListQuery:
    """A stack list: filters, tags, sorting and marker paging."""

    filters: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    sort_keys: tuple[str, ...] = ()
    sort_dir: SortDir | None = None
    marker: str | None = None
    limit: int | None = None
    tags: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    not_tags: tuple[str, ...] = ()
    not_tags_any: tuple[str, ...] = ()
    show_deleted: bool = False
    show_nested: bool = False
    show_hidden: bool = False
    with_count: bool = False
    global_tenant: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list; ``count`` is the total matching (only when asked for)."""

    items: tuple[T, ...]
    count: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceQuery:
    """A resource list: depth into nested stacks, detail, and filters (type, status, ...)."""

    nested_depth: int = 0
    with_detail: bool = False
    filters: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class EventQuery:
    """An event list of a stack, or of one resource when ``resource_name`` is set."""

    resource_name: str | None = None
    filters: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    sort_keys: tuple[str, ...] = ()
    sort_dir: SortDir | None = None
    marker: str | None = None
    limit: int | None = None
    nested_depth: int = 0


class StackAction(enum.Enum):
    """The actions of ``POST /stacks/{name}/{id}/actions``."""

    SUSPEND = "suspend"
    RESUME = "resume"
    CHECK = "check"
    CANCEL_UPDATE = "cancel_update"
    CANCEL_WITHOUT_ROLLBACK = "cancel_without_rollback"


@dataclasses.dataclass(frozen=True, slots=True)
class SoftwareConfigRequest:
    """The body of ``POST /software_configs``."""

    name: str | None
    group: str = "Heat::Ungrouped"
    config: Json = None
    inputs: tuple[Mapping[str, Json], ...] = ()
    outputs: tuple[Mapping[str, Json], ...] = ()
    options: Mapping[str, Json] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class DeploymentRequest:
    """The body of ``POST /software_deployments``."""

    config_id: str
    server_id: str
    input_values: Mapping[str, Json] = dataclasses.field(default_factory=dict)
    action: str = "INIT"
    status: str = "COMPLETE"
    status_reason: str = ""
    stack_user_project_id: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DeploymentUpdate:
    """The body of ``PUT /software_deployments/{id}``; None keeps the current value."""

    config_id: str | None = None
    input_values: Mapping[str, Json] | None = None
    output_values: Mapping[str, Json] | None = None
    action: str | None = None
    status: str | None = None
    status_reason: str | None = None


# ---------------------------------------------------------------------------------------------
# Views


@dataclasses.dataclass(frozen=True, slots=True)
class OutputView:
    """A stack output; ``value``/``error`` are only meaningful when ``resolved``."""

    key: str
    description: str | None = None
    value: Json = None
    error: str | None = None
    resolved: bool = True


@dataclasses.dataclass(frozen=True, slots=True)
class StackView:
    """A stack as the API shows it.

    ``parameters`` are the user-visible values (without the ``OS::`` pseudo parameters, which
    the API adds); ``hidden_parameters`` names those the API masks. ``outputs`` is None when
    they were not resolved.
    """

    identity: StackIdentity
    action: str
    status: str
    status_reason: str = ""
    description: str = ""
    template_description: str = ""
    creation_time: datetime.datetime | None = None
    updated_time: datetime.datetime | None = None
    deletion_time: datetime.datetime | None = None
    parameters: Mapping[str, Json] = dataclasses.field(default_factory=dict)
    hidden_parameters: frozenset[str] = frozenset()
    outputs: tuple[OutputView, ...] | None = None
    disable_rollback: bool = True
    timeout_mins: int | None = None
    tags: tuple[str, ...] = ()
    owner: str | None = None
    parent: str | None = None
    stack_user_project_id: str | None = None
    project: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceView:
    """A resource of a stack (``stack`` is the stack that owns it, nested or not)."""

    name: str
    stack: StackIdentity
    type: str
    action: str
    status: str
    status_reason: str = ""
    physical_resource_id: str | None = None
    creation_time: datetime.datetime | None = None
    updated_time: datetime.datetime | None = None
    required_by: tuple[str, ...] = ()
    description: str = ""
    attributes: Mapping[str, Json] | None = None
    nested_stack: StackIdentity | None = None
    parent_resource: str | None = None
    properties: Mapping[str, Json] | None = None


#: A stack preview: resources, and nested stacks' previews as nested sequences.
PreviewNode = ResourceView | Sequence["PreviewNode"]


@dataclasses.dataclass(frozen=True, slots=True)
class StackPreview:
    """What a stack would be: the stack (status fields unused) and its resources."""

    stack: StackView
    resources: tuple[PreviewNode, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceChanges:
    """What an update would do, by resource."""

    added: tuple[ResourceView, ...] = ()
    deleted: tuple[ResourceView, ...] = ()
    replaced: tuple[ResourceView, ...] = ()
    unchanged: tuple[ResourceView, ...] = ()
    updated: tuple[ResourceView, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class EventView:
    """An event of a resource or, with ``resource_type`` OS::Heat::Stack, of the stack itself.

    Stack-level events have ``resource_name`` = stack name and ``physical_resource_id`` = stack
    id; ``root_stack`` is set when the event comes from a nested stack (``nested_depth``).
    """

    id: str
    stack: StackIdentity
    resource_name: str
    resource_type: str
    action: str
    status: str
    status_reason: str = ""
    physical_resource_id: str | None = None
    event_time: datetime.datetime | None = None
    resource_properties: Mapping[str, Json] | None = None
    root_stack: StackIdentity | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class SnapshotView:
    """A stack snapshot."""

    id: str
    name: str | None
    status: str
    status_reason: str = ""
    action: str = "SNAPSHOT"
    data: Mapping[str, Json] | None = None
    creation_time: datetime.datetime | None = None
    #: Paths of keys into ``data`` whose values are secrets, shown masked.
    secrets: tuple[tuple[str, ...], ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class ParameterInfo:
    """A template parameter as validate reports it; ``constraints`` use Heat's key names."""

    type: str
    description: str = ""
    label: str | None = None
    has_default: bool = False
    default: Json = None
    has_value: bool = False
    value: Json = None
    no_echo: bool = False
    tags: tuple[str, ...] = ()
    constraints: Mapping[str, Json] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class ValidationView:
    """The result of validating a template."""

    description: str
    parameters: Mapping[str, ParameterInfo]
    parameter_groups: tuple[Mapping[str, Json], ...] = ()
    environment: Mapping[str, Json] = dataclasses.field(default_factory=dict)
    #: With ``show_nested``: Heat's ``NestedParameters`` of the template resources.
    nested_parameters: Mapping[str, Json] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceTypeView:
    """A resource type available to templates."""

    name: str
    description: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class TemplateVersionView:
    """A template version (``heat_template_version.2018-08-31``, type hot or cfn)."""

    version: str
    type: str
    aliases: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class TemplateFunctionView:
    """An intrinsic function a template version offers."""

    name: str
    description: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class SoftwareConfigView:
    """A software config (inputs/outputs already normalised by the service)."""

    id: str
    name: str | None
    group: str
    config: Json = None
    inputs: tuple[Mapping[str, Json], ...] = ()
    outputs: tuple[Mapping[str, Json], ...] = ()
    options: Mapping[str, Json] = dataclasses.field(default_factory=dict)
    creation_time: datetime.datetime | None = None
    project: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class SoftwareDeploymentView:
    """A software deployment."""

    id: str
    config_id: str
    server_id: str
    action: str
    status: str
    status_reason: str = ""
    input_values: Mapping[str, Json] = dataclasses.field(default_factory=dict)
    output_values: Mapping[str, Json] = dataclasses.field(default_factory=dict)
    creation_time: datetime.datetime | None = None
    updated_time: datetime.datetime | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ServiceView:
    """An engine process as ``GET /services`` reports it."""

    id: str
    host: str
    binary: str
    engine_id: str
    topic: str
    status: str
    report_interval: int
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None


# ---------------------------------------------------------------------------------------------
# The service


class StackService(Protocol):
    """Stacks: lifecycle, documents, outputs, actions, snapshots."""

    def create_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        """Start creating a stack; raises DuplicateName if the name is taken in the tenant."""

    def adopt_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        """Start adopting ``request.adopt_data`` (an abandon document) as a new stack."""

    def preview_stack(self, ctx: RequestContext, request: StackRequest) -> StackPreview:
        """What creating ``request`` would produce, without creating anything."""

    def list_stacks(self, ctx: RequestContext, query: ListQuery) -> Page[StackView]:
        """Stacks of the tenant (all tenants with ``global_tenant``, admins only)."""

    def identify_stack(self, ctx: RequestContext, name_or_id: str) -> StackIdentity:
        """Heat's identify: a UUID-like string finds by id, deleted stacks included; anything
        else finds a live stack by name. StackNotFound otherwise."""

    def show_stack(
        self, ctx: RequestContext, stack: StackIdentity, *, resolve_outputs: bool = True
    ) -> StackView:
        """One stack, deleted ones included (DELETE_COMPLETE)."""

    def update_stack(self, ctx: RequestContext, stack: StackIdentity, update: StackUpdate) -> None:
        """Start an update (PUT or PATCH semantics by ``update.existing``)."""

    def preview_update(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        update: StackUpdate,
        *,
        show_nested: bool = False,
    ) -> ResourceChanges:
        """What ``update`` would change, without changing anything."""

    def delete_stack(self, ctx: RequestContext, stack: StackIdentity) -> None:
        """Start deleting a stack."""

    def abandon_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        """Forget a stack without deleting its resources; returns the abandon document."""

    def export_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        """The abandon document of a stack, which stays in place."""

    def stack_template(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        """The stack's current template."""

    def stack_environment(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        """The stack's user environment."""

    def stack_files(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, str]:
        """The stack's files map."""

    def list_outputs(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[OutputView]:
        """The stack's outputs, unresolved (key and description)."""

    def show_output(self, ctx: RequestContext, stack: StackIdentity, key: str) -> OutputView:
        """One output, resolved; NotFound if the template has no such output."""

    def stack_action(self, ctx: RequestContext, stack: StackIdentity, action: StackAction) -> None:
        """Start suspend, resume, check, or cancel the running update."""

    def create_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, name: str | None
    ) -> SnapshotView:
        """Snapshot a stack."""

    def list_snapshots(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[SnapshotView]:
        """The snapshots of a stack."""

    def show_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> SnapshotView:
        """One snapshot of a stack."""

    def delete_snapshot(self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str) -> None:
        """Delete a snapshot."""

    def restore_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> None:
        """Start restoring a stack to a snapshot."""


class ResourceService(Protocol):
    """Resources and events of stacks."""

    def list_resources(
        self, ctx: RequestContext, stack: StackIdentity, query: ResourceQuery
    ) -> Sequence[ResourceView]:
        """Resources of a stack (and of nested stacks down to ``query.nested_depth``)."""

    def show_resource(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        name: str,
        *,
        with_attr: Sequence[str] = (),
    ) -> ResourceView:
        """One resource with its attributes (plus those named in ``with_attr``)."""

    def resource_metadata(
        self, ctx: RequestContext, stack: StackIdentity, name: str
    ) -> Mapping[str, Json]:
        """The resource's metadata (a server's full metadata document)."""

    def signal_resource(
        self, ctx: RequestContext, stack: StackIdentity, name: str, details: Json
    ) -> None:
        """Deliver a signal (any JSON, or None when the request had no body)."""

    def mark_resource_unhealthy(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        name: str,
        *,
        unhealthy: bool,
        reason: str,
    ) -> None:
        """Mark a resource (un)healthy so the next update replaces it."""

    def list_events(
        self, ctx: RequestContext, stack: StackIdentity, query: EventQuery
    ) -> Sequence[EventView]:
        """Events of a stack (stack-level included), or of one resource: paged by marker
        (strictly after it) and limit; NotFound for a resource name without events."""

    def show_event(
        self, ctx: RequestContext, stack: StackIdentity, resource_name: str, event_id: str
    ) -> EventView:
        """One event."""


class CatalogService(Protocol):
    """What templates can use, validation, and the engine's own description."""

    def validate_template(
        self,
        ctx: RequestContext,
        request: StackRequest,
        *,
        show_nested: bool = False,
        ignore_errors: Sequence[str] = (),
    ) -> ValidationView:
        """Validate a template with its environment and parameters; InvalidInput if invalid."""

    def list_resource_types(
        self,
        ctx: RequestContext,
        *,
        name: str | None = None,
        version: str | None = None,
        support_status: str | None = None,
    ) -> Sequence[ResourceTypeView]:
        """Resource types, optionally filtered (``name`` is a regular expression in Heat)."""

    def show_resource_type(
        self, ctx: RequestContext, type_name: str, *, with_description: bool = False
    ) -> Mapping[str, Json]:
        """The schema of a type: ``{resource_type, properties, attributes, support_status}``,
        and its ``description`` when asked (as Heat's ``with_description``)."""

    def resource_type_template(
        self, ctx: RequestContext, type_name: str, template_type: str
    ) -> Mapping[str, Json]:
        """A template exposing a type's properties as parameters (``hot`` or ``cfn``)."""

    def list_template_versions(self, ctx: RequestContext) -> Sequence[TemplateVersionView]:
        """The template versions understood."""

    def list_template_functions(
        self, ctx: RequestContext, version: str, *, with_condition_func: bool = False
    ) -> Sequence[TemplateFunctionView]:
        """The functions of a version; NotFound for an unknown version."""

    def engine_revision(self, ctx: RequestContext) -> str:
        """The engine's build revision, for ``/build_info``."""

    def list_services(self, ctx: RequestContext) -> Sequence[ServiceView]:
        """The engine processes (admins only)."""


class SoftwareService(Protocol):
    """Software configs and deployments."""

    def create_software_config(
        self, ctx: RequestContext, request: SoftwareConfigRequest
    ) -> SoftwareConfigView:
        """Store a software config."""

    def list_software_configs(
        self, ctx: RequestContext, *, limit: int | None = None, marker: str | None = None
    ) -> Sequence[SoftwareConfigView]:
        """Software configs of the tenant."""

    def show_software_config(self, ctx: RequestContext, config_id: str) -> SoftwareConfigView:
        """One software config."""

    def delete_software_config(self, ctx: RequestContext, config_id: str) -> None:
        """Delete a software config."""

    def create_software_deployment(
        self, ctx: RequestContext, request: DeploymentRequest
    ) -> SoftwareDeploymentView:
        """Store a deployment and publish the server's metadata."""

    def list_software_deployments(
        self, ctx: RequestContext, *, server_id: str | None = None
    ) -> Sequence[SoftwareDeploymentView]:
        """Deployments of the tenant, optionally of one server."""

    def show_software_deployment(
        self, ctx: RequestContext, deployment_id: str
    ) -> SoftwareDeploymentView:
        """One deployment."""

    def update_software_deployment(
        self, ctx: RequestContext, deployment_id: str, update: DeploymentUpdate
    ) -> SoftwareDeploymentView:
        """Change a deployment (an agent reporting outputs, an operator changing status)."""

    def delete_software_deployment(self, ctx: RequestContext, deployment_id: str) -> None:
        """Delete a deployment and publish the server's metadata."""

    def server_deployments_metadata(
        self, ctx: RequestContext, server_id: str
    ) -> Sequence[Mapping[str, Json]]:
        """The derived configs of a server's deployments, sorted by name."""


class OrchestrationService(
    StackService, ResourceService, CatalogService, SoftwareService, Protocol
):
    """Everything the REST API asks of the engine."""
