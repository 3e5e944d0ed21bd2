"""``OS::Neutron::FloatingIPAssociation``: a floating IP put on a port.

Its physical id is ``<floating IP id>:<port id>`` (Heat uses the resource's own database id,
which says nothing about the cloud): a check then knows what to look for without the
properties. Associating is setting the floating IP's port, which Neutron accepts again for
the same port, so a create run again after a crash simply repeats it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone, PluginError
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.neutron.implied import association_requirements
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type
from thermik.resources.stack_view import StackView


def association_id(floatingip_id: str, port_id: str) -> str:
    """The physical id of the association of a floating IP with a port."""
    return f"{floatingip_id}:{port_id}"


def parse_association_id(physical_id: str) -> tuple[str, str]:
    """The floating IP and port ids of an association's physical id.

    Raises:
        PluginError: the id is not ``<floating IP id>:<port id>``.
    """
    floatingip_id, colon, port_id = physical_id.partition(":")
    if not colon or not floatingip_id or not port_id or ":" in port_id:
        raise PluginError(f"Invalid floating IP association id {physical_id!r}")
    return floatingip_id, port_id


class FloatingIPAssociation(CloudResource):
    """``OS::Neutron::FloatingIPAssociation``."""

    service: ClassVar[str] = "neutron"

    properties_schema: ClassVar[PropertiesSchema] = {
        "floatingip_id": PropertySchema(
            Type.STRING,
            "The ID of the floating IP to associate.",
            required=True,
            update_allowed=True,
        ),
        "port_id": PropertySchema(
            Type.STRING,
            "The ID of an existing port, with at least one IP address, to associate the "
            "floating IP with.",
            required=True,
            update_allowed=True,
            constraints=(CustomConstraint("neutron.port"),),
        ),
        "fixed_ip_address": PropertySchema(
            Type.STRING,
            "Which address of the port to use, when it has several.",
            update_allowed=True,
            constraints=(CustomConstraint("ip_addr"),),
        ),
    }

    @classmethod
    def implied_requirements(cls, name: str, stack: StackView) -> Iterable[str]:
        return association_requirements(name, stack)

    def _associate(self, ctx: ResourceContext, props: Props) -> None:
        floatingip_id, port_id = props["floatingip_id"], props["port_id"]
        fixed = props.get("fixed_ip_address")
        self.seen(
            self.call(
                ctx,
                lambda conn: conn.network.update_ip(
                    floatingip_id, port_id=port_id, fixed_ip_address=fixed
                ),
            )
        )
        ctx.set_physical_id(association_id(floatingip_id, port_id))

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        self._associate(ctx, props)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        if "floatingip_id" in changed:
            self._dissociate(self.client(ctx), old_props["floatingip_id"])
        self._associate(ctx, new_props)
        return None

    def _dissociate(self, client: CloudClient, floatingip_id: str) -> None:
        with contextlib.suppress(CloudGone):
            client.call(lambda conn: conn.network.update_ip(floatingip_id, port_id=None))

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        """The floating IP, while it is on the port; CloudGone otherwise."""
        floatingip_id, port_id = parse_association_id(physical_id)
        found = client.call(lambda conn: conn.network.get_ip(floatingip_id))
        if found.port_id != port_id:
            raise CloudGone(f"Floating IP {floatingip_id} is not associated with port {port_id}")
        return found

    def remove(self, client: CloudClient, physical_id: str) -> None:
        # Only while it is still ours: a replacement may have put it on another port since.
        self.fetch(client, physical_id)
        self._dissociate(client, parse_association_id(physical_id)[0])

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {}
