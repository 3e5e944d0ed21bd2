"""``OS::Neutron::Trunk``: a parent port that carries the networks of its sub-ports, each on a
VLAN of its own, to one virtual NIC.

A port is the parent of one trunk at most: the parent port's id, recorded before the create,
finds again what a create an engine crash interrupted made (a trunk takes no tags in its
create, and Heat's has a description of its own), so no trunk is orphaned. An update changes
the sub-ports in two calls, as Heat's does: the ones no longer wanted are removed first (a port
cannot be two sub-ports at once), then the new ones added; a sub-port whose segmentation
changed is removed and added again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.resources.constraints import AllowedValues, CustomConstraint, Range
from thermik.resources.context import ResourceContext
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import resolve
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)
from thermik.resources.untagged import Keyed

PORT = CustomConstraint("neutron.port")

SUB_PORT = PropertySchema(
    Type.MAP,
    schema={
        "port": PropertySchema(
            Type.STRING,
            "ID or name of a port to be used as a subport.",
            required=True,
            constraints=(PORT,),
        ),
        "segmentation_type": PropertySchema(
            Type.STRING,
            "Segmentation type to be used on the subport.",
            required=True,
            constraints=(AllowedValues(("vlan",)),),
        ),
        "segmentation_id": PropertySchema(
            Type.INTEGER,
            "The segmentation ID on which the subport network is presented to the instance.",
            required=True,
            constraints=(Range(min=1, max=4094),),
        ),
    },
)

#: A sub-port as Neutron takes it: (port id, segmentation type, segmentation id).
SubPort = tuple[str, str, int]


class Trunk(Keyed, NeutronResource):
    """``OS::Neutron::Trunk``."""

    key_name: ClassVar[str] = "trunk_key"
    kind: ClassVar[str] = "trunk"
    plural: ClassVar[str] = "trunks"
    has_status: ClassVar[bool] = True
    support_status = SupportStatus(version="9.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "A string specifying a symbolic name for the trunk, which is not required to be "
            "unique.",
            update_allowed=True,
        ),
        "port": PropertySchema(
            Type.STRING,
            "ID or name of a port to be used as a parent port.",
            required=True,
            immutable=True,
            constraints=(PORT,),
        ),
        "sub_ports": PropertySchema(
            Type.LIST,
            "List with 0 or more map elements containing subport details.",
            schema=SUB_PORT,
            update_allowed=True,
        ),
        "description": PropertySchema(
            Type.STRING, "Description for the trunk.", update_allowed=True
        ),
        "admin_state_up": PropertySchema(
            Type.BOOLEAN,
            "Enable/disable subport addition, removal and trunk delete.",
            update_allowed=True,
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "port_id": AttributeSchema(
            "ID or name of a port used as a parent port.", type=AttributeType.STRING
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        def key() -> dict[str, Any]:
            return {"port_id": resolve(ctx, "neutron.port", props["port"])}

        def make(key: Mapping[str, Any], tag: str) -> Any:
            fields: dict[str, Any] = {
                "name": self.name_of(ctx, props),
                "port_id": key["port_id"],
                "sub_ports": _bodies(_sub_ports(ctx, props.get("sub_ports"))),
            }
            if props.get("description") is not None:
                fields["description"] = props["description"]
            if props.get("admin_state_up") is not None:
                fields["is_admin_state_up"] = props["admin_state_up"]
            return self.call(
                ctx, lambda conn: conn.network.create_trunk(**fields), idempotent=False
            )

        self.create_keyed(ctx, key, make)
        return self.built(ctx)

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = self.named(ctx, new_props, changed)
        if "admin_state_up" in changed and new_props.get("admin_state_up") is not None:
            fields["is_admin_state_up"] = new_props["admin_state_up"]
        self.change(ctx, fields)
        if "sub_ports" in changed:
            self._change_sub_ports(ctx, old_props, new_props)
        self.refresh(ctx)
        return self.built(ctx)

    def _change_sub_ports(self, ctx: ResourceContext, old_props: Props, new_props: Props) -> None:
        gone, added = sub_port_changes(
            _sub_ports(ctx, old_props.get("sub_ports")),
            _sub_ports(ctx, new_props.get("sub_ports")),
        )
        assert ctx.physical_id is not None
        trunk = ctx.physical_id
        if gone:
            self.call(ctx, lambda conn: conn.network.delete_trunk_subports(trunk, gone))
        if added:
            self.call(ctx, lambda conn: conn.network.add_trunk_subports(trunk, added))

    def listed(self, conn: Any, key: Mapping[str, Any], tag: str) -> Iterable[Any]:
        return list(conn.network.trunks(port_id=key["port_id"]))

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {"port_id": found.port_id}


def _sub_ports(ctx: ResourceContext, values: Iterable[Mapping[str, Any]] | None) -> list[SubPort]:
    """The sub-ports of the ``sub_ports`` property, their ports' names looked up."""
    return [
        (
            resolve(ctx, "neutron.port", str(v["port"])),
            str(v["segmentation_type"]),
            int(v["segmentation_id"]),
        )
        for v in values or []
    ]


def _bodies(sub_ports: Iterable[SubPort]) -> list[dict[str, Any]]:
    """Neutron's bodies of ``sub_ports``."""
    return [
        {"port_id": port, "segmentation_type": kind, "segmentation_id": number}
        for port, kind, number in sub_ports
    ]


def sub_port_changes(
    old: Iterable[SubPort], new: Iterable[SubPort]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What makes sub-ports ``old`` the sub-ports ``new``: Neutron's bodies of the ones to
    remove, and of the ones to add (a sub-port whose segmentation changed is in both)."""
    before, after = set(old), set(new)
    gone = [{"port_id": port} for port, _, _ in sorted(before - after)]
    return gone, _bodies(sorted(after - before))
