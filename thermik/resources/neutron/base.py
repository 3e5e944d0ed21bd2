"""The base of Neutron's resource types that map to one Neutron object each.

:class:`NeutronResource` names the object's kind once (:attr:`NeutronResource.kind`, as
openstacksdk names its methods: ``create_subnet``, ``get_subnet``, ``subnets`` ...) and gives
the types what they share: a create that carries its creation tag in its description (found
again by it, see :meth:`CloudResource.create_tagged`), user tags set after it,
an update that sends only what changed, fetch and delete, a wait while Neutron reports
``BUILD``, and Heat's ``name`` rule (no name: the physical resource name).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import PluginError
from thermik.resources.cloud_resource import CloudResource, backoff
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.neutron.common import first, set_user_tags
from thermik.resources.neutron.renamed import RenamedProperties
from thermik.resources.plugin import CheckResult, Progress, Props

#: Statuses of a Neutron object that is ready to use.
READY = ("ACTIVE", "DOWN")
#: Statuses of a Neutron object that failed.
FAILED = ("ERROR", "DEGRADED")


class NeutronResource(RenamedProperties, CloudResource):
    """A resource type backed by one Neutron object of :attr:`kind`."""

    service: ClassVar[str] = "neutron"
    #: The object's name in openstacksdk's method names (``subnet``, ``port``, ``ip`` ...).
    kind: ClassVar[str]
    #: The plural openstacksdk lists it with (``subnets``, ``ports``, ``ips`` ...).
    plural: ClassVar[str]
    #: Whether the object has a status to wait on after create and update.
    has_status: ClassVar[bool] = False
    #: Old property names Heat still takes (hidden), and the names they moved to.
    renamed_properties: ClassVar[Mapping[str, str]] = {}

    def name_of(self, ctx: ResourceContext, props: Props) -> str:
        """The object's name: the ``name`` property, else the physical resource name."""
        return str(props.get("name") or physical_resource_name(ctx))

    def named(self, ctx: ResourceContext, props: Props, changed: frozenset[str]) -> dict[str, Any]:
        """The update fields of a changed ``name`` and ``description`` (an unset description
        clears Neutron's)."""
        fields: dict[str, Any] = {}
        if "name" in changed:
            fields["name"] = self.name_of(ctx, props)
        if "description" in changed:
            fields["description"] = props.get("description") or ""
        return fields

    def make(self, ctx: ResourceContext, props: Props, fields: Mapping[str, Any]) -> Any:
        """Create the object with ``fields`` once (its creation tag in the description),
        record its id, set the user's tags, and remember what Neutron answered."""
        create = f"create_{self.kind}"
        made = self.create_tagged(
            ctx,
            lambda tag: self.call(
                ctx, lambda conn: getattr(conn.network, create)(**fields, description=tag)
            ),
        )
        ctx.set_physical_id(made.id)
        if props.get("tags"):
            made = self.call(ctx, lambda conn: set_user_tags(conn, made, props["tags"]))
        return self.seen(made)

    def created_with(self, client: CloudClient, tag: str) -> Any:
        listing = self.plural
        return first(
            client.call(lambda conn: list(getattr(conn.network, listing)(description=tag)))
        )

    def change(
        self,
        ctx: ResourceContext,
        fields: Mapping[str, Any],
        tags: list[str] | None = None,
        *,
        set_tags: bool = False,
    ) -> None:
        """Send an update of ``fields`` (when there are any), then the user's ``tags`` (when
        ``set_tags``)."""
        assert ctx.physical_id is not None
        physical_id = ctx.physical_id
        if fields:
            update = f"update_{self.kind}"
            self.seen(
                self.call(ctx, lambda conn: getattr(conn.network, update)(physical_id, **fields))
            )
        if set_tags:
            current = self.current(ctx)
            self.seen(self.call(ctx, lambda conn: set_user_tags(conn, current, tags)))

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        get = f"get_{self.kind}"
        return client.call(lambda conn: getattr(conn.network, get)(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        delete = f"delete_{self.kind}"
        client.call(lambda conn: getattr(conn.network, delete)(physical_id, ignore_missing=False))

    # -- waiting on BUILD -----------------------------------------------------------------------

    def built(self, ctx: ResourceContext) -> Progress | None:
        """``None`` when what Neutron answered last is ready, else a progress to poll."""
        if not self.has_status or self._ready(ctx, self.current(ctx)):
            return None
        return Progress({"building": True})

    def _ready(self, ctx: ResourceContext, found: Any) -> bool:
        status = str(getattr(found, "status", "") or "").upper()
        if status in FAILED:
            raise PluginError(
                f'Went to status {status} due to "{ctx.resource_type} {ctx.resource_name} '
                'is in an error state"',
                resource=ctx.resource_name,
            )
        return status in READY or not status

    def _poll(self, ctx: ResourceContext, progress: Progress | None) -> CheckResult:
        if progress is None:
            return True
        return True if self._ready(ctx, self.refresh(ctx)) else backoff(progress)

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._poll(ctx, progress)

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._poll(ctx, progress)


def renamed(values: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """``values`` with the keys ``names`` maps renamed (Heat's property names to Neutron's)."""
    return {names.get(k, k): v for k, v in values.items()}


def without_none(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without the keys whose value is ``None`` (unset optional sub-properties)."""
    return {k: v for k, v in values.items() if v is not None}
