"""``OS::Neutron::Quota``: a project's Neutron quotas (Neutron keeps them to administrators)."""

from __future__ import annotations

from typing import ClassVar

from thermik.errors import PropertyError
from thermik.resources.cloud_access import cloud_access, find
from thermik.resources.constraints import CustomConstraint, Range
from thermik.resources.context import ResourceContext, ValidationContext, physical_resource_name
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

#: The quotas the type sets (Heat's names are Neutron's), and what each counts.
QUOTAS = {
    "subnet": "subnets",
    "network": "networks",
    "floatingip": "floating IPs",
    "security_group_rule": "security group rules",
    "security_group": "security groups",
    "router": "routers",
    "port": "ports",
}


def _quota(name: str) -> PropertySchema:
    return PropertySchema(
        Type.INTEGER,
        f"Quota for the number of {QUOTAS[name]}. Setting -1 means unlimited.",
        constraints=(Range(min=-1),),
        update_allowed=True,
    )


class Quota(ResourcePlugin):
    """``OS::Neutron::Quota``.

    Create and update set the given quotas of the project (Neutron refuses a limit below
    what the project uses); delete reverts the project to the defaults. The physical id is
    a name of the resource's own (a quota set has no id); setting quotas again is harmless,
    so a create an engine crash interrupted simply runs again.
    """

    support_status = SupportStatus(version="8.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "project": PropertySchema(
            Type.STRING,
            "Name or id of the project to set the quota for.",
            required=True,
            constraints=(CustomConstraint("keystone.project"),),
        ),
        **{name: _quota(name) for name in QUOTAS},
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        if all(props.get(name) is None for name in QUOTAS):
            raise PropertyError(
                "At least one of the following properties must be specified: "
                + ", ".join(sorted(QUOTAS)),
                path=("properties",),
            )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        self._set(ctx, props)
        ctx.set_physical_id(physical_resource_name(ctx))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        self._set(ctx, new_props)
        return None

    def _set(self, ctx: ResourceContext, props: Props) -> None:
        project = find(ctx, "keystone.project", props["project"])
        quotas = {name: props[name] for name in QUOTAS if props.get(name) is not None}
        neutron = cloud_access(ctx).client("neutron")
        neutron.call(lambda conn: conn.network.update_quota(project, **quotas))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None or not props.get("project"):
            return None
        project = find(ctx, "keystone.project", props["project"])
        neutron = cloud_access(ctx).client("neutron")
        neutron.call(lambda conn: conn.network.delete_quota(project, ignore_missing=True))
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        project = find(ctx, "keystone.project", props["project"])
        neutron = cloud_access(ctx).client("neutron")
        neutron.call(lambda conn: conn.network.get_quota(project))
        return None
