"""``OS::Zaqar::Subscription``: a subscriber notified of the messages of a Zaqar queue."""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.clients.messaging import (
    subscribe,
    subscription,
    subscriptions,
    unsubscribe,
    update_subscription,
)
from thermik.errors import CloudGone, PropertyError
from thermik.resources.cloud_access import CREATE_STARTED_KEY, create_once
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint, Range
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.plugin import Operation, Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

#: The subscriber URI schemes Zaqar notifies.
SUBSCRIBER_TYPES = ("http", "https", "mailto", "trust+http", "trust+https")
#: Heat's default time to live: until the year 9000, that is never.
FOREVER = 220367260800


class Subscription(CloudResource):
    """``OS::Zaqar::Subscription``.

    The physical id is the subscription's id; the queue's name is kept in the resource
    data. A create an engine crash interrupted finds its subscription by its subscriber
    (Zaqar keeps one subscription per subscriber and queue).
    """

    service: ClassVar[str] = "zaqar"
    support_status = SupportStatus(version="8.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "queue_name": PropertySchema(
            Type.STRING,
            "The name of the queue to subscribe to.",
            required=True,
            constraints=(CustomConstraint("zaqar.queue"),),
        ),
        "subscriber": PropertySchema(
            Type.STRING,
            "The URI notified of each message, as <TYPE>:<VALUE> (http, https, mailto, "
            "trust+http, trust+https).",
            required=True,
            update_allowed=True,
        ),
        "ttl": PropertySchema(
            Type.INTEGER,
            "How long the subscription lives, in seconds.",
            default=FOREVER,
            update_allowed=True,
            constraints=(Range(min=60),),
        ),
        "options": PropertySchema(Type.MAP, "Options of the subscription.", update_allowed=True),
    }

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        return operation in (Operation.CREATE, Operation.DELETE)

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        subscriber = props.get("subscriber")
        if isinstance(subscriber, str) and subscriber.split(":", 1)[0] not in SUBSCRIBER_TYPES:
            raise PropertyError(
                f"The subscriber type of must be one of: {', '.join(SUBSCRIBER_TYPES)}.",
                path=("properties", "subscriber"),
            )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        queue, body = props["queue_name"], _body(props)
        ctx.data.set("queue", queue)

        def find(tag: str) -> str | None:
            found = self.call(ctx, lambda conn: subscriptions(conn, queue))
            mine = [s for s in found if s.get("subscriber") == body["subscriber"]]
            return str(mine[0]["id"]) if mine else None

        def new(tag: str) -> str:
            return self.call(ctx, lambda conn: subscribe(conn, queue, body), idempotent=False)

        ctx.set_physical_id(create_once(ctx, find, new))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        queue, sid, body = self._queue(ctx), ctx.physical_id, _body(new_props)
        self.call(ctx, lambda conn: update_subscription(conn, queue, sid, body))
        return None

    def _queue(self, ctx: ResourceContext) -> str:
        return str(ctx.data.get("queue"))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        sid = ctx.physical_id
        queue = ctx.data.get("queue")
        if queue is None:
            return None
        if sid is None and ctx.data.get(CREATE_STARTED_KEY) is not None:
            found = self.call(ctx, lambda conn: subscriptions(conn, queue))
            sid = next(
                (str(s["id"]) for s in found if s.get("subscriber") == props.get("subscriber")),
                None,
            )
        if sid is not None:
            self.call(ctx, lambda conn: unsubscribe(conn, queue, sid))
        return None

    def current(self, ctx: ResourceContext) -> Any:
        if self._seen is None and ctx.physical_id is not None:
            queue, sid = self._queue(ctx), ctx.physical_id
            try:
                self._seen = self.call(ctx, lambda conn: subscription(conn, queue, sid))
            except CloudGone:
                raise CloudGone(
                    f"The Subscription ({sid}) of queue {queue} could not be found."
                ) from None
        return self._seen


def _body(props: Props) -> dict[str, Any]:
    return {
        "subscriber": props["subscriber"],
        "ttl": props["ttl"],
        "options": dict(props.get("options") or {}),
    }
