"""How a deployment plugin runs one action on one server, shared by single and group types.

Heat's rules, as functions over the resource's context and validated properties:

- an action runs only when it is in ``actions`` (for a ``component`` config: in the ``actions``
  of one of its configs); otherwise it does nothing and the deployment is left as it is;
- every action derives a new config (a new id, so the agent runs it once) and waits for the
  server's signal unless the transport is ``NO_SIGNAL``;
- a signalled failure (non-zero ``deploy_status_code`` or an ``error_output``) fails the action
  with "Deployment to server failed: <reason>".
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from thermik.errors import NotFound, PluginError
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import CheckResult, PollAfter, Progress, Props
from thermik.resources.software_services import (
    COMPLETE,
    FAILED,
    IN_PROGRESS,
    ActionRequest,
    DeploymentHandle,
    DeploymentState,
    SoftwareDeploymentServices,
)

#: Polls of a waiting action start this often and slow down to ``MAX_POLL`` (seconds); a
#: signal pushed to the engine wakes the resource earlier.
MIN_POLL, MAX_POLL = 0.5, 5.0
_STARTED = "started"


def new_id(ctx: ResourceContext) -> str:
    """A random UUID from the context's random source (reproducible in tests)."""
    return str(uuid.UUID(int=ctx.random.getrandbits(128), version=4))


def triggers(
    services: SoftwareDeploymentServices, ctx: ResourceContext, props: Props, action: str
) -> bool:
    """Whether ``action`` runs the deployment's config."""
    actions = props.get("actions") or ()
    config_id = props.get("config")
    if config_id:
        try:
            config = services.get_config(str(config_id), ctx.stack.tenant)
        except NotFound:
            config = None
        if config is not None and config.group == "component":
            configs = config.config.get("configs") if isinstance(config.config, Mapping) else None
            return any(action in (c.get("actions") or ()) for c in configs or ())
    return action in actions


def request_for(
    ctx: ResourceContext,
    props: Props,
    action: str,
    *,
    deployment_id: str,
    server_id: str,
    resource_name: str,
    structured: bool,
) -> ActionRequest:
    """The action request for one deployment of the resource."""
    return ActionRequest(
        deployment_id=deployment_id,
        server_id=server_id,
        tenant=ctx.stack.tenant,
        stack_id=ctx.stack.id,
        stack_name=ctx.stack.name,
        resource_name=resource_name,
        owner=ctx.resource_name,
        action=action,
        config_id=props.get("config") or None,
        input_values=dict(props.get("input_values") or {}),
        signal_transport=str(props.get("signal_transport") or "CFN_SIGNAL"),
        physical_name=physical_resource_name(ctx),
        name=props.get("name") or None,
        input_key=str(props.get("input_key") or "get_input") if structured else None,
        strict=structured and props.get("input_values_validate") == "STRICT",
    )


def waiting(ctx: ResourceContext, states: list[DeploymentState]) -> Progress | None:
    """What an action that started ``states`` hands to its completion check."""
    if any(state.status == IN_PROGRESS for state in states):
        return Progress({_STARTED: ctx.clock.now()})
    return None


def judge(
    ctx: ResourceContext, progress: Progress | None, states: Mapping[str, DeploymentState]
) -> CheckResult:
    """True when every deployment completed; raises for a failed one; else when to poll.

    Raises:
        PluginError: "Deployment to server failed: <reason>" (named after the member in a
            group).
    """
    for key, state in states.items():
        if state.status == FAILED:
            where = f" {key}" if key else ""
            raise PluginError(
                f"Deployment to server{where} failed: {state.status_reason}",
                resource=ctx.resource_name,
            )
    if all(state.status == COMPLETE for state in states.values()):
        return True
    started = progress.state.get(_STARTED) if progress is not None else None
    elapsed = ctx.clock.now() - started if isinstance(started, int | float) else 0.0
    return PollAfter(min(MAX_POLL, max(MIN_POLL, elapsed / 10)))


def stored_handle(ctx: ResourceContext, key: str) -> DeploymentHandle | None:
    """The handle kept under ``key`` of the resource data, if any."""
    text = ctx.data.get(key)
    return DeploymentHandle.from_json(text) if text else None


def output_value(state: DeploymentState | None, name: str) -> Any:
    """An attribute of a deployment: one of its output values (None while unknown)."""
    return None if state is None else state.output_values.get(name)


def replacing_input(
    services: SoftwareDeploymentServices, ctx: ResourceContext, new: Props, old: Props
) -> str | None:
    """The name of an input with ``replace_on_change`` whose value changed, if any."""
    config_id = new.get("config")
    if not config_id:
        return None
    try:
        config = services.get_config(str(config_id), ctx.stack.tenant)
    except NotFound:
        return None
    new_values = new.get("input_values") or {}
    old_values = old.get("input_values") or {}
    for decl in config.inputs:
        if decl.get("replace_on_change"):
            name, default = decl.get("name"), decl.get("default")
            if new_values.get(name, default) != old_values.get(name, default):
                return str(name)
    return None
