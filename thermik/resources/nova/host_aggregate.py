"""``OS::Nova::HostAggregate``: a Nova host aggregate (for administrators).

Every property changes in place: the name and availability zone by an update of the
aggregate, the hosts by adding and removing the difference, the metadata by setting the
new keys and clearing the removed ones. Aggregates carry no tag, but Nova keeps their names
unique: a create that an engine crash interrupted finds what it made by its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.resources.cloud_access import find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type
from thermik.resources.untagged import refused_forgets

#: Resource data key of the aggregate's name, recorded before the create.
NAME_KEY = "physical_name"


class HostAggregate(CloudResource):
    """``OS::Nova::HostAggregate``."""

    service: ClassVar[str] = "nova"
    support_status = SupportStatus(version="6.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING, "Name for the aggregate.", required=True, update_allowed=True
        ),
        "availability_zone": PropertySchema(
            Type.STRING, "Name for the availability zone.", update_allowed=True
        ),
        "hosts": PropertySchema(
            Type.LIST,
            "List of hosts to join aggregate.",
            schema=PropertySchema(Type.STRING, constraints=(CustomConstraint("nova.host"),)),
            update_allowed=True,
        ),
        "metadata": PropertySchema(
            Type.MAP,
            "Arbitrary key/value metadata to store information for aggregate.",
            update_allowed=True,
            default={},
        ),
    }

    def __init__(self) -> None:
        super().__init__()
        #: The name the aggregate of this version was created with, once known.
        self._name: str | None = None

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = ctx.data.get(NAME_KEY) or props["name"]
        ctx.data.set(NAME_KEY, name)
        self._name = name
        fields: dict[str, Any] = {"name": name}
        if props.get("availability_zone"):
            fields["availability_zone"] = props["availability_zone"]
        made = refused_forgets(
            ctx,
            [NAME_KEY],
            lambda: self.create_tagged(
                ctx,
                lambda tag: self.call(
                    ctx, lambda conn: conn.compute.create_aggregate(**fields), idempotent=False
                ),
            ),
        )
        ctx.set_physical_id(str(made.id))
        self._hosts(ctx, made, self._wanted_hosts(ctx, props.get("hosts")))
        self._metadata(ctx, dict(made.metadata or {}), props.get("metadata") or {})
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        physical_id = ctx.physical_id
        fields = {k: new_props.get(k) for k in ("name", "availability_zone") if k in changed}
        if fields:
            self.call(ctx, lambda conn: conn.compute.update_aggregate(physical_id, **fields))
            if "name" in fields:
                ctx.data.set(NAME_KEY, str(fields["name"]))
        current = self.refresh(ctx)
        if "hosts" in changed:
            self._hosts(ctx, current, self._wanted_hosts(ctx, new_props.get("hosts")))
        if "metadata" in changed:
            self._metadata(ctx, dict(current.metadata or {}), new_props.get("metadata") or {})
        return None

    def _wanted_hosts(self, ctx: ResourceContext, hosts: Iterable[str] | None) -> set[str]:
        return {find(ctx, "nova.host", host) for host in hosts or []}

    def _hosts(self, ctx: ResourceContext, aggregate: Any, wanted: set[str]) -> None:
        """Add the hosts ``wanted`` that the aggregate lacks, remove those it should not have."""
        have = set(aggregate.hosts or [])
        aggregate_id = aggregate.id
        self.call_each(
            ctx,
            sorted(wanted - have),
            lambda conn, host: conn.compute.add_host_to_aggregate(aggregate_id, host),
        )
        self.call_each(
            ctx,
            sorted(have - wanted),
            lambda conn, host: conn.compute.remove_host_from_aggregate(aggregate_id, host),
        )

    def _metadata(
        self, ctx: ResourceContext, have: Mapping[str, Any], wanted: Mapping[str, Any]
    ) -> None:
        """Set ``wanted``'s keys and clear the others (Nova's own availability_zone key is
        the availability_zone property's)."""
        sent: dict[str, Any] = {k: str(v) for k, v in wanted.items() if have.get(k) != str(v)}
        sent.update({k: None for k in have if k not in wanted and k != "availability_zone"})
        if sent:
            assert ctx.physical_id is not None
            physical_id = ctx.physical_id
            self.call(ctx, lambda conn: conn.compute.set_aggregate_metadata(physical_id, sent))

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        self._name = ctx.data.get(NAME_KEY)
        return super().physical_or_orphan(ctx)

    def created_with(self, client: CloudClient, tag: str) -> Any:
        name = self._name
        if name is None:
            return None
        return client.call(
            lambda conn: next((a for a in conn.compute.aggregates() if a.name == name), None)
        )

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.compute.get_aggregate(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        def remove(conn: Any) -> None:
            aggregate = conn.compute.get_aggregate(physical_id)
            for host in aggregate.hosts or []:
                conn.compute.remove_host_from_aggregate(physical_id, host)
            conn.compute.delete_aggregate(physical_id, ignore_missing=False)

        client.call(remove)
