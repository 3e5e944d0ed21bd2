"""``OS::Heat::DeployedServer``: a server deployed outside the cloud, configured by deployments.

It owns the server's metadata endpoint (what ``os-collect-config`` on the server polls),
provisioned through :class:`~thermik.resources.software_services.SoftwareDeploymentServices`
when it is created; its physical id is a fresh UUID (there is no Nova server behind it) and its
``os_collect_config`` attribute is the agent configuration to install on the machine, as Heat
gives it. Deployments to it are delivered through that endpoint.

``software_config_transport`` defaults to ``POLL_SERVER_CFN`` as Heat's default configuration
does; Thermik has no CFN API and serves ``POLL_SERVER_CFN`` and ``POLL_SERVER_HEAT`` as
``[delivery] default_software_config_transport``. ``deployment_swift_data`` is accepted and
ignored: the swift backend names the container and object itself.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from thermik.resources.constraints import AllowedValues, Length
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.deployment_actions import new_id
from thermik.resources.plugin import NeedsReplacement, Progress, Props, ResourcePlugin
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)
from thermik.resources.software_services import SERVER_ENDPOINT_KEY, software_services

SOFTWARE_CONFIG_TRANSPORTS = (
    "POLL_SERVER_CFN",
    "POLL_SERVER_HEAT",
    "POLL_TEMP_URL",
    "ZAQAR_MESSAGE",
)


#: Resource data key of the server's name.
NAME_KEY = "name"


class DeployedServer(ResourcePlugin):
    """``OS::Heat::DeployedServer``: an externally deployed server."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(Type.STRING, "Name of the server.", update_allowed=True),
        "metadata": PropertySchema(
            Type.MAP,
            "Ignored.",
            update_allowed=True,
            support_status=SupportStatus(
                SupportLevel.DEPRECATED,
                version="9.0.0",
                message="This property will be ignored",
                previous=SupportStatus(version="8.0.0"),
            ),
        ),
        "software_config_transport": PropertySchema(
            Type.STRING,
            "How the server receives its deployment metadata.",
            default="POLL_SERVER_CFN",
            constraints=(AllowedValues(SOFTWARE_CONFIG_TRANSPORTS),),
            update_allowed=True,
        ),
        "deployment_swift_data": PropertySchema(
            Type.MAP,
            "Swift container and object for the metadata with POLL_TEMP_URL "
            "(generated when not given).",
            default={},
            schema={
                "container": PropertySchema(
                    Type.STRING, "Name of the container.", constraints=(Length(min=1),)
                ),
                "object": PropertySchema(
                    Type.STRING, "Name of the object.", constraints=(Length(min=1),)
                ),
            },
            update_allowed=True,
            support_status=SupportStatus(version="9.0.0"),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "name": AttributeSchema("Name of the server.", type=AttributeType.STRING),
        "os_collect_config": AttributeSchema(
            "The os-collect-config configuration for the server's agent.",
            type=AttributeType.MAP,
            cache_mode=CacheMode.NONE,
            support_status=SupportStatus(version="9.0.0"),
            secret=True,  # holds the signed metadata URL
        ),
    }

    def _provision(self, ctx: ResourceContext, props: Props) -> None:
        assert ctx.physical_id is not None
        transport = str(props.get("software_config_transport") or "POLL_SERVER_CFN")
        endpoint = software_services(ctx).provision_server(ctx.physical_id, transport, {})
        ctx.data.set(SERVER_ENDPOINT_KEY, json.dumps(dict(endpoint.record)), redact=True)

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Give the server an id and a metadata endpoint serving its (empty) document."""
        ctx.set_physical_id(ctx.physical_id or new_id(ctx))
        ctx.data.set(NAME_KEY, props.get("name") or physical_resource_name(ctx))
        self._provision(ctx, props)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """A new name is kept; a new transport re-provisions the endpoint."""
        if "name" in changed:
            ctx.data.set(NAME_KEY, new_props.get("name") or physical_resource_name(ctx))
        if "software_config_transport" in changed:
            self._provision(ctx, new_props)
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Revoke the metadata endpoint."""
        if ctx.physical_id is not None:
            software_services(ctx).release_server(ctx.physical_id)
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``name``, and ``os_collect_config``: how the server's agent reaches its metadata."""
        if name == "name":
            return ctx.data.get(NAME_KEY)
        if name == "os_collect_config" and ctx.physical_id is not None:
            found = software_services(ctx).server_agent_config(ctx.physical_id)
            return dict(found) if found is not None else None
        return None
