"""The base of the Keystone types that map to one Keystone object each.

:class:`KeystoneResource` names the object's kind once (as openstacksdk names its methods:
``create_project``, ``get_project``, ``projects`` ...) and gives the types what they share:
fetch and delete, an update that sends only what changed, Heat's ``name`` rule (no name: the
physical resource name), and no orphans. Keystone objects carry no tag, but a name is unique
(in its domain): the create records what it will make before making it, so that a create an
engine crash interrupted, or the delete of its version, finds the object by that name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.keystone import identity
from thermik.errors import CloudError
from thermik.resources.cloud_access import CREATE_STARTED_KEY, create_once
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import Operation, Props
from thermik.resources.schema import SUPPORTED, PropertySchema, SupportStatus, Type

#: Resource data key of the fields a started create's object is found by (JSON).
CREATED_AS = "keystone_created_as"
#: Every Keystone type is for Keystone's v3 API, as Heat says.
V3_ONLY = "Supported versions: keystone v3"


def keystone_support(version: str) -> SupportStatus:
    """Heat's support status of a Keystone type added in ``version``."""
    return SupportStatus(version=version, message=V3_ONLY)


def domain_property(
    description: str, *, update_allowed: bool = True, support_status: SupportStatus = SUPPORTED
) -> PropertySchema:
    """The ``domain`` property of the types that live in a domain (default: ``default``)."""
    return PropertySchema(
        Type.STRING,
        description,
        default="default",
        update_allowed=update_allowed,
        constraints=(CustomConstraint("keystone.domain"),),
        support_status=support_status,
    )


class KeystoneResource(CloudResource):
    """A resource type backed by one Keystone object of :attr:`kind`."""

    service: ClassVar[str] = "keystone"
    #: The object's name in openstacksdk's method names (``project``, ``user`` ...).
    kind: ClassVar[str]
    #: The plural openstacksdk lists it with (``projects``, ``users`` ...).
    plural: ClassVar[str]
    #: The listing filters Keystone applies itself among the fields of :data:`CREATED_AS`.
    server_filters: ClassVar[tuple[str, ...]] = ("name",)

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        return operation in (Operation.CREATE, Operation.DELETE)

    def name_of(self, ctx: ResourceContext, props: Props) -> str:
        """The object's name: the ``name`` property, else the physical resource name."""
        return str(props.get("name") or physical_resource_name(ctx))

    def make(
        self, ctx: ResourceContext, fields: Mapping[str, Any], found_by: Mapping[str, Any] | None
    ) -> Any:
        """Create the object with ``fields`` once, findable by the fields ``found_by`` (unless
        ``None``: nothing tells it apart); record its id and remember what Keystone answered."""
        if found_by:
            ctx.data.set(CREATED_AS, json.dumps(dict(found_by)))
        create = f"create_{self.kind}"
        made: list[Any] = []

        def find(tag: str) -> str | None:
            found = self.orphan(ctx)
            made[:] = [found] if found is not None else []
            return None if found is None else str(found.id)

        def new(tag: str) -> str:
            try:
                made[:] = [
                    self.call(
                        ctx,
                        lambda conn: getattr(identity(conn), create)(**fields),
                        idempotent=False,
                    )
                ]
            except CloudError as error:
                if error.status is not None and 400 <= error.status < 500:
                    # Keystone refused: nothing was made, so nothing is to be looked for
                    # (a member may not even list what it may not make).
                    ctx.data.delete(CREATED_AS)
                raise
            return str(made[0].id)

        ctx.set_physical_id(create_once(ctx, find, new))
        return self.seen(made[0])

    def orphan(self, ctx: ResourceContext) -> Any:
        """What a started create made, found by the fields it recorded, or ``None``."""
        recorded = ctx.data.get(CREATED_AS)
        if recorded is None:
            return None
        wanted: dict[str, Any] = json.loads(recorded)
        query = {k: v for k, v in wanted.items() if k in self.server_filters}
        listing = self.plural
        found = self.call(ctx, lambda conn: list(getattr(identity(conn), listing)(**query)))
        return next(
            (o for o in found if all(getattr(o, k, None) == v for k, v in wanted.items())), None
        )

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        if ctx.physical_id is not None:
            return ctx.physical_id
        if ctx.data.get(CREATE_STARTED_KEY) is None:
            return None
        found = self.orphan(ctx)
        return None if found is None else str(found.id)

    def change(self, ctx: ResourceContext, fields: Mapping[str, Any]) -> None:
        """Send an update of ``fields``, when there are any (Keystone refuses an empty one)."""
        if not fields:
            return
        assert ctx.physical_id is not None
        physical_id, update = ctx.physical_id, f"update_{self.kind}"
        self.seen(
            self.call(ctx, lambda conn: getattr(identity(conn), update)(physical_id, **fields))
        )

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        get = f"get_{self.kind}"
        return client.call(lambda conn: getattr(identity(conn), get)(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        delete = f"delete_{self.kind}"
        client.call(
            lambda conn: getattr(identity(conn), delete)(physical_id, ignore_missing=False)
        )


def renamed(changed: frozenset[str], props: Props, names: Mapping[str, str]) -> dict[str, Any]:
    """The changed properties among ``names`` (Heat's name -> openstacksdk's), with their new
    values."""
    return {sdk: props.get(heat) for heat, sdk in names.items() if heat in changed}
