"""The quota types of several services (``OS::Nova::Quota``, ``OS::Neutron::Quota``,
``OS::Cinder::Quota``): a project's limits in one service, set on create and update and
reverted to the defaults on delete.

A quota set has no id of its own, so the physical id is a name of the resource's own; setting
quotas again is harmless, so a create an engine crash interrupted simply runs again. The
services differ only in their calls, which the subclasses give.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import PropertyError
from thermik.resources.cloud_access import cloud_access, find
from thermik.resources.constraints import CustomConstraint, Range
from thermik.resources.context import ResourceContext, ValidationContext, physical_resource_name
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import PropertySchema, Type


def project_property(description: str) -> PropertySchema:
    """The ``project`` property every quota type has."""
    return PropertySchema(
        Type.STRING,
        description,
        required=True,
        constraints=(CustomConstraint("keystone.project"),),
    )


def quota_properties(quotas: Mapping[str, str]) -> dict[str, PropertySchema]:
    """One integer property per quota (``-1``: no limit), ``quotas`` naming what each limits."""
    return {
        name: PropertySchema(
            Type.INTEGER,
            f"Quota for {what}. Setting the value to -1 removes the limit.",
            constraints=(Range(min=-1),),
            update_allowed=True,
        )
        for name, what in quotas.items()
    }


class QuotaSet(ResourcePlugin):
    """A project's quotas in :attr:`service`; subclasses give the service's calls."""

    #: The client layer's name of the service.
    service: ClassVar[str]
    #: The quotas the type sets, and what each limits.
    quotas: ClassVar[Mapping[str, str]]

    def apply(self, conn: Any, project: str, quotas: Mapping[str, Any]) -> None:
        """Set ``quotas`` of ``project``."""
        raise NotImplementedError

    def revert(self, conn: Any, project: str) -> None:
        """Put ``project`` back to the defaults."""
        raise NotImplementedError

    def read(self, conn: Any, project: str) -> Any:
        """The quota set of ``project`` (a check that it can be read)."""
        raise NotImplementedError

    def before_set(
        self, ctx: ResourceContext, client: CloudClient, project: str, quotas: Mapping[str, Any]
    ) -> None:
        """A service's own check before the quotas are set (none by default)."""

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        if all(props.get(name) is None for name in self.quotas):
            raise PropertyError(
                "At least one of the following properties must be specified: "
                + ", ".join(sorted(self.quotas)),
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

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None or not props.get("project"):
            return None
        project = find(ctx, "keystone.project", props["project"])
        cloud_access(ctx).client(self.service).call(lambda conn: self.revert(conn, project))
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        project = find(ctx, "keystone.project", props["project"])
        cloud_access(ctx).client(self.service).call(lambda conn: self.read(conn, project))
        return None

    def _set(self, ctx: ResourceContext, props: Props) -> None:
        project = find(ctx, "keystone.project", props["project"])
        quotas = {name: props[name] for name in self.quotas if props.get(name) is not None}
        client = cloud_access(ctx).client(self.service)
        self.before_set(ctx, client, project, quotas)
        client.call(lambda conn: self.apply(conn, project, quotas))
