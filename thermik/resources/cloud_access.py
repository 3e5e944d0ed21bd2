"""What cloud resource plugins need from the engine: clients acting as the stack's user.

A plugin of a cloud type (``OS::Nova::Server``, ``OS::Neutron::Net`` ...) finds the stack's
:class:`CloudAccess` on its context with :func:`cloud_access`. The access is bound to one stack
and one traversal: its clients carry the stack's credential (a Keystone trust in service mode,
the ``clouds.yaml`` cloud in local mode) and its :meth:`CloudAccess.find` resolves names to ids
once per traversal, however many resources name the same image, flavor or network.

Plugins never import openstacksdk: they call ``access.client("neutron").call(lambda conn:
conn.network.create_network(...))``; the client maps every failure to
:class:`~thermik.errors.CloudError` and retries what may be retried.

No orphans: a create that an engine crash interrupts between the cloud call and the database
write is run again by the next engine. :func:`create_once` makes that second run find the
resource the first one made (by the :func:`creation_tag` it carries) instead of making another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from thermik.clients.calls import CloudClient, once
from thermik.clients.rounds import PollRounds
from thermik.errors import CloudNoAnswer, CloudUnavailable, PluginError
from thermik.resources.context import ResourceContext

#: Resource data key holding the tag of a create that was started (and maybe not finished).
CREATE_STARTED_KEY = "cloud_create_tag"
#: Resource data key holding when a create request got no answer at all (a timeout, a
#: dropped connection): the cloud may still be making what it asked for.
ANSWER_LOST_KEY = "cloud_create_lost"
#: Seconds after a create request got no answer during which a create run again only looks
#: for what the first request made (by its tag) and waits, rather than asking again: a slow
#: service may be serving its queue of requests, that one among them.
ANSWER_GRACE = 180.0
#: Prefix of every creation tag, so tags Thermik put on cloud resources are recognisable.
TAG_PREFIX = "thermik-"


@runtime_checkable
class CloudAccess(Protocol):
    """The cloud as one stack's resources reach it, during one traversal."""

    def client(self, service: str) -> CloudClient:
        """The client of ``service`` (Heat's names: nova, neutron, glance, cinder, keystone),
        authenticated as the stack's user.

        Raises:
            CloudError: the credential cannot be used (expired trust, unknown cloud).
        """
        ...

    def find(self, kind: str, value: str) -> str:
        """The id of the ``kind`` thing named (or identified by) ``value``; cached for the
        traversal.

        ``kind`` is a custom constraint name: ``glance.image``, ``nova.flavor``,
        ``nova.keypair``, ``neutron.network``, ``neutron.subnet``, ``neutron.port``,
        ``neutron.router``, ``neutron.security_group`` ... (see
        :mod:`thermik.clients.lookups`).

        Raises:
            CloudGone: nothing of that kind has that name or id (message in Heat's words:
                ``The Image (cirros) could not be found.``).
            CloudError: the look-up itself failed (several match: a CloudFault).
        """
        ...

    def rounds(self, kind: str) -> PollRounds:
        """The rounds in which waits on ``kind`` things (``nova.server``) of the traversal
        are answered together, one list call per round (see :mod:`thermik.clients.rounds`)."""
        ...


class CloudAccessProvider(Protocol):
    """The engine's source of :class:`CloudAccess`: one per stack tree and traversal."""

    def for_traversal(self, root_id: str, traversal_id: str) -> CloudAccess:
        """The access of a traversal of the stack tree rooted at ``root_id`` (nested stacks
        act with their root's credential)."""
        ...


def cloud_access(ctx: ResourceContext) -> CloudAccess:
    """The cloud access of ``ctx``, or a clear error naming the resource."""
    found = getattr(ctx, "cloud", None)
    if not isinstance(found, CloudAccess):
        raise PluginError(
            f"{ctx.resource_type} needs an OpenStack cloud, and this engine has none: run "
            "thermik with --os-cloud NAME (or the OS_* variables), or configure the service's "
            "[clients] and Keystone options",
            resource=ctx.resource_name,
        )
    return found


def find(ctx: ResourceContext, kind: str, value: str) -> str:
    """The id of the ``kind`` thing ``value`` names, for ``ctx``'s stack (see
    :meth:`CloudAccess.find`)."""
    return cloud_access(ctx).find(kind, value)


def creation_tag(ctx: ResourceContext) -> str:
    """The tag a cloud resource of this resource version carries from its create call on.

    Unique per stack and version, at most 60 characters (Nova's limit for server tags), free of
    ``/`` and ``,``.
    """
    return f"{TAG_PREFIX}{ctx.stack.id}-{ctx.version_id}"


def create_once(
    ctx: ResourceContext,
    find: Callable[[str], str | None],
    create: Callable[[str], str],
) -> str:
    """Create the cloud resource of ``ctx`` once, however often the engine runs the create.

    ``create(tag)`` makes the resource carrying ``tag`` (as a tag, in its name or metadata) and
    returns its id; ``find(tag)`` returns the id of the resource carrying ``tag``, if any. The
    tag is recorded (durably) before the create call: a create that finds it recorded was
    interrupted, and looks for what its first run made before making anything. An
    uninterrupted create costs the cloud no look-up.

    A create request that got no answer (timed out) may still be served: for
    :data:`ANSWER_GRACE` seconds after that, a create run again that does not find the
    resource yet raises :class:`CloudUnavailable` (the engine waits and runs it again) rather
    than ask a second time, so a slow cloud never gets a duplicate.
    """
    tag = creation_tag(ctx)
    if ctx.data.get(CREATE_STARTED_KEY) == tag:
        existing = find(tag)
        if existing is not None:
            return existing
        _wait_for_lost_answer(ctx)
    else:
        ctx.data.set(CREATE_STARTED_KEY, tag)
    try:
        with once():
            return create(tag)
    except CloudNoAnswer:
        ctx.data.set(ANSWER_LOST_KEY, repr(ctx.clock.now()))
        raise


def _wait_for_lost_answer(ctx: ResourceContext) -> None:
    lost = ctx.data.get(ANSWER_LOST_KEY)
    if lost is None:
        return
    if ctx.clock.now() - float(lost) < ANSWER_GRACE:
        raise CloudUnavailable(
            f"{ctx.resource_type} {ctx.resource_name}: the cloud has not answered its create "
            "request, and does not show what it made yet; waiting for it before asking again"
        )
    ctx.data.delete(ANSWER_LOST_KEY)
