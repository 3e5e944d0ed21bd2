"""``OS::Heat::Stack`` with a remote ``context``: a stack on a region's orchestration API.

A ``context`` naming a ``region_name`` (or a ``credential_secret_id``) makes the child stack a
remote one, as Heat's ``RemoteStack``: it is created, updated, checked, suspended, resumed and
deleted through the ``orchestration`` endpoint (Thermik's or Heat's) the Keystone catalog lists
for that region, acting as the stack's user (its trust), and its outputs and failures come back
from there. Every call goes through the ``heat`` client of the stack's cloud access, on the
executor; completion is polled with backoff.

No duplicate after a crash: the remote stack carries the resource version's creation tag, and
a create run again (or the update or delete after it) finds it by that tag before making one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from thermik.clients import orchestration
from thermik.clients.calls import CloudClient
from thermik.clients.orchestration import RemoteState, Target
from thermik.errors import CloudError, CloudGone, InvalidInput, PluginError, PropertyError
from thermik.resources.cloud_access import CREATE_STARTED_KEY, cloud_access, create_once
from thermik.resources.cloud_resource import backoff
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.nested_services import NestedTemplate
from thermik.resources.plugin import CheckResult, NeedsReplacement, Progress, Props

T = TypeVar("T")

#: The custom-constraint name under which a request's cloud checks a remote stack at validation
#: time (the API's validators; absent when the engine has no cloud).
REMOTE_STACK_CHECK = "heat.remote_stack"
#: The keys of ``context`` that make a stack remote.
REMOTE_KEYS = ("region_name", "credential_secret_id")
#: The key of a :class:`Progress` naming the remote action waited for.
_ACTION = "action"


class RemoteStackInvalid(InvalidInput):
    """A remote stack that cannot be validated: the message is the whole error, as Heat's
    ``Cannot establish connection to Heat endpoint at region "X" due to "..."``."""

    def __str__(self) -> str:
        return self.message


def is_remote(props: Props) -> bool:
    """Whether ``props`` (of ``OS::Heat::Stack``) name a remote stack."""
    context = props.get("context") or {}
    return any(context.get(key) for key in REMOTE_KEYS)


def target_of(props: Props) -> Target:
    """Where the stack of ``props`` lives (the engine's region when none is named)."""
    context = props.get("context") or {}
    return Target(
        region=context.get("region_name") or None,
        ca_cert=context.get("ca_cert") or None,
        insecure=bool(context.get("insecure")),
    )


def location(props: Props) -> str:
    """Heat's name of where a remote stack lives, for error messages."""
    context = props.get("context") or {}
    if context.get("credential_secret_id"):
        return "remote cloud"
    return f'region "{context.get("region_name")}"'


def stack_body(nested: NestedTemplate) -> dict[str, Any]:
    """The request body that makes (or updates to) the stack of ``nested``."""
    body: dict[str, Any] = {
        "template": dict(nested.template),
        "parameters": dict(nested.parameters),
        "files": dict(nested.files),
        "disable_rollback": True,
    }
    if nested.timeout_mins is not None:
        body["timeout_mins"] = nested.timeout_mins
    return body


def validation_message(props: Props, connect: str | None, validate: str | None) -> str | None:
    """Heat's words for a remote stack that cannot be reached (``connect``: why) or whose
    template the remote API refused (``validate``: its message); ``None`` when neither."""
    if connect is not None:
        return (
            f'Cannot establish connection to Heat endpoint at {location(props)} due to "{connect}"'
        )
    if validate is not None:
        return (
            f"Failed validating stack template using Heat endpoint at {location(props)} due "
            f'to "ERROR: {validate}"'
        )
    return None


def check_remote(client: CloudClient, props: Props, body: Mapping[str, Any]) -> str | None:
    """Validate a remote stack as Heat does before anything is stored: reach the region's
    endpoint, then have it validate the template. The error message, or ``None``."""
    where = target_of(props)
    refuse_secret(props)
    try:
        client.call(lambda conn: orchestration.base_url(conn, where))
    except CloudError as error:
        return validation_message(props, error.message, None)
    try:
        client.call(lambda conn: orchestration.validate(conn, where, body))
    except CloudError as error:
        return validation_message(props, None, error.message)
    return None


def refuse_secret(props: Props) -> None:
    """Refuse ``credential_secret_id``: this engine reads no other cloud's credentials from
    Barbican.

    Raises:
        PropertyError: the context names a secret.
    """
    context = props.get("context") or {}
    if context.get("credential_secret_id"):
        raise PropertyError(
            "credential_secret_id (credentials of another cloud kept in Barbican) is not "
            "supported by this engine; use region_name to reach another region of this cloud",
            path=("properties", "context", "credential_secret_id"),
        )


@dataclasses.dataclass
class RemoteStack:
    """The actions of one remote ``OS::Heat::Stack`` call (a plugin instance's helper)."""

    #: The state the last call of this action fetched (answers the attributes asked next).
    seen: RemoteState | None = None

    def create(self, ctx: ResourceContext, props: Props, nested: NestedTemplate) -> Progress:
        """Create the remote stack once (found by its creation tag if a crash interrupted it)."""
        client, where = self._client(ctx, props)
        refuse_secret(props)
        body = {**stack_body(nested), "stack_name": physical_resource_name(ctx)}

        def find(tag: str) -> str | None:
            return client.call(lambda conn: orchestration.find_tagged(conn, where, tag))

        def make(tag: str) -> str:
            tagged = {**body, "tags": tag}
            return client.call(lambda conn: orchestration.create(conn, where, tagged))

        ctx.set_physical_id(create_once(ctx, find, make))
        return Progress({_ACTION: "CREATE"})

    def update(self, ctx: ResourceContext, props: Props, nested: NestedTemplate) -> Progress:
        """Update the remote stack to ``nested`` (none yet: create it)."""
        client, where = self._client(ctx, props)
        refuse_secret(props)
        stack_id = self._stack_id(ctx, client, where)
        state = None if stack_id is None else self._show(client, where, stack_id)
        if state is None or state.action == "DELETE":
            return self.create(ctx, props, nested)
        if ctx.physical_id != state.id:
            ctx.set_physical_id(state.id)
        body = stack_body(nested)
        client.call(lambda conn: orchestration.update(conn, where, state, body))
        return Progress({_ACTION: "UPDATE"})

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Delete the remote stack (none, or gone already: nothing to do)."""
        client, where = self._client(ctx, props)
        stack_id = self._stack_id(ctx, client, where)
        state = None if stack_id is None else self._show(client, where, stack_id)
        if state is None:
            return None
        try:
            client.call(lambda conn: orchestration.delete(conn, where, state))
        except CloudGone:
            return None
        return Progress({_ACTION: "DELETE", "id": state.id})

    def act(self, ctx: ResourceContext, props: Props, action: str) -> Progress:
        """Start ``action`` (SUSPEND, RESUME, CHECK) on the remote stack."""
        if ctx.physical_id is None:
            raise PluginError(
                f"Cannot {action.lower()} {ctx.resource_name}, resource not found",
                resource=ctx.resource_name,
            )
        client, where = self._client(ctx, props)
        state = self._show(client, where, ctx.physical_id)
        if state is None:
            raise PluginError(
                f"the remote stack {ctx.physical_id} is gone", resource=ctx.resource_name
            )
        client.call(lambda conn: orchestration.act(conn, where, state, action.lower()))
        return Progress({_ACTION: action})

    def settled(
        self, ctx: ResourceContext, props: Props, progress: Progress | None, action: str
    ) -> CheckResult:
        """Whether the remote stack's ``action`` completed; a poll hint while it runs.

        Raises:
            PluginError: the remote action failed (Heat's ``ResourceInError`` words).
        """
        state = progress.state if progress is not None else {}
        action = str(state.get(_ACTION, action))
        stack_id = state.get("id") or ctx.physical_id
        if stack_id is None:
            return True
        client, where = self._client(ctx, props)
        found = self._show(client, where, str(stack_id))
        if found is None:
            if action == "DELETE":
                return True
            raise PluginError(f"the remote stack {stack_id} is gone", resource=ctx.resource_name)
        self.seen = found
        if found.action != action or found.status == "PROGRESS":
            return backoff(progress)
        if found.status == "COMPLETE":
            return True
        kind = "ResourceInError" if found.status == "FAILED" else "ResourceUnknownStatus"
        words = "Went to status" if found.status == "FAILED" else "Unknown status"
        raise PluginError(
            f'{words} {found.action}_{found.status} due to "{found.reason}"',
            resource=ctx.resource_name,
            kind=kind,
        )

    def attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``stack_name`` and ``outputs`` of the remote stack."""
        if ctx.physical_id is None:
            return None
        found = self.seen
        if found is None or found.id != ctx.physical_id:
            client, where = self._client(ctx, props)
            found = self._show(client, where, ctx.physical_id)
            if found is None:
                return None
            self.seen = found
        if name == "stack_name":
            return found.name
        if name == "outputs":
            return dict(found.outputs)
        return None

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    def _client(ctx: ResourceContext, props: Props) -> tuple[CloudClient, Target]:
        return cloud_access(ctx).client("heat"), target_of(props)

    @staticmethod
    def _show(client: CloudClient, where: Target, stack_id: str) -> RemoteState | None:
        try:
            return client.call(lambda conn: orchestration.show(conn, where, stack_id))
        except CloudGone:
            return None

    @staticmethod
    def _stack_id(ctx: ResourceContext, client: CloudClient, where: Target) -> str | None:
        """The physical id; for a version whose create was started but not recorded, the id
        of the stack that create made (found by its creation tag), if any."""
        if ctx.physical_id is not None:
            return ctx.physical_id
        tag = ctx.data.get(CREATE_STARTED_KEY)
        if tag is None:
            return None
        return client.call(lambda conn: orchestration.find_tagged(conn, where, tag))


def needs_replacement(new_props: Props, old_props: Props) -> NeedsReplacement | None:
    """A stack moving to another region, or between local and remote, is replaced (Heat:
    ``region_name`` cannot change in place)."""
    if is_remote(new_props) != is_remote(old_props):
        return NeedsReplacement("a stack cannot move between this engine and a remote one")
    new, old = target_of(new_props), target_of(old_props)
    if is_remote(new_props) and new.region != old.region:
        return NeedsReplacement("update of context.region_name needs replacement")
    return None


def checked_by(custom: Mapping[str, Callable[[Any], str | None]]) -> Callable[[Any], str | None]:
    """The request's check of remote stacks, or one that accepts all (no cloud)."""
    return custom.get(REMOTE_STACK_CHECK) or (lambda _value: None)
