"""Software deployments: applying a config to a server and waiting for its signal.

``OS::Heat::SoftwareDeployment`` and ``StructuredDeployment`` act on one server, the ``...Group``
types on a map of servers, one deployment per entry (``...Deployments`` are their retired,
hidden names). Each triggering action derives a config that the engine publishes in the server's
metadata (:mod:`thermik.resources.deployment_actions`, through
:class:`~thermik.resources.software_services.SoftwareDeploymentServices`); the action completes
when the server's signal arrives. A deployment exposes ``deploy_stdout``, ``deploy_stderr``,
``deploy_status_code`` and every output its config declares (a group: maps of server name to
value), so ``dynamic_attributes`` is set.

``signal_transport`` defaults to ``CFN_SIGNAL`` as Heat's default configuration does; Thermik
has no CFN API and serves it as ``[delivery] default_deployment_signal_transport``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.errors import InvalidSignal
from thermik.resources import deployment_actions as actions
from thermik.resources.constraints import AllowedValues
from thermik.resources.context import ResourceContext
from thermik.resources.groups import batch_schema
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    Operation,
    Progress,
    Props,
    ResourcePlugin,
)
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)
from thermik.resources.software_services import (
    DeploymentHandle,
    DeploymentState,
    software_services,
)
from thermik.resources.stack_users import AGENT_SERVER_KEY

DEPLOY_ACTIONS = ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")
SIGNAL_TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL")
#: Resource data key of a single deployment's handle.
DEPLOYMENT_KEY = "deployment"
#: Resource data key prefix of a group member's handle.
MEMBER_PREFIX = "member:"
#: Group attributes that map server names to a standard output.
GROUP_OUTPUTS = {
    "deploy_stdouts": "deploy_stdout",
    "deploy_stderrs": "deploy_stderr",
    "deploy_status_codes": "deploy_status_code",
}

_COMMON: PropertiesSchema = {
    "config": PropertySchema(
        Type.STRING, "Id of the config to deploy; none deploys nothing.", update_allowed=True
    ),
    "input_values": PropertySchema(
        Type.MAP, "Input name -> value for the config.", update_allowed=True
    ),
    "actions": PropertySchema(
        Type.LIST,
        "Lifecycle actions that trigger the deployment.",
        default=["CREATE", "UPDATE"],
        constraints=(AllowedValues(DEPLOY_ACTIONS),),
        update_allowed=True,
    ),
    "name": PropertySchema(
        Type.STRING, "Name of the derived config shown on the server.", update_allowed=True
    ),
    "signal_transport": PropertySchema(
        Type.STRING,
        "How the server reports completion (NO_SIGNAL completes without waiting).",
        default="CFN_SIGNAL",
        constraints=(AllowedValues(SIGNAL_TRANSPORTS),),
    ),
}
_STRUCTURED: PropertiesSchema = {
    "input_key": PropertySchema(
        Type.STRING,
        "The key that marks an input substitution inside the structured config.",
        default="get_input",
    ),
    "input_values_validate": PropertySchema(
        Type.STRING,
        "STRICT fails when the config refers to an input without a value; LAX does not.",
        default="LAX",
        constraints=(AllowedValues(("LAX", "STRICT")),),
    ),
}
_SERVER = PropertySchema(Type.STRING, "Id of the server to deploy to.", required=True)
_SERVERS = PropertySchema(
    Type.MAP, "Name -> id of the servers to deploy to.", required=True, update_allowed=True
)


def _output(description: str, kind: AttributeType) -> AttributeSchema:
    return AttributeSchema(description, type=kind)


class SoftwareDeployment(ResourcePlugin):
    """``OS::Heat::SoftwareDeployment``: one config applied to one server."""

    support_status = SupportStatus(version="2014.1")
    takes_signals = True
    signal_refreshes_metadata = False
    dynamic_attributes = True
    properties_schema: ClassVar[PropertiesSchema] = {"server": _SERVER, **_COMMON}
    attributes_schema: ClassVar[AttributesSchema] = {
        "deploy_stdout": _output("What the config wrote to stdout.", AttributeType.STRING),
        "deploy_stderr": _output("What the config wrote to stderr.", AttributeType.STRING),
        "deploy_status_code": _output("The config's exit code.", AttributeType.STRING),
    }
    #: Whether ``{get_input: name}`` maps in a structured config are substituted.
    structured: ClassVar[bool] = False

    def _run(self, ctx: ResourceContext, props: Props, action: str) -> Progress | None:
        services = software_services(ctx)
        if not actions.triggers(services, ctx, props, action):
            return None
        previous = actions.stored_handle(ctx, DEPLOYMENT_KEY)
        deployment_id = previous.deployment_id if previous else actions.new_id(ctx)
        ctx.set_physical_id(deployment_id)
        server_id = str(props["server"])
        if ctx.data.get(AGENT_SERVER_KEY) != server_id:
            # Before the server can run it: the server's agent signals it (HEAT_SIGNAL).
            ctx.data.set(AGENT_SERVER_KEY, server_id)
        request = actions.request_for(
            ctx,
            props,
            action,
            deployment_id=deployment_id,
            server_id=server_id,
            resource_name=ctx.resource_name,
            structured=self.structured,
        )
        state = services.start_action(request, previous)
        ctx.data.set(DEPLOYMENT_KEY, state.handle.to_json(), redact=True)
        return actions.waiting(ctx, [state])

    def _wait(self, ctx: ResourceContext, progress: Progress | None) -> CheckResult:
        handle = actions.stored_handle(ctx, DEPLOYMENT_KEY)
        if progress is None or handle is None:
            return True
        state = software_services(ctx).refresh(handle)
        return actions.judge(ctx, progress, {"": state})

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Run the CREATE action (if configured)."""
        return self._run(ctx, props, "CREATE")

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Until the server signalled."""
        return self._wait(ctx, progress)

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        """Replace for a new server or transport, or a changed ``replace_on_change`` input."""
        found = super().needs_replacement(ctx, new_props, old_props, changed)
        if found is not None or not changed & {"config", "input_values"}:
            return found
        name = actions.replacing_input(software_services(ctx), ctx, new_props, old_props)
        if name is None:
            return None
        return NeedsReplacement(f"input {name} changed and is replace_on_change")

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Run the UPDATE action (if configured) with the new config and inputs."""
        return self._run(ctx, new_props, "UPDATE")

    check_update_complete = check_create_complete

    def suspend(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Run the SUSPEND action (if configured)."""
        return self._run(ctx, props, "SUSPEND")

    check_suspend_complete = check_create_complete

    def resume(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Run the RESUME action (if configured)."""
        return self._run(ctx, props, "RESUME")

    check_resume_complete = check_create_complete

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Run the DELETE action if configured and the server is still there, else remove."""
        handle = actions.stored_handle(ctx, DEPLOYMENT_KEY)
        if handle is None:
            return None
        services = software_services(ctx)
        if services.server_agent_config(handle.server_id) is not None:
            progress = self._run(ctx, props, "DELETE")
            if progress is not None:
                return progress
        self._remove(ctx)
        return None

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Until the DELETE action's signal arrived; then the deployment is removed."""
        done = self._wait(ctx, progress)
        if done is True:
            self._remove(ctx)
        return done

    def _remove(self, ctx: ResourceContext) -> None:
        handle = actions.stored_handle(ctx, DEPLOYMENT_KEY)
        if handle is not None:
            software_services(ctx).remove(handle)
            ctx.data.delete(DEPLOYMENT_KEY)

    def cancel(self, ctx: ResourceContext, props: Props, operation: Operation) -> None:
        """Fail the waiting deployment: "Deployment cancelled."."""
        handle = actions.stored_handle(ctx, DEPLOYMENT_KEY)
        if handle is not None:
            software_services(ctx).cancel(handle)

    def handle_signal(
        self, ctx: ResourceContext, props: Props, data: Mapping[str, Any] | None
    ) -> str | None:
        """The server's outputs (HEAT_SIGNAL, or anyone signalling the resource)."""
        handle = actions.stored_handle(ctx, DEPLOYMENT_KEY)
        if handle is None:
            raise InvalidSignal(
                f"deployment {ctx.resource_name} has not started", resource=ctx.resource_name
            )
        return software_services(ctx).signal(handle, data)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """An output value of the current action (``deploy_stdout``, declared outputs...)."""
        handle = actions.stored_handle(ctx, DEPLOYMENT_KEY)
        if handle is None:
            return None
        return actions.output_value(software_services(ctx).get_deployment(handle), name)


class StructuredDeployment(SoftwareDeployment):
    """``OS::Heat::StructuredDeployment``: substitutes input values into a structured config."""

    structured = True

    properties_schema: ClassVar[PropertiesSchema] = {
        "server": _SERVER,
        **_COMMON,
        **_STRUCTURED,
    }


_GROUP_UPDATE_POLICY: PropertiesSchema = {
    "rolling_update": batch_schema(with_min_in_service=False, version="7.0.0"),
    "batch_create": batch_schema(with_min_in_service=False, version="7.0.0"),
}


class SoftwareDeploymentGroup(ResourcePlugin):
    """``OS::Heat::SoftwareDeploymentGroup``: one config applied to a map of servers."""

    support_status = SupportStatus(version="5.0.0")
    dynamic_attributes = True
    properties_schema: ClassVar[PropertiesSchema] = {"servers": _SERVERS, **_COMMON}
    attributes_schema: ClassVar[AttributesSchema] = {
        "deploy_stdouts": _output("Server name -> its stdout.", AttributeType.MAP),
        "deploy_stderrs": _output("Server name -> its stderr.", AttributeType.MAP),
        "deploy_status_codes": _output("Server name -> its exit code.", AttributeType.MAP),
    }
    update_policy_schema: ClassVar[PropertiesSchema] = _GROUP_UPDATE_POLICY
    structured: ClassVar[bool] = False

    @staticmethod
    def _members(ctx: ResourceContext) -> dict[str, DeploymentHandle]:
        found = {}
        for key, text in ctx.data.as_dict().items():
            if key.startswith(MEMBER_PREFIX):
                found[key.removeprefix(MEMBER_PREFIX)] = DeploymentHandle.from_json(text)
        return found

    def _run(self, ctx: ResourceContext, props: Props, action: str) -> Progress | None:
        """Run ``action`` on every server; new servers get CREATE, dropped ones are removed."""
        services = software_services(ctx)
        if ctx.physical_id is None:
            ctx.set_physical_id(actions.new_id(ctx))
        members = self._members(ctx)
        servers: Mapping[str, Any] = props.get("servers") or {}
        for key in sorted(set(members) - set(servers)):
            self._drop(ctx, key, members.pop(key))
        started: list[DeploymentState] = []
        for key, server in sorted(servers.items()):
            previous = members.get(key)
            if previous is not None and previous.server_id != str(server):
                self._drop(ctx, key, previous)
                previous = None
            member_action = action if previous is not None else "CREATE"
            if not actions.triggers(services, ctx, props, member_action):
                continue
            started.append(self._start(ctx, props, member_action, key, str(server), previous))
        return actions.waiting(ctx, started)

    def _start(
        self,
        ctx: ResourceContext,
        props: Props,
        action: str,
        key: str,
        server: str,
        previous: DeploymentHandle | None,
    ) -> DeploymentState:
        request = actions.request_for(
            ctx,
            props,
            action,
            deployment_id=previous.deployment_id if previous else actions.new_id(ctx),
            server_id=server,
            resource_name=key,
            structured=self.structured,
        )
        state = software_services(ctx).start_action(request, previous)
        ctx.data.set(MEMBER_PREFIX + key, state.handle.to_json(), redact=True)
        return state

    def _drop(self, ctx: ResourceContext, key: str, handle: DeploymentHandle) -> None:
        software_services(ctx).remove(handle)
        ctx.data.delete(MEMBER_PREFIX + key)

    def _wait(self, ctx: ResourceContext, progress: Progress | None) -> CheckResult:
        if progress is None:
            return True
        services = software_services(ctx)
        states = {key: services.refresh(h) for key, h in sorted(self._members(ctx).items())}
        return actions.judge(ctx, progress, states)

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Run the CREATE action on every server."""
        return self._run(ctx, props, "CREATE")

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Until every server signalled."""
        return self._wait(ctx, progress)

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Run the UPDATE action on the servers kept, CREATE on new ones, remove dropped ones."""
        return self._run(ctx, new_props, "UPDATE")

    check_update_complete = check_create_complete

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Run the DELETE action on every server still there (if configured), else remove."""
        services = software_services(ctx)
        started = []
        if actions.triggers(services, ctx, props, "DELETE"):
            for key, handle in sorted(self._members(ctx).items()):
                if services.server_agent_config(handle.server_id) is not None:
                    started.append(
                        self._start(ctx, props, "DELETE", key, handle.server_id, handle)
                    )
        progress = actions.waiting(ctx, started)
        if progress is None:
            self._remove_all(ctx)
        return progress

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Until the DELETE actions' signals arrived; then every deployment is removed."""
        done = self._wait(ctx, progress)
        if done is True:
            self._remove_all(ctx)
        return done

    def _remove_all(self, ctx: ResourceContext) -> None:
        for key, handle in self._members(ctx).items():
            self._drop(ctx, key, handle)

    def cancel(self, ctx: ResourceContext, props: Props, operation: Operation) -> None:
        """Fail every waiting deployment: "Deployment cancelled."."""
        services = software_services(ctx)
        for handle in self._members(ctx).values():
            services.cancel(handle)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """Server name -> output value (``deploy_stdouts`` maps ``deploy_stdout``, ...)."""
        services = software_services(ctx)
        output = GROUP_OUTPUTS.get(name, name)
        return {
            key: actions.output_value(services.get_deployment(handle), output)
            for key, handle in sorted(self._members(ctx).items())
        }


class StructuredDeploymentGroup(SoftwareDeploymentGroup):
    """``OS::Heat::StructuredDeploymentGroup``: structured deployments to a map of servers."""

    structured = True

    properties_schema: ClassVar[PropertiesSchema] = {
        "servers": _SERVERS,
        **_COMMON,
        **_STRUCTURED,
    }


def _retired(replacement: str) -> SupportStatus:
    return SupportStatus(
        SupportLevel.HIDDEN,
        version="7.0.0",
        message=f"Please use {replacement} instead.",
        previous=SupportStatus(SupportLevel.DEPRECATED, version="2014.2"),
    )


class SoftwareDeployments(SoftwareDeploymentGroup):
    """``OS::Heat::SoftwareDeployments``: the retired name of SoftwareDeploymentGroup."""

    support_status = _retired("OS::Heat::SoftwareDeploymentGroup")


class StructuredDeployments(StructuredDeploymentGroup):
    """``OS::Heat::StructuredDeployments``: the retired name of StructuredDeploymentGroup."""

    support_status = _retired("OS::Heat::StructuredDeploymentGroup")
