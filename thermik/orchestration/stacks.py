"""Stacks: create, adopt, preview, list, identify, show and delete.

A create checks everything first (name, template, environments, parameters, every resource,
limits), then stores the raw template and asks the runtime to store the stack row with its
create already started (``CREATE_IN_PROGRESS``, its traversal and lease, in one transaction:
:mod:`thermik.actors.creation`). A rejected request stores nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from thermik.actors.runtime import ConvergeRequest
from thermik.api.boundary import (
    ListQuery,
    Page,
    RequestContext,
    SortDir,
    StackIdentity,
    StackPreview,
    StackRequest,
    StackView,
)
from thermik.engine.states import Action
from thermik.errors import (
    DuplicateName,
    InvalidInput,
    LeaseConflict,
    NotFound,
    PropertyError,
    PropertyValueError,
    StackNotFound,
    ThermikError,
)
from thermik.orchestration.base import identity_of
from thermik.orchestration.outputs import OutputOperations
from thermik.orchestration.prepare import Prepared, prepare_request
from thermik.orchestration.preview import Previewer
from thermik.orchestration.stored_templates import dropped_if_refused, refused
from thermik.orchestration.views import stack_parameters, stack_view
from thermik.persistence.values import STACK_FILTERS, NewStack, StackQuery
from thermik.template import Identity

#: Heat's rule for stack names.
_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_.-]{0,254}")
#: The API's sort keys (Heat's and the store's spellings) -> the store's.
_SORT_KEYS = {
    "created_at": "created_at",
    "creation_time": "created_at",
    "updated_at": "updated_at",
    "updated_time": "updated_at",
    "name": "name",
    "stack_name": "name",
    "status": "status",
    "stack_status": "status",
    "action": "action",
}
_FILTER_KEYS = {"stack_name": "name", "stack_status": "status", **{k: k for k in STACK_FILTERS}}


def check_name(name: str | None) -> str:
    """A valid new stack name, or Heat's error."""
    if not name:
        raise InvalidInput("The stack name is required", path=("stack_name",))
    if not _NAME.fullmatch(name):
        raise InvalidInput(
            f'Invalid stack name {name} must contain only alphanumeric or "_-." characters, '
            "must start with alpha and must be 255 characters or less.",
            path=("stack_name",),
        )
    return name


def store_query(ctx: RequestContext, query: ListQuery) -> StackQuery:
    """A stack listing of the API as the store's query."""
    filters = {_FILTER_KEYS[k]: v for k, v in query.filters.items() if k in _FILTER_KEYS}
    sort_key = query.sort_keys[0] if query.sort_keys else "created_at"
    if sort_key not in _SORT_KEYS:
        raise InvalidInput(
            f"Sort key {sort_key} is not one of: " + ", ".join(sorted(_SORT_KEYS)),
            path=("sort_keys",),
        )
    return StackQuery(
        tenant=None if query.global_tenant else ctx.tenant,
        filters=filters,
        tags=query.tags,
        tags_any=query.tags_any,
        not_tags=query.not_tags,
        not_tags_any=query.not_tags_any,
        show_deleted=query.show_deleted,
        show_nested=query.show_nested,
        sort_key=_SORT_KEYS[sort_key],
        sort_dir="asc" if query.sort_dir is SortDir.ASC else "desc",
        marker=query.marker,
        limit=query.limit,
    )


class StackOperations(OutputOperations):
    """The stack lifecycle entry points other than update."""

    def _free_name(self, ctx: RequestContext, name: str | None) -> str:
        name = check_name(name)
        try:
            self.store.get_stack_by_name(ctx.tenant, name)
        except StackNotFound:
            return name
        raise DuplicateName(f"The Stack ({name}) already exists.", stack=name)

    def _start(
        self,
        ctx: RequestContext,
        request: StackRequest,
        stack_id: str,
        prepared: Prepared,
        operation: Action,
        adopt_data: Mapping[str, Any] | None = None,
    ) -> StackIdentity:
        """Store the raw template, then the stack with its create started (one transaction:
        a crash leaves no stack, or one that recovery resumes)."""
        name = prepared.definition.identity.stack_name
        template_id = self.store.store_raw_template(
            prepared.template, prepared.environment, prepared.files, prepared.hidden_parameters
        )
        new = _new_stack(ctx, request, name, stack_id, template_id)
        start = ConvergeRequest(
            stack_id=stack_id, operation=operation, template_id=template_id, adopt_data=adopt_data
        )
        with self._delegated(ctx, template_id) as creds_id:
            new = dataclasses.replace(new, user_creds_id=creds_id)
            try:
                with dropped_if_refused(self.store, template_id):
                    stack = self.runtime.create(new, start)
            except DuplicateName:
                raise DuplicateName(f"The Stack ({name}) already exists.", stack=name) from None
        return identity_of(stack)

    @contextlib.contextmanager
    def _delegated(self, ctx: RequestContext, template_id: int) -> Iterator[int | None]:
        """Store what lets the engine act for the caller later (a trust); undo it when the
        stack was refused (as :func:`dropped_if_refused` drops its template)."""
        clouds = self.clouds
        delegation = None
        if clouds is not None:
            with dropped_if_refused(self.store, template_id):
                delegation = clouds.delegate(ctx)
        if clouds is None or delegation is None:
            yield None
            return
        creds_id = self.store.store_user_creds(delegation)
        try:
            yield creds_id
        except ThermikError as error:
            if not refused(error):
                raise  # the engine may have the stack: it acts with these credentials
            self.store.delete_user_creds(creds_id)
            with contextlib.suppress(ThermikError):
                clouds.release(delegation)
            raise

    def create_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        name = self._free_name(ctx, request.name)
        stack_id = str(uuid.uuid4())
        identity = Identity(stack_name=name, stack_id=stack_id, project_id=ctx.tenant)
        prepared = self._checked(ctx, request, identity)
        return self._start(ctx, request, stack_id, prepared, Action.CREATE)

    def _checked(
        self,
        ctx: RequestContext,
        request: StackRequest,
        identity: Identity,
        base: Mapping[str, Any] | None = None,
    ) -> Prepared:
        """The request parsed and checked as the caller's: custom constraints and the
        types' services against the caller's cloud."""
        return prepare_request(
            request,
            identity,
            self.registry,
            self.limits,
            base,
            custom_constraints=self.constraints(ctx),
            services=self.services(ctx),
        )

    def adopt_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        data = request.adopt_data
        if not isinstance(data, Mapping):
            raise InvalidInput(
                "adopt_stack_data must be a JSON object", path=("adopt_stack_data",)
            )
        resources = data.get("resources") or {}
        if not isinstance(resources, Mapping):
            raise InvalidInput(
                "adopt_stack_data.resources must map resource names to resources",
                path=("adopt_stack_data", "resources"),
            )
        template = request.template if request.template is not None else data.get("template")
        files = {**_adopted_files(data), **request.files}
        request = dataclasses.replace(request, template=template, files=files)
        name = self._free_name(ctx, request.name)
        stack_id = str(uuid.uuid4())
        identity = Identity(stack_name=name, stack_id=stack_id, project_id=ctx.tenant)
        base = _adopted_environment(data)
        prepared = self._checked(ctx, request, identity, base)
        return self._start(ctx, request, stack_id, prepared, Action.ADOPT, dict(resources))

    def preview_stack(self, ctx: RequestContext, request: StackRequest) -> StackPreview:
        name = self._free_name(ctx, request.name)
        identity = Identity(stack_name=name, stack_id="None", project_id=ctx.tenant)
        try:
            prepared = self._checked(ctx, request, identity)
        except PropertyValueError as exc:
            raise PropertyError(exc.preview_text(), resource=exc.resource) from None
        definition = prepared.definition
        stack = StackIdentity(name, "None")
        parameters, hidden = stack_parameters(definition)
        view = StackView(
            identity=stack,
            action="INIT",
            status="COMPLETE",
            description=str(definition.description),
            template_description=str(definition.description),
            parameters=parameters,
            hidden_parameters=hidden,
            disable_rollback=True
            if request.disable_rollback is None
            else request.disable_rollback,
            timeout_mins=request.timeout_mins,
            tags=request.tags or (),
            owner=ctx.user_name or ctx.user,
        )
        previewer = Previewer(self.registry, self.limits)
        return StackPreview(view, tuple(previewer.resources(definition)))

    def list_stacks(self, ctx: RequestContext, query: ListQuery) -> Page[StackView]:
        stored = store_query(ctx, query)
        stacks = self.store.list_stacks(stored)
        views = tuple(
            stack_view(stack, description=self.descriptions.of(stack), project=query.global_tenant)
            for stack in stacks
        )
        count = self.store.count_stacks(stored) if query.with_count else None
        return Page(items=views, count=count)

    def identify_stack(self, ctx: RequestContext, name_or_id: str) -> StackIdentity:
        return identity_of(self.identify(ctx, name_or_id))

    def show_stack(
        self, ctx: RequestContext, stack: StackIdentity, *, resolve_outputs: bool = True
    ) -> StackView:
        row = self.find_stack(ctx, stack)
        try:
            definition = self.shown_definition(row)
        except NotFound:
            return stack_view(row)
        outputs = self.resolve_outputs(row, definition) if resolve_outputs else None
        return stack_view(row, definition=definition, outputs=outputs)

    def delete_stack(self, ctx: RequestContext, stack: StackIdentity) -> None:
        row = self.find_stack(ctx, stack, live=True)
        try:
            self.runtime.converge(ConvergeRequest(stack_id=row.id, operation=Action.DELETE))
        except LeaseConflict:
            elsewhere = self.driven_elsewhere(row)
            if elsewhere is None:
                raise
            raise elsewhere from None


def _adopted_environment(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The abandoned stack's environment: what the request gives goes over it (its parameters
    as in Heat, where ``-P`` values override those of the adopt data)."""
    environment = data.get("environment") or {}
    if not isinstance(environment, Mapping):
        raise InvalidInput(
            "adopt_stack_data.environment must be an object",
            path=("adopt_stack_data", "environment"),
        )
    return environment


def _adopted_files(data: Mapping[str, Any]) -> dict[str, str]:
    """The abandoned stack's files (``get_file`` contents, environments, nested templates)."""
    files = data.get("files") or {}
    if not isinstance(files, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise InvalidInput(
            "adopt_stack_data.files must map file names to their contents",
            path=("adopt_stack_data", "files"),
        )
    return dict(files)


def _new_stack(
    ctx: RequestContext, request: StackRequest, name: str, stack_id: str, template_id: int
) -> NewStack:
    """The stack row of a create or adopt (the runtime stores it with its traversal)."""
    rollback = request.disable_rollback
    return NewStack(
        name=name,
        tenant=ctx.tenant,
        raw_template_id=template_id,
        username=ctx.user_name or ctx.user,
        id=stack_id,
        timeout_mins=request.timeout_mins,
        disable_rollback=True if rollback is None else rollback,
        tags=request.tags or (),
    )
