"""Messages to and from the per-server metadata writer (frozen values, never dicts).

The engine tells a :class:`~thermik.delivery.metadata_actor.ServerMetadataActor`
:class:`MetadataChanged` after every committed change to a server's deployments; the actor
reports :class:`MetadataDelivered` or :class:`MetadataDeliveryFailed` through the callback it
was given (for events and for failing the deployments that wait on the server).
:class:`EffectDone` and :class:`TimerFired` are the actor's own mail from its executor and timers.
"""

from __future__ import annotations

import dataclasses

from thermik.errors import Failure


@dataclasses.dataclass(frozen=True, slots=True)
class MetadataChanged:
    """The deployments of ``server_id`` changed and the change is committed."""

    server_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """How an effect ended: a value, or a failure."""

    value: object = None
    failure: Failure | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class EffectDone:
    """An effect the writer asked for finished on the executor."""

    token: int
    outcome: Outcome


@dataclasses.dataclass(frozen=True, slots=True)
class TimerFired:
    """A backoff the writer asked for has elapsed."""

    token: int


@dataclasses.dataclass(frozen=True, slots=True)
class MetadataDelivered:
    """The agent of ``server_id`` is served ``generation``, the latest there is.

    ``writes`` counts object writes since the writer last went idle; ``recovered`` says a
    :class:`MetadataDeliveryFailed` was reported on the way here.
    """

    server_id: str
    generation: int
    writes: int
    recovered: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class MetadataDeliveryFailed:
    """Delivery to ``server_id`` keeps failing; ``failure`` says why, in words for a user.

    The writer keeps trying at a low rate and reports :class:`MetadataDelivered` (with
    ``recovered``) if it gets through; deployments waiting for this server should fail with
    ``str(failure)`` as their reason.
    """

    server_id: str
    generation: int
    failure: Failure


DeliveryReport = MetadataDelivered | MetadataDeliveryFailed
