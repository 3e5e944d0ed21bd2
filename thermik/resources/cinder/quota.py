"""``OS::Cinder::Quota``: a project's Cinder quotas (Cinder keeps them to administrators)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import PluginError
from thermik.resources.context import ResourceContext
from thermik.resources.quota_set import QuotaSet, project_property, quota_properties
from thermik.resources.schema import PropertiesSchema, SupportStatus

#: The quotas the type sets, and the description of each.
QUOTAS = {
    "gigabytes": "the amount of disk space (in Gigabytes)",
    "volumes": "the number of volumes",
    "backups": "the number of backups",
    "backup_gigabytes": "the amount of backups disk space (in Gigabytes)",
    "snapshots": "the number of snapshots",
}


class Quota(QuotaSet):
    """``OS::Cinder::Quota``.

    Create and update set the given quotas of the project (refusing one below what the
    project already uses, as Heat does); delete reverts the project to the defaults. The
    physical id is a name of the resource's own (a quota set has no id).
    """

    support_status = SupportStatus(version="7.0.0")
    service = "cinder"
    quotas = QUOTAS
    properties_schema: ClassVar[PropertiesSchema] = {
        "project": project_property("OpenStack Keystone Project."),
        **quota_properties(QUOTAS),
    }

    def before_set(
        self, ctx: ResourceContext, client: CloudClient, project: str, quotas: Mapping[str, Any]
    ) -> None:
        current = client.call(lambda conn: conn.block_storage.get_quota_set(project, usage=True))
        _check_usage(ctx, quotas, current.usage or {})

    def apply(self, conn: Any, project: str, quotas: Mapping[str, Any]) -> None:
        conn.block_storage.update_quota_set(project, **quotas)

    def revert(self, conn: Any, project: str) -> None:
        conn.block_storage.revert_quota_set(project)

    def read(self, conn: Any, project: str) -> Any:
        return conn.block_storage.get_quota_set(project)


def _check_usage(
    ctx: ResourceContext, quotas: Mapping[str, Any], usage: Mapping[str, Any]
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
