"""Creates of cloud objects that carry no creation tag (Neutron's address scopes and RBAC
policies, Nova's host aggregates, server groups and key pairs, Cinder's volume types).

Such an object is found again after an engine crash by a key recorded before its create (its
name, or what the cloud keeps unique). A create the cloud refused made nothing; that key must
then be forgotten, or the version's delete would take another stack's object of the same key
for its own orphan.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudError
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.context import ResourceContext

T = TypeVar("T")


def refused_forgets(ctx: ResourceContext, keys: Iterable[str], create: Callable[[], T]) -> T:
    """``create()``; when the cloud refuses it (an answer of 4xx), the resource data ``keys``
    are removed before the error goes on."""
    try:
        return create()
    except CloudError as error:
        if error.status is not None and 400 <= error.status < 500:
            for key in keys:
                ctx.data.delete(key)
        raise


def recorded(ctx: ResourceContext, key: str) -> dict[str, Any] | None:
    """The JSON object recorded under resource data ``key`` by :func:`record`, if any."""
    found = ctx.data.get(key)
    return None if found is None else dict(json.loads(found))


def record(ctx: ResourceContext, key: str, value: Mapping[str, Any]) -> dict[str, Any]:
    """Record ``value`` (JSON) durably under resource data ``key``, before the create that a
    resumed create or a delete finds again by it; returns it."""
    ctx.data.set(key, json.dumps(dict(value)))
    return dict(value)


class Keyed(CloudResource):
    """A cloud type whose objects carry no creation tag of their own: a key (a JSON object in
    resource data :attr:`key_name`) recorded before the create finds again what a create an
    engine crash interrupted made, for the resumed create and for the version's delete.

    A type names the key's place, builds the key in its create (:meth:`create_keyed`) and lists
    what matches it (:meth:`listed`); a create the cloud refuses forgets the key.
    """

    #: Resource data key the key is recorded under.
    key_name: ClassVar[str]

    def __init__(self) -> None:
        super().__init__()
        #: The recorded key, once known.
        self._key: Mapping[str, Any] | None = None

    def create_keyed(
        self,
        ctx: ResourceContext,
        key: Callable[[], Mapping[str, Any]],
        make: Callable[[Mapping[str, Any], str], Any],
    ) -> Any:
        """Create once: ``make(key, tag)`` makes the object, with the key recorded (``key()``
        on a first create) before; records the object's id and returns it."""
        found = recorded(ctx, self.key_name) or record(ctx, self.key_name, key())
        self._key = found
        made = refused_forgets(
            ctx, [self.key_name], lambda: self.create_tagged(ctx, lambda tag: make(found, tag))
        )
        ctx.set_physical_id(made.id)
        return made

    def listed(self, conn: Any, key: Mapping[str, Any], tag: str) -> Iterable[Any]:
        """The cloud's objects that match ``key`` (and the creation tag ``tag``, where it
        rides on the object)."""
        raise NotImplementedError

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        self._key = recorded(ctx, self.key_name)
        return super().physical_or_orphan(ctx)

    def created_with(self, client: CloudClient, tag: str) -> Any:
        key = self._key
        if key is None:
            return None
        return next(iter(client.call(lambda conn: list(self.listed(conn, key, tag)))), None)
