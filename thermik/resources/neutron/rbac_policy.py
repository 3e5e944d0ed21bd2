"""``OS::Neutron::RBACPolicy``: one Neutron object shared with (or made external for) a project.

An RBAC policy takes neither a description nor tags, but Neutron allows one policy per object,
action and target: that triple, recorded before the create, finds again what a create an
engine crash interrupted made, so no policy is orphaned.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import PropertyError
from thermik.resources.constraints import AllowedValues
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import first, resolve
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type
from thermik.resources.untagged import refused_forgets

#: The actions each object type takes, and the look-up of its name or id.
ACTIONS: Mapping[str, tuple[str, ...]] = {
    "network": ("access_as_shared", "access_as_external"),
    "qos_policy": ("access_as_shared",),
    "security_group": ("access_as_shared",),
}
LOOKUP = {
    "network": "neutron.network",
    "qos_policy": "neutron.qos_policy",
    "security_group": "neutron.security_group",
}
#: Resource data key of the policy's object, action and target, recorded before the create.
KEY = "rbac_key"


class RBACPolicy(NeutronResource):
    """``OS::Neutron::RBACPolicy``."""

    kind: ClassVar[str] = "rbac_policy"
    plural: ClassVar[str] = "rbac_policies"
    support_status = SupportStatus(version="6.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "object_type": PropertySchema(
            Type.STRING,
            "Type of the object that RBAC policy affects.",
            required=True,
            constraints=(AllowedValues(tuple(ACTIONS)),),
        ),
        "target_tenant": PropertySchema(
            Type.STRING,
            "ID of the tenant to which the RBAC policy will be enforced.",
            required=True,
            update_allowed=True,
        ),
        "action": PropertySchema(
            Type.STRING,
            "Action for the RBAC policy. The allowed actions differ for different object types "
            "- only 'access_as_shared' is allowed for qos_policy and security_group objects.",
            required=True,
            constraints=(AllowedValues(("access_as_shared", "access_as_external")),),
        ),
        "object_id": PropertySchema(
            Type.STRING,
            "ID or name of the RBAC object.",
            required=True,
        ),
        "tenant_id": PropertySchema(
            Type.STRING,
            "The owner tenant ID. Only required if the caller has an administrative "
            "role and wants to create a RBAC for another tenant.",
        ),
    }

    def __init__(self) -> None:
        super().__init__()
        #: The recorded object, action and target (see :data:`KEY`), once known.
        self._key: Mapping[str, Any] | None = None

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        kind, action = props.get("object_type"), props.get("action")
        if vctx.unresolved(kind) or vctx.unresolved(action) or not isinstance(kind, str):
            return
        if kind not in ACTIONS:
            return
        if action not in ACTIONS[kind]:
            raise PropertyError(
                f"Invalid action {action} for object type {kind}. Valid actions: "
                f"{', '.join(ACTIONS[kind])}.",
                path=("properties", "action"),
            )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        key = _recorded(ctx)
        if key is None:
            key = {
                "object_type": props["object_type"],
                "object_id": resolve(ctx, LOOKUP[props["object_type"]], props["object_id"]),
                "action": props["action"],
                "target_project_id": props["target_tenant"],
            }
            ctx.data.set(KEY, json.dumps(key))
        self._key = key
        fields = dict(key)
        if props.get("tenant_id"):
            fields["project_id"] = props["tenant_id"]
        made = refused_forgets(
            ctx,
            [KEY],
            lambda: self.create_tagged(
                ctx,
                lambda tag: self.call(
                    ctx, lambda conn: conn.network.create_rbac_policy(**fields), idempotent=False
                ),
            ),
        )
        ctx.set_physical_id(made.id)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        if "target_tenant" in changed:
            target = new_props["target_tenant"]
            self.change(ctx, {"target_project_id": target})
            key = _recorded(ctx)
            if key is not None:
                ctx.data.set(KEY, json.dumps({**key, "target_project_id": target}))
        return None

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        self._key = _recorded(ctx)
        return super().physical_or_orphan(ctx)

    def created_with(self, client: CloudClient, tag: str) -> Any:
        key = self._key
        if key is None:
            return None
        return first(client.call(lambda conn: list(conn.network.rbac_policies(**key))))

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {}


def _recorded(ctx: ResourceContext) -> dict[str, Any] | None:
    """The object, action and target a create of this version recorded, if it started."""
    found = ctx.data.get(KEY)
    return None if found is None else dict(json.loads(found))
