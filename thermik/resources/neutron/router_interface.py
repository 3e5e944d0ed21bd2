"""``OS::Neutron::RouterInterface``: a router's interface on a subnet, or through a port.

Its physical id is Heat's: ``<router id>:subnet_id=<subnet id>`` or
``<router id>:port_id=<port id>`` (the old ``<router id>:<subnet id>`` is read too), so a
stack adopted from Heat keeps working. An interface has no Neutron object of its own: it is a
port of the router, which is what a check looks for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone, PluginError, PropertyError
from thermik.resources.cloud_access import create_once
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.common import old_name, resolve
from thermik.resources.neutron.renamed import RenamedProperties
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type

SUBNET_KEY = "subnet_id"
PORT_KEY = "port_id"


@dataclasses.dataclass(frozen=True, slots=True)
class Interface:
    """Which router, and which subnet or port (``key`` is ``subnet_id`` or ``port_id``)."""

    router_id: str
    key: str
    value: str

    @property
    def physical_id(self) -> str:
        """Heat's form of the interface's physical id."""
        return f"{self.router_id}:{self.key}={self.value}"

    @property
    def argument(self) -> dict[str, str]:
        """The keyword openstacksdk takes the subnet or port by."""
        return {"subnet" if self.key == SUBNET_KEY else "port": self.value}

    @classmethod
    def parse(cls, physical_id: str) -> Interface:
        """The interface a physical id names (Heat's two forms).

        Raises:
            PluginError: the id has neither form.
        """
        router_id, _, rest = physical_id.partition(":")
        key, equals, value = rest.partition("=")
        if not equals:
            key, value = SUBNET_KEY, rest
        if not router_id or not value or key not in (SUBNET_KEY, PORT_KEY):
            raise PluginError(f"Invalid router interface id {physical_id!r}")
        return cls(router_id, key, value)


class RouterInterface(RenamedProperties, CloudResource):
    """``OS::Neutron::RouterInterface``."""

    service: ClassVar[str] = "neutron"

    #: Old property names Heat still takes (hidden), and the names they moved to.
    renamed_properties: ClassVar[Mapping[str, str]] = {
        "router_id": "router",
        "subnet_id": "subnet",
        "port_id": "port",
    }

    properties_schema: ClassVar[PropertiesSchema] = {
        "router_id": old_name(
            "router", "6.0.0", "2015.1", constraints=(CustomConstraint("neutron.router"),)
        ),
        "subnet_id": old_name(
            "subnet", "5.0.0", "2014.2", constraints=(CustomConstraint("neutron.subnet"),)
        ),
        "port_id": old_name(
            "port", "6.0.0", "2015.1", constraints=(CustomConstraint("neutron.port"),)
        ),
        "router": PropertySchema(
            Type.STRING,
            "The name or ID of the router.",
            required=True,
            constraints=(CustomConstraint("neutron.router"),),
        ),
        "subnet": PropertySchema(
            Type.STRING,
            "The name or ID of the subnet; give either subnet or port.",
            constraints=(CustomConstraint("neutron.subnet"),),
        ),
        "port": PropertySchema(
            Type.STRING,
            "The name or ID of the port; give either subnet or port.",
            constraints=(CustomConstraint("neutron.port"),),
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        subnet, port = props.get("subnet") is not None, props.get("port") is not None
        if subnet and port:
            raise PropertyError(
                "Cannot define the following properties at the same time: subnet, port",
                path=("properties", "port"),
            )
        if not subnet and not port:
            raise PropertyError(
                "At least one of the following properties must be specified: subnet, port",
                path=("properties",),
            )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        router_id = resolve(ctx, "neutron.router", props["router"])
        if props.get("subnet") is not None:
            wanted = Interface(
                router_id, SUBNET_KEY, resolve(ctx, "neutron.subnet", props["subnet"])
            )
        else:
            wanted = Interface(router_id, PORT_KEY, resolve(ctx, "neutron.port", props["port"]))

        def attached(tag: str) -> str | None:
            try:
                self.fetch(self.client(ctx), wanted.physical_id)
            except CloudGone:
                return None
            return wanted.physical_id

        def attach(tag: str) -> str:
            self.call(
                ctx,
                lambda conn: conn.network.add_interface_to_router(
                    wanted.router_id, **wanted.argument
                ),
            )
            return wanted.physical_id

        # A create run again after a crash finds the interface its first run added.
        ctx.set_physical_id(create_once(ctx, attached, attach))
        return None

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        """The router's port that is this interface; CloudGone when there is none."""
        wanted = Interface.parse(physical_id)
        ports = client.call(lambda conn: list(conn.network.ports(device_id=wanted.router_id)))
        for port in ports:
            if wanted.key == PORT_KEY and port.id == wanted.value:
                return port
            subnets = {ip.get("subnet_id") for ip in port.fixed_ips or []}
            if wanted.key == SUBNET_KEY and wanted.value in subnets:
                return port
        raise CloudGone(
            f"Router {wanted.router_id} has no interface on "
            f"{'subnet' if wanted.key == SUBNET_KEY else 'port'} {wanted.value}"
        )

    def remove(self, client: CloudClient, physical_id: str) -> None:
        wanted = Interface.parse(physical_id)
        client.call(
            lambda conn: conn.network.remove_interface_from_router(
                wanted.router_id, **wanted.argument
            )
        )
