"""The property and attribute schemas of ``OS::Nova::Server``, as Heat declares them.

Names, types, defaults, constraints and update rules follow Heat's (the descriptions are
Thermik's own). The network and block device entries live with the code that uses them
(:mod:`~thermik.resources.nova.networks`, :mod:`~thermik.resources.nova.block_devices`).
"""

from __future__ import annotations

from thermik.resources.constraints import AllowedValues, CustomConstraint, Length
from thermik.resources.deployed_server import SOFTWARE_CONFIG_TRANSPORTS
from thermik.resources.nova.block_devices import BLOCK_DEVICE_MAPPING, BLOCK_DEVICE_MAPPING_V2
from thermik.resources.nova.networks import NETWORKS
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

RAW, SOFTWARE_CONFIG, HEAT_CFNTOOLS = "RAW", "SOFTWARE_CONFIG", "HEAT_CFNTOOLS"
USER_DATA_FORMATS = (HEAT_CFNTOOLS, RAW, SOFTWARE_CONFIG)
RESIZE, REPLACE, REBUILD = "RESIZE", "REPLACE", "REBUILD"
REBUILD_PRESERVE_EPHEMERAL = "REBUILD_PRESERVE_EPHEMERAL"
IGNORE = "IGNORE"

_HIDDEN_ADMIN_USER = SupportStatus(
    SupportLevel.HIDDEN,
    version="5.0.0",
    message="The image's default cloud-init user is used.",
    previous=SupportStatus(
        SupportLevel.DEPRECATED, version="2014.1", previous=SupportStatus(version="2013.2")
    ),
)

PROPERTIES: PropertiesSchema = {
    "name": PropertySchema(Type.STRING, "The server's name.", update_allowed=True),
    "image": PropertySchema(
        Type.STRING,
        "Name or ID of the image the server boots from.",
        constraints=(CustomConstraint("glance.image"),),
        update_allowed=True,
    ),
    "block_device_mapping": BLOCK_DEVICE_MAPPING,
    "block_device_mapping_v2": BLOCK_DEVICE_MAPPING_V2,
    "flavor": PropertySchema(
        Type.STRING,
        "Name or ID of the flavor the server runs with.",
        required=True,
        update_allowed=True,
        constraints=(CustomConstraint("nova.flavor"),),
    ),
    "flavor_update_policy": PropertySchema(
        Type.STRING,
        "How a new flavor is applied: RESIZE the server, or REPLACE it.",
        default=RESIZE,
        constraints=(AllowedValues((RESIZE, REPLACE)),),
        update_allowed=True,
    ),
    "image_update_policy": PropertySchema(
        Type.STRING,
        "How a new image is applied: REBUILD the server (optionally keeping its ephemeral "
        "disk), or REPLACE it.",
        default=REBUILD,
        constraints=(AllowedValues((REBUILD, REPLACE, REBUILD_PRESERVE_EPHEMERAL)),),
        update_allowed=True,
    ),
    "key_name": PropertySchema(
        Type.STRING,
        "Name of the key pair whose public key is injected into the server.",
        constraints=(CustomConstraint("nova.keypair"),),
    ),
    "admin_user": PropertySchema(
        Type.STRING,
        "Name of the administrative user on the server (ignored).",
        support_status=_HIDDEN_ADMIN_USER,
    ),
    "availability_zone": PropertySchema(Type.STRING, "Availability zone the server is placed in."),
    "security_groups": PropertySchema(
        Type.LIST,
        "Names or IDs of the security groups of the ports Nova creates; not allowed with "
        "given ports (set their security groups instead).",
        default=[],
    ),
    "networks": NETWORKS,
    "scheduler_hints": PropertySchema(
        Type.MAP, "Key-value hints for Nova's scheduler about where to place the server."
    ),
    "metadata": PropertySchema(
        Type.MAP,
        "Key-value metadata of the server (at most 255 characters each; other values than "
        "strings are sent as JSON).",
        update_allowed=True,
        default={},
    ),
    "user_data_format": PropertySchema(
        Type.STRING,
        "How user_data is given to the server: RAW as it is, HEAT_CFNTOOLS inside Heat's "
        "cloud-init boot data, SOFTWARE_CONFIG with the software deployment agent's "
        "configuration and metadata.",
        default=HEAT_CFNTOOLS,
        constraints=(AllowedValues(USER_DATA_FORMATS),),
    ),
    "software_config_transport": PropertySchema(
        Type.STRING,
        "How the server's agent gets its software deployment metadata: POLL_SERVER_CFN, "
        "POLL_SERVER_HEAT, POLL_TEMP_URL (a Swift temporary URL) or ZAQAR_MESSAGE.",
        default="POLL_SERVER_CFN",
        update_allowed=True,
        constraints=(AllowedValues(SOFTWARE_CONFIG_TRANSPORTS),),
    ),
    "user_data_update_policy": PropertySchema(
        Type.STRING,
        "How a new user_data is applied: REPLACE the server, REBUILD it, or IGNORE it.",
        default=REPLACE,
        constraints=(AllowedValues((REPLACE, IGNORE, REBUILD)),),
        update_allowed=True,
        support_status=SupportStatus(version="6.0.0"),
    ),
    "user_data": PropertySchema(
        Type.STRING,
        "User data (a script or cloud-init configuration) for the server; a change replaces "
        "the server unless user_data_update_policy says otherwise.",
        default="",
        update_allowed=True,
    ),
    "reservation_id": PropertySchema(
        Type.STRING, "A UUID for a set of servers (Nova takes it no more; ignored)."
    ),
    "config_drive": PropertySchema(Type.BOOLEAN, "Whether the server gets a config drive."),
    "diskConfig": PropertySchema(
        Type.STRING,
        "How the server's disk is partitioned at creation.",
        constraints=(AllowedValues(("AUTO", "MANUAL")),),
    ),
    "personality": PropertySchema(
        Type.MAP,
        "Files to write on the server at boot (path to contents); Nova no longer takes them "
        "(API 2.57 and later): use user_data.",
        default={},
        support_status=SupportStatus(
            SupportLevel.DEPRECATED,
            version="12.0.0",
            message="Nova no longer takes personality files; use user_data or metadata.",
        ),
    ),
    "admin_pass": PropertySchema(
        Type.STRING,
        "The server's administrator password.",
        update_allowed=True,
        secret=True,
    ),
    "tags": PropertySchema(
        Type.LIST,
        "Tags of the server.",
        schema=PropertySchema(Type.STRING),
        update_allowed=True,
        support_status=SupportStatus(version="8.0.0"),
    ),
    "deployment_swift_data": PropertySchema(
        Type.MAP,
        "Swift container and object of the deployment metadata with POLL_TEMP_URL "
        "(generated when not given).",
        default={},
        update_allowed=True,
        support_status=SupportStatus(version="9.0.0"),
        schema={
            "container": PropertySchema(
                Type.STRING, "Name of the container.", constraints=(Length(min=1),)
            ),
            "object": PropertySchema(
                Type.STRING, "Name of the object.", constraints=(Length(min=1),)
            ),
        },
    ),
}

_DEPRECATED_ACCESS_IP = SupportStatus(
    SupportLevel.DEPRECATED, version="14.0.0", previous=SupportStatus(version="2015.1")
)

ATTRIBUTES: AttributesSchema = {
    "name": AttributeSchema("The server's name.", type=AttributeType.STRING),
    "addresses": AttributeSchema(
        "The server's addresses by network name and by network ID, each with its port ID, "
        "its subnets and its network (``{get_attr: [server, addresses, net, 0, port]}``).",
        type=AttributeType.MAP,
    ),
    "networks": AttributeSchema(
        "The server's IP addresses by network name and by network ID "
        '(``{"private": [ip], "<private id>": [ip]}``).',
        type=AttributeType.MAP,
    ),
    "first_address": AttributeSchema(
        "The server's first IP address, or an empty string (use the networks attribute).",
        support_status=SupportStatus(
            SupportLevel.HIDDEN,
            version="5.0.0",
            message="Use the networks attribute: {get_attr: [<server>, networks, <net>, 0]}",
            previous=SupportStatus(
                SupportLevel.DEPRECATED,
                version="2014.2",
                previous=SupportStatus(version="2013.2"),
            ),
        ),
    ),
    "instance_name": AttributeSchema(
        "The hypervisor's name of the instance (shown to administrators).",
        type=AttributeType.STRING,
    ),
    "accessIPv4": AttributeSchema(
        "The server's manually assigned public IPv4 address.",
        type=AttributeType.STRING,
        support_status=_DEPRECATED_ACCESS_IP,
    ),
    "accessIPv6": AttributeSchema(
        "The server's manually assigned public IPv6 address.",
        type=AttributeType.STRING,
        support_status=_DEPRECATED_ACCESS_IP,
    ),
    "console_urls": AttributeSchema(
        "URLs of the server's consoles by type (novnc, xvpvnc, spice-html5, rdp-html5, "
        "serial, webmks): ``{get_attr: [server, console_urls, novnc]}``.",
        type=AttributeType.MAP,
        support_status=SupportStatus(version="2015.1"),
    ),
    "tags": AttributeSchema(
        "The server's tags.",
        type=AttributeType.LIST,
        support_status=SupportStatus(version="8.0.0"),
    ),
    "os_collect_config": AttributeSchema(
        "The configuration of the server's os-collect-config agent, for software deployments.",
        type=AttributeType.MAP,
        cache_mode=CacheMode.NONE,
        support_status=SupportStatus(version="9.0.0"),
        secret=True,
    ),
}
