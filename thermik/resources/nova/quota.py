"""``OS::Nova::Quota``: a project's Nova quotas (Nova keeps them to administrators)."""

from __future__ import annotations

from typing import ClassVar

from thermik.errors import PropertyError
from thermik.resources.cloud_access import cloud_access, find
from thermik.resources.constraints import CustomConstraint, Range
from thermik.resources.context import ResourceContext, ValidationContext, physical_resource_name
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

#: The quotas the type sets (Heat's names are Nova's), and what each limits.
QUOTAS = {
    "cores": "the number of cores",
    "instances": "the number of instances",
    "injected_files": "the number of injected files",
    "injected_file_content_bytes": "the number of injected file content bytes",
    "injected_file_path_bytes": "the number of injected file path bytes",
    "key_pairs": "the number of key pairs",
    "metadata_items": "the number of metadata items",
    "ram": "the amount of ram (in megabytes)",
    "server_groups": "the number of server groups",
    "server_group_members": "the number of server group members",
}


def _quota(name: str) -> PropertySchema:
    return PropertySchema(
        Type.INTEGER,
        f"Quota for {QUOTAS[name]}. Setting the value to -1 removes the limit.",
        constraints=(Range(min=-1),),
        update_allowed=True,
    )


class Quota(ResourcePlugin):
    """``OS::Nova::Quota``.

    Create and update set the given quotas of the project (Nova refuses a limit below what
    the project uses); delete reverts the project to the defaults. The physical id is a
    name of the resource's own (a quota set has no id); setting quotas again is harmless,
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
        nova = cloud_access(ctx).client("nova")
        nova.call(lambda conn: conn.compute.update_quota_set(project, **quotas))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None or not props.get("project"):
            return None
        project = find(ctx, "keystone.project", props["project"])
        nova = cloud_access(ctx).client("nova")
        nova.call(lambda conn: conn.compute.revert_quota_set(project))
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        project = find(ctx, "keystone.project", props["project"])
        nova = cloud_access(ctx).client("nova")
        nova.call(lambda conn: conn.compute.get_quota_set(project))
        return None
