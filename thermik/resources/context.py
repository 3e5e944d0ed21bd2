"""What the engine hands a plugin: the resource's identity and its narrow view of the world.

Plugins never reach for globals (configuration, database sessions, the wall clock, the random
module): everything they may touch comes through a :class:`ResourceContext`, so the same plugin
runs under the actor shell (backed by the database) and under a test (backed by a small class
with a fake clock and a seeded random source).
"""

from __future__ import annotations

import dataclasses
import random
import string
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from thermik.errors import PluginError
from thermik.resources.properties import Unresolved, never_unresolved

_SHORT_ID_ALPHABET = string.ascii_lowercase + "234567"
_SHORT_ID_LENGTH = 12
_MAX_PHYSICAL_NAME = 255
#: The longest physical resource id the store keeps (Heat's column is as wide).
MAX_PHYSICAL_ID = 255


@dataclasses.dataclass(frozen=True, slots=True)
class StackIdentity:
    """The stack a resource belongs to."""

    id: str
    name: str
    tenant: str


class ResourceData(Protocol):
    """A resource's private, persisted key/value store (Heat's ``resource_data``).

    Writes must be durable before the engine acts on the action's outcome; ``redact`` marks a
    value that must never be shown (passwords, tokens, signed URLs) and is stored encrypted.
    """

    def get(self, key: str) -> str | None:
        """The value stored under ``key``, or ``None``."""
        ...

    def set(self, key: str, value: str, *, redact: bool = False) -> None:
        """Store ``value`` under ``key``, replacing any previous value."""
        ...

    def delete(self, key: str) -> None:
        """Remove ``key``; removing a missing key is not an error."""
        ...

    def as_dict(self) -> Mapping[str, str]:
        """Every stored key and value."""
        ...


class Clock(Protocol):
    """Time as the plugin may see it; tests drive it by hand."""

    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    def sleep(self, seconds: float) -> None:
        """Block for ``seconds``.

        Only for the rare synchronous wait outside an action (TestResource's ``attr_wait_secs``
        while an attribute is resolved). Actions never sleep: they return from
        ``check_*_complete`` and are polled again.
        """
        ...


class ResourceContext(Protocol):
    """The engine's view of one resource version, passed to every plugin call."""

    @property
    def stack(self) -> StackIdentity:
        """The stack the resource belongs to."""
        ...

    @property
    def resource_name(self) -> str:
        """The resource's logical name in the template."""
        ...

    @property
    def resource_type(self) -> str:
        """The type the resource was instantiated as (an alias may share a plugin class)."""
        ...

    @property
    def version_id(self) -> int:
        """The id of this resource version: unique in the stack, never reused (a replacement
        is a new version)."""
        ...

    @property
    def physical_id(self) -> str | None:
        """The physical resource id, once the plugin has set one."""
        ...

    def set_physical_id(self, physical_id: str | None) -> None:
        """Record the physical resource id; the engine persists it with the action's outcome.

        A string, or ``None``; an integer is stored as its decimal text; anything else (or
        an id longer than :data:`MAX_PHYSICAL_ID`) raises ``PluginError``, failing the
        resource (see :func:`checked_physical_id`).
        """
        ...

    @property
    def data(self) -> ResourceData:
        """The resource's private key/value store."""
        ...

    @property
    def clock(self) -> Clock:
        """The clock to measure waits against."""
        ...

    @property
    def random(self) -> random.Random:
        """The random source for generated values (seeded in tests)."""
        ...

    def peer_data(self, reference_id: str) -> Mapping[str, str] | None:
        """The data of the resource of the same stack whose reference id (what
        ``get_resource`` returns) is ``reference_id``, read-only; ``None`` if there is none.

        For types that cooperate with another resource (a wait condition reads the signals
        its handle received).
        """
        ...


@dataclasses.dataclass(frozen=True, slots=True)
class ValidationContext:
    """What a plugin's own validation may know beyond the property values."""

    #: True for a property value that cannot be judged yet (an unresolved function call).
    unresolved: Unresolved = never_unresolved
    #: The stack's timeout in seconds, when known.
    stack_timeout: float | None = None
    #: False when validating in a lenient pass (Heat's ``strict_validate``).
    strict: bool = True
    #: The request's checks by custom-constraint name (value -> error message or ``None``):
    #: the cloud ones when the request has a cloud (a remote ``OS::Heat::Stack`` is checked
    #: against its region's endpoint with one).
    custom_constraints: Mapping[str, Callable[[Any], str | None]] = dataclasses.field(
        default_factory=dict
    )
    #: The files map of the stack being validated.
    files: Mapping[str, str] = dataclasses.field(default_factory=dict)


def short_id(rng: random.Random) -> str:
    """A 12-character lowercase id, as Heat appends to physical resource names."""
    return "".join(rng.choice(_SHORT_ID_ALPHABET) for _ in range(_SHORT_ID_LENGTH))


def physical_resource_name(ctx: ResourceContext) -> str:
    """A unique, readable physical name: ``<stack>-<resource>-<short id>``, at most 255 chars.

    Like Heat, an over-long name keeps the stack name's head and the resource name's tail.
    """
    suffix = short_id(ctx.random)
    name = f"{ctx.stack.name}-{ctx.resource_name}-{suffix}"
    if len(name) <= _MAX_PHYSICAL_NAME:
        return name
    room = _MAX_PHYSICAL_NAME - len(suffix) - 2
    stack_part = ctx.stack.name[: room // 2]
    resource_part = ctx.resource_name[-(room - len(stack_part)) :]
    return f"{stack_part}-{resource_part}-{suffix}"


def checked_physical_id(physical_id: object, resource: str) -> str | None:
    """The physical id a plugin hands the engine, as the engine stores it: a string of at
    most :data:`MAX_PHYSICAL_ID` characters, or ``None`` (no physical resource). An integer
    becomes its decimal text (cloud APIs give some ids as numbers).

    Raises:
        PluginError: anything else, naming ``resource``: a plugin bug fails its resource
            rather than the engine.
    """
    if physical_id is None or isinstance(physical_id, str):
        found = physical_id
    elif isinstance(physical_id, int) and not isinstance(physical_id, bool):
        found = str(physical_id)
    else:
        kind = type(physical_id).__name__
        raise PluginError(
            f"the physical resource id must be a string, not {kind} {physical_id!r:.80}",
            resource=resource,
        )
    if found is not None and len(found) > MAX_PHYSICAL_ID:
        raise PluginError(
            f"the physical resource id is longer than {MAX_PHYSICAL_ID} characters "
            f"({len(found)}): {found[:40]}...",
            resource=resource,
        )
    return found


#: The deletion policy of a resource whose template gives none.
DELETE_POLICY = "Delete"


def deletion_policy(ctx: ResourceContext) -> str:
    """The deletion policy (``Delete``, ``Snapshot``; ``Retain`` never reaches a plugin) of the
    version a delete acts on, as its own template says (``Delete`` in any other action)."""
    return str(getattr(ctx, "deletion_policy", None) or DELETE_POLICY)
