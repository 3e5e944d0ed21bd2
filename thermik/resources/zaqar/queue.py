"""``OS::Zaqar::Queue``: a Zaqar queue of the stack's project, with its metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.messaging import (
    delete_queue,
    put_queue,
    queue_href,
    queue_metadata,
    queue_names,
    set_queue_metadata,
)
from thermik.errors import CloudGone
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import Length
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import Operation, Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)

#: Zaqar's longest queue name.
NAME_LIMIT = 64


class Queue(CloudResource):
    """``OS::Zaqar::Queue``.

    The physical id, and the reference id, is the queue's name. A queue is named before it
    is made and Zaqar's PUT of an existing queue changes nothing, so a create an engine
    crash interrupted simply runs again. Zaqar answers for any queue name; a check asks its
    listing whether the queue still exists.
    """

    service: ClassVar[str] = "zaqar"
    support_status = SupportStatus(version="2014.2")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The queue's name (default: a name unique to the resource).",
            constraints=(Length(max=NAME_LIMIT),),
        ),
        "metadata": PropertySchema(
            Type.MAP, "Key/value metadata about the queue, for its users.", update_allowed=True
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "queue_id": AttributeSchema(
            "The queue's id (its name; use get_resource instead).",
            cache_mode=CacheMode.NONE,
            support_status=SupportStatus(
                status=SupportLevel.HIDDEN,
                version="6.0.0",
                previous=SupportStatus(
                    status=SupportLevel.DEPRECATED,
                    version="2015.1",
                    message="Use get_resource|Ref command instead. For example: "
                    "{ get_resource : <resource_name> }",
                ),
            ),
        ),
        "href": AttributeSchema("The queue's URL."),
    }

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        return True

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = str(props.get("name") or physical_resource_name(ctx)[-NAME_LIMIT:])
        metadata = dict(props.get("metadata") or {})
        ctx.set_physical_id(name)
        self.call(ctx, lambda conn: put_queue(conn, name, metadata))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        name, metadata = ctx.physical_id, dict(new_props.get("metadata") or {})
        if "metadata" in changed:
            self.call(ctx, lambda conn: set_queue_metadata(conn, name, metadata))
        return None

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        if physical_id not in client.call(queue_names):
            raise CloudGone(f"The Queue ({physical_id}) could not be found.")
        return {"metadata": client.call(lambda conn: queue_metadata(conn, physical_id))}

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: delete_queue(conn, physical_id))

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        return ctx.physical_id

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        queue = ctx.physical_id
        if queue is None:
            return None
        if name == "queue_id":
            return queue
        if name == "href":
            return self.call(ctx, lambda conn: queue_href(conn, queue))
        return super().resolve_attribute(ctx, props, name)

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {}
