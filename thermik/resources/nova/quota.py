"""``OS::Nova::Quota``: a project's Nova quotas (Nova keeps them to administrators)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.resources.quota_set import QuotaSet, project_property, quota_properties
from thermik.resources.schema import PropertiesSchema, SupportStatus

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


class Quota(QuotaSet):
    """``OS::Nova::Quota``.

    Create and update set the given quotas of the project (Nova refuses a limit below what
    the project uses); delete reverts the project to the defaults. The physical id is a
    name of the resource's own (a quota set has no id); setting quotas again is harmless,
    so a create an engine crash interrupted simply runs again.
    """

    support_status = SupportStatus(version="8.0.0")
    service = "nova"
    quotas = QUOTAS
    properties_schema: ClassVar[PropertiesSchema] = {
        "project": project_property("Name or id of the project to set the quota for."),
        **quota_properties(QUOTAS),
    }

    def apply(self, conn: Any, project: str, quotas: Mapping[str, Any]) -> None:
        conn.compute.update_quota_set(project, **quotas)

    def revert(self, conn: Any, project: str) -> None:
        conn.compute.revert_quota_set(project)

    def read(self, conn: Any, project: str) -> Any:
        return conn.compute.get_quota_set(project)
