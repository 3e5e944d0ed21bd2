"""``OS::Cinder::Quota``: a project's Cinder quotas (Cinder keeps them to administrators)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.errors import PluginError, PropertyError
from thermik.resources.cloud_access import cloud_access, find
from thermik.resources.constraints import CustomConstraint, Range
from thermik.resources.context import ResourceContext, ValidationContext, physical_resource_name
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

#: The quotas the type sets, and the description of each.
QUOTAS = {
    "gigabytes": "the amount of disk space (in Gigabytes)",
    "volumes": "the number of volumes",
    "backups": "the number of backups",
    "backup_gigabytes": "the amount of backups disk space (in Gigabytes)",
    "snapshots": "the number of snapshots",
}
_SINCE = {"backups": "16.0.0", "backup_gigabytes": "16.0.0"}


def _quota(name: str) -> PropertySchema:
    return PropertySchema(
        Type.INTEGER,
        f"Quota for {QUOTAS[name]}. Setting the value to -1 removes the limit.",
        constraints=(Range(min=-1),),
        update_allowed=True,
        support_status=SupportStatus(version=_SINCE.get(name)),
    )


class Quota(ResourcePlugin):
    """``OS::Cinder::Quota``.

    Create and update set the given quotas of the project (refusing one below what the
    project already uses, as Heat does); delete reverts the project to the defaults. The
    physical id is a name of the resource's own (a quota set has no id).
    """

    support_status = SupportStatus(version="7.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "project": PropertySchema(
            Type.STRING,
            "OpenStack Keystone Project.",
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
        cinder = cloud_access(ctx).client("cinder")
        current = cinder.call(lambda conn: conn.block_storage.get_quota_set(project, usage=True))
        _check_usage(ctx, quotas, current.usage or {})
        cinder.call(lambda conn: conn.block_storage.update_quota_set(project, **quotas))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None or not props.get("project"):
            return None
        project = find(ctx, "keystone.project", props["project"])
        cinder = cloud_access(ctx).client("cinder")
        cinder.call(lambda conn: conn.block_storage.revert_quota_set(project))
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        project = find(ctx, "keystone.project", props["project"])
        cinder = cloud_access(ctx).client("cinder")
        cinder.call(lambda conn: conn.block_storage.get_quota_set(project))
        return None


def _check_usage(
    ctx: ResourceContext, quotas: Mapping[str, int], usage: Mapping[str, Any]
) -> None:
    """Refuse a limit below what the project uses already (-1 is no limit)."""
    for name, limit in quotas.items():
        used = int(usage.get(name) or 0)
        if limit != -1 and limit < used:
            raise PluginError(
                f"Invalid quota {name} value(s): {limit}. Can not be less than the current "
                f"usage value(s): {used}.",
                resource=ctx.resource_name,
            )
