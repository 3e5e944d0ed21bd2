"""``OS::Neutron::QoSPolicy``: a Neutron QoS policy, which networks and ports name to get its
rules (see :mod:`thermik.resources.neutron.qos_rules`).

Neutron takes no tags in a policy's create, and Heat's policy has a description of its own:
the creation tag rides in the description when the template sets none, and the policy's name,
description and project (the key of :class:`~thermik.resources.untagged.Keyed`), recorded
before the create, find again what a create an engine crash interrupted made. Neutron's
default policy rules let only administrators create policies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.resources.context import ResourceContext
from thermik.resources.neutron.base import NeutronResource
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


class QoSPolicy(Keyed, NeutronResource):
    """``OS::Neutron::QoSPolicy``."""

    key_name: ClassVar[str] = "qos_key"
    kind: ClassVar[str] = "qos_policy"
    plural: ClassVar[str] = "qos_policies"
    support_status = SupportStatus(version="6.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(Type.STRING, "The name for the QoS policy.", update_allowed=True),
        "description": PropertySchema(
            Type.STRING, "The description for the QoS policy.", update_allowed=True
        ),
        "shared": PropertySchema(
            Type.BOOLEAN,
            "Whether this QoS policy should be shared to other tenants.",
            default=False,
            update_allowed=True,
        ),
        "tenant_id": PropertySchema(Type.STRING, "The owner tenant ID of this QoS policy."),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "rules": AttributeSchema(
            "A list of all rules for the QoS policy.", type=AttributeType.LIST
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        def key() -> dict[str, Any]:
            return {
                "name": self.name_of(ctx, props),
                "description": props.get("description"),
                "project_id": props.get("tenant_id") or None,
            }

        def make(key: Mapping[str, Any], tag: str) -> Any:
            fields: dict[str, Any] = {
                "name": key["name"],
                "description": key["description"] or tag,
                "is_shared": props["shared"],
            }
            if key["project_id"]:
                fields["project_id"] = key["project_id"]
            return self.call(
                ctx, lambda conn: conn.network.create_qos_policy(**fields), idempotent=False
            )

        self.create_keyed(ctx, key, make)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = self.named(ctx, new_props, changed)
        if "shared" in changed:
            fields["is_shared"] = new_props["shared"]
        self.change(ctx, fields)
        return None

    def listed(self, conn: Any, key: Mapping[str, Any], tag: str) -> Iterable[Any]:
        return list(
            conn.network.qos_policies(
                name=key["name"],
                description=key["description"] or tag,
                project_id=key["project_id"] or conn.current_project_id,
            )
        )

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {"rules": list(getattr(found, "rules", None) or [])}
