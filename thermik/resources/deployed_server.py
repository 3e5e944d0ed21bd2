"""``OS::Heat::DeployedServer``: a server deployed outside the cloud, configured by deployments.

It owns the server's metadata transport (what ``os-collect-config`` on the server polls); its
``os_collect_config`` attribute is the agent configuration to install there. Provisioning the
transport belongs to the delivery layer and arrives with it; the schema is complete now.

``software_config_transport`` defaults to ``POLL_SERVER_CFN`` as Heat's default configuration
does; the delivery layer maps it to the transport actually available.
"""

from __future__ import annotations

from typing import ClassVar

from thermik.resources.constraints import AllowedValues, Length
from thermik.resources.pending import PendingPlugin
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

SOFTWARE_CONFIG_TRANSPORTS = (
    "POLL_SERVER_CFN",
    "POLL_SERVER_HEAT",
    "POLL_TEMP_URL",
    "ZAQAR_MESSAGE",
)


class DeployedServer(PendingPlugin):
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
        ),
    }
