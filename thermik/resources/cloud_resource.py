"""The base of resource types whose physical resource lives in one cloud service.

:class:`CloudResource` gives such a type what every one of them needs, so that a plugin only
says how to create, fetch, update and remove its kind of thing:

* the service's client, acting as the stack's user (:meth:`CloudResource.client`);
* delete that treats "already gone" as done, and waits (polling with backoff) for types whose
  deletion the cloud finishes later (:attr:`CloudResource.delete_waits`);
* no orphans: a version whose create an engine crash interrupted may have made its resource
  without the engine learning its id; delete finds it by its creation tag
  (:meth:`CloudResource.created_with`) and deletes it, so neither the version's retry nor its
  replacement leaves the first one behind;
* check that fails with the cloud's answer when the resource went missing out of band (also
  how a resource with an ``external_id`` finds the physical resource it adopts: the engine
  sets that id as the physical id and checks it, so an id naming nothing fails the create);
* attributes read from one fetch of the resource: a plugin instance serves one call, so the
  object the last poll of an action fetched also answers the attributes asked right after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone, PluginError
from thermik.resources.cloud_access import CREATE_STARTED_KEY, cloud_access, create_once
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import (
    CheckResult,
    Operation,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
)
from thermik.resources.schema import SHOW_ATTRIBUTE

T = TypeVar("T")

#: Polls of a wait on the cloud start this far apart and back off to :data:`MAX_POLL`.
FIRST_POLL = 0.5
MAX_POLL = 8.0
#: Progress key of the number of polls so far (the backoff's exponent).
POLLS = "polls"


def backoff(progress: Progress | None) -> PollAfter:
    """The next wait of a poll loop: 0.5 s doubling to 8 s, counted in the progress."""
    polls = int((progress.state if progress else {}).get(POLLS, 0))
    state = dict(progress.state) if progress else {}
    state[POLLS] = polls + 1
    return PollAfter(min(FIRST_POLL * 2**polls, MAX_POLL), Progress(state))


class CloudResource(ResourcePlugin):
    """A resource type backed by one cloud service (see the module docstring).

    Subclasses set :attr:`service` and implement :meth:`fetch` and :meth:`remove`, and
    :meth:`attributes_of` for their attributes.
    """

    #: The service's name as Heat names its client: nova, neutron, glance, cinder, keystone.
    service: ClassVar[str]
    #: Whether a delete waits until :meth:`fetch` reports the resource gone.
    delete_waits: ClassVar[bool] = False

    def __init__(self) -> None:
        #: The last state of the physical resource this call fetched or made.
        self._seen: Any = None

    # -- what subclasses implement ----------------------------------------------------------

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        """The physical resource (an openstacksdk resource); raises CloudGone when missing."""
        raise NotImplementedError

    def remove(self, client: CloudClient, physical_id: str) -> None:
        """Ask the cloud to delete the physical resource."""
        raise NotImplementedError

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        """The attribute values of a fetched physical resource."""
        return {}

    def created_with(self, client: CloudClient, tag: str) -> Any:
        """The physical resource that carries creation tag ``tag``, or ``None``.

        Types whose create sends the tag (see :func:`create_once`) implement it; the default
        finds nothing (the type cannot be orphaned, or cannot tell).
        """
        return None

    # -- shared behaviour ---------------------------------------------------------------------

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        """A create runs again when the type finds what an interrupted create made (it
        implements :meth:`created_with`); a delete always may (gone is done)."""
        if operation is Operation.DELETE:
            return True
        return operation is Operation.CREATE and cls.created_with is not CloudResource.created_with

    def client(self, ctx: ResourceContext) -> CloudClient:
        """The client of :attr:`service`, as the stack's user."""
        return cloud_access(ctx).client(self.service)

    def call(
        self, ctx: ResourceContext, action: Callable[[Any], T], *, idempotent: bool = True
    ) -> T:
        """``action(connection)`` through the service's client (mapped errors, retries)."""
        return self.client(ctx).call(action, idempotent=idempotent)

    def call_each(
        self, ctx: ResourceContext, items: Iterable[T], action: Callable[[Any, T], object]
    ) -> None:
        """``action(connection, item)`` for each item, one call each (retried on its own)."""
        for item in items:
            self._call_one(ctx, action, item)

    def _call_one(self, ctx: ResourceContext, action: Callable[[Any, T], object], item: T) -> None:
        self.call(ctx, lambda conn: action(conn, item))

    def seen(self, found: T) -> T:
        """Remember ``found`` as the resource's latest state (for the attributes)."""
        self._seen = found
        return found

    def current(self, ctx: ResourceContext) -> Any:
        """The physical resource: what this call saw last, else fetched now."""
        if self._seen is None:
            if ctx.physical_id is None:
                return None
            self._seen = self.fetch(self.client(ctx), ctx.physical_id)
        return self._seen

    def refresh(self, ctx: ResourceContext) -> Any:
        """The physical resource, fetched now."""
        self._seen = None
        return self.current(ctx)

    def create_tagged(self, ctx: ResourceContext, make: Callable[[str], Any]) -> Any:
        """Create once (see :func:`create_once`): ``make(tag)`` creates the resource carrying
        ``tag``; a create an engine crash interrupted finds the first one's with
        :meth:`created_with` instead. Returns the resource (as made or found)."""
        made: list[Any] = []

        def find(tag: str) -> str | None:
            found = self.created_with(self.client(ctx), tag)
            made[:] = [found] if found is not None else []
            return None if found is None else str(found.id)

        def new(tag: str) -> str:
            made[:] = [make(tag)]
            return str(made[0].id)

        create_once(ctx, find, new)
        return self.seen(made[0])

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        """The physical id; for a version without one whose create was started, the id of
        what that create made (found by its creation tag), if anything."""
        if ctx.physical_id is not None:
            return ctx.physical_id
        tag = ctx.data.get(CREATE_STARTED_KEY)
        if tag is None:
            return None
        found = self.created_with(self.client(ctx), tag)
        return None if found is None else str(found.id)

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        physical_id = self.physical_or_orphan(ctx)
        if physical_id is None:
            return None
        try:
            self.remove(self.client(ctx), physical_id)
        except CloudGone:
            return None
        return Progress({"waiting": physical_id}) if self.delete_waits else None

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        physical_id = (progress.state if progress else {}).get("waiting")
        if not isinstance(physical_id, str):
            return True
        try:
            self.fetch(self.client(ctx), physical_id)
        except CloudGone:
            return True
        return backoff(progress)

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None:
            raise PluginError(
                f"{ctx.resource_type} {ctx.resource_name} has no physical resource",
                resource=ctx.resource_name,
            )
        self.refresh(ctx)
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        if ctx.physical_id is None:
            return None
        try:
            found = self.current(ctx)
        except CloudGone:
            return None
        if name == SHOW_ATTRIBUTE:
            return _as_dict(found)
        return self.attributes_of(found).get(name)


def _as_dict(found: Any) -> Any:
    to_dict = getattr(found, "to_dict", None)
    if callable(to_dict):
        return to_dict(computed=False)
    return found
