"""``OS::Neutron::ExtraRouteSet``: routes added to a router, beside those others added.

It needs Neutron's ``extraroute-atomic`` extension: routes are added and removed as sets, so
several resources (and other users) can route through one router without overwriting each
other's routes. Its physical id is the router's id, as Heat's is. Adding routes a router has
already is harmless, so a create an engine crash interrupted simply runs again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import PluginError
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.neutron.common import resolve
from thermik.resources.neutron.implied import extra_route_set_requirements
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type
from thermik.resources.stack_view import StackView

ROUTE = PropertySchema(
    Type.MAP,
    schema={
        "destination": PropertySchema(
            Type.STRING,
            "The destination network in CIDR notation.",
            required=True,
            constraints=(CustomConstraint("net_cidr"),),
        ),
        "nexthop": PropertySchema(
            Type.STRING,
            "The next hop for the destination.",
            required=True,
            constraints=(CustomConstraint("ip_addr"),),
        ),
    },
)


def _routes(routes: Iterable[Mapping[str, Any]] | None) -> set[tuple[str, str]]:
    return {(str(r["destination"]), str(r["nexthop"])) for r in routes or []}


def _body(routes: Iterable[tuple[str, str]]) -> dict[str, Any]:
    return {"router": {"routes": [{"destination": d, "nexthop": n} for d, n in sorted(routes)]}}


class ExtraRouteSet(CloudResource):
    """``OS::Neutron::ExtraRouteSet``."""

    service: ClassVar[str] = "neutron"
    support_status = SupportStatus(version="14.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "router": PropertySchema(
            Type.STRING,
            "The router id.",
            required=True,
            constraints=(CustomConstraint("neutron.router"),),
        ),
        "routes": PropertySchema(
            Type.LIST,
            "A set of route dictionaries for the router.",
            schema=ROUTE,
            default=[],
            update_allowed=True,
        ),
    }

    @classmethod
    def implied_requirements(cls, name: str, stack: StackView) -> Iterable[str]:
        return extra_route_set_requirements(name, stack)

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        router = resolve(ctx, "neutron.router", props["router"])
        ctx.set_physical_id(router)
        self._send(ctx, "add_extra_routes_to_router", _routes(props.get("routes")))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        old, new = _routes(old_props.get("routes")), _routes(new_props.get("routes"))
        self._send(ctx, "remove_extra_routes_from_router", old - new)
        self._send(ctx, "add_extra_routes_to_router", new - old)
        return None

    def _send(self, ctx: ResourceContext, method: str, routes: set[tuple[str, str]]) -> None:
        assert ctx.physical_id is not None
        router = ctx.physical_id
        if routes:
            self.call(ctx, lambda conn: getattr(conn.network, method)(router, _body(routes)))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None:
            return None
        routes = _routes(props.get("routes"))
        try:
            self._send(ctx, "remove_extra_routes_from_router", routes)
        except PluginError as error:
            if getattr(error, "status", None) != 404:
                raise
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        super().check(ctx, props)
        missing = _routes(props.get("routes")) - _routes(self._seen.routes)
        if missing:
            raise PluginError(
                f"Router {ctx.physical_id} lacks the routes "
                + ", ".join(f"{d} via {n}" for d, n in sorted(missing)),
                resource=ctx.resource_name,
            )
        return None

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.network.get_router(physical_id))
