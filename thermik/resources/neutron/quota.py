"""``OS::Neutron::Quota``: a project's Neutron quotas (Neutron keeps them to administrators)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.resources.quota_set import QuotaSet, project_property, quota_properties
from thermik.resources.schema import PropertiesSchema, SupportStatus

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


class Quota(QuotaSet):
    """``OS::Neutron::Quota``.

    Create and update set the given quotas of the project (Neutron refuses a limit below
    what the project uses); delete reverts the project to the defaults. The physical id is
    a name of the resource's own (a quota set has no id); setting quotas again is harmless,
    so a create an engine crash interrupted simply runs again.
    """

    support_status = SupportStatus(version="8.0.0")
    service = "neutron"
    quotas = QUOTAS
    properties_schema: ClassVar[PropertiesSchema] = {
        "project": project_property("Name or id of the project to set the quota for."),
        **quota_properties(QUOTAS),
    }

    def apply(self, conn: Any, project: str, quotas: Mapping[str, Any]) -> None:
        conn.network.update_quota(project, **quotas)

    def revert(self, conn: Any, project: str) -> None:
        conn.network.delete_quota(project, ignore_missing=True)

    def read(self, conn: Any, project: str) -> Any:
        return conn.network.get_quota(project)
