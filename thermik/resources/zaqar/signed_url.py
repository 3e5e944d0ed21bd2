"""``OS::Zaqar::SignedQueueURL``: a pre-signed URL giving access to a Zaqar queue."""

from __future__ import annotations

import datetime
import json
import urllib.parse
from typing import Any, ClassVar

from thermik.clients.messaging import share
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import AllowedValues
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)

#: What Zaqar answered, kept in the resource data (the signature encrypted).
FIELDS = ("signature", "expires", "paths", "methods", "project")


class SignedQueueURL(CloudResource):
    """``OS::Zaqar::SignedQueueURL``.

    Zaqar signs the URL with its own key; nothing is made in the cloud, so a delete has
    nothing to do and every change makes a new URL (a replacement), as in Heat. ``query_str``
    is the query Aodh takes after ``zaqar://?``.
    """

    service: ClassVar[str] = "zaqar"
    support_status = SupportStatus(version="8.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "queue": PropertySchema(
            Type.STRING, "The name of the queue the URL gives access to.", required=True
        ),
        "paths": PropertySchema(
            Type.LIST, "The paths the URL allows (default: the queue's messages)."
        ),
        "ttl": PropertySchema(
            Type.INTEGER, "How long the URL is valid, in seconds (default: a day)."
        ),
        "methods": PropertySchema(
            Type.LIST,
            "The HTTP methods the URL allows (default: GET).",
            schema=PropertySchema(
                Type.STRING,
                constraints=(AllowedValues(("GET", "DELETE", "PATCH", "POST", "PUT")),),
            ),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "signature": AttributeSchema("The URL's signature, made by Zaqar.", secret=True),
        "expires": AttributeSchema("When the URL expires."),
        "paths": AttributeSchema("The paths the URL allows."),
        "methods": AttributeSchema("The HTTP methods the URL allows."),
        "project": AttributeSchema("The id of the project the queue belongs to."),
        "query_str": AttributeSchema("The URL's query (signature included).", secret=True),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        queue = props["queue"]
        body: dict[str, Any] = {}
        if props.get("paths"):
            body["paths"] = list(props["paths"])
        if props.get("methods"):
            body["methods"] = list(props["methods"])
        if props.get("ttl") is not None:
            until = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=props["ttl"])
            body["expires"] = until.strftime("%Y-%m-%dT%H:%M:%S")
        signed = self.call(ctx, lambda conn: share(conn, queue, body), idempotent=False)
        for key in FIELDS:
            value = signed.get(key)
            text = json.dumps(value) if key in ("paths", "methods") else str(value)
            ctx.data.set(key, text, redact=key == "signature")
        ctx.set_physical_id(physical_resource_name(ctx))
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        # A signed URL is Zaqar's signature, not a thing in the cloud: nothing can go missing.
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        if ctx.physical_id is None or ctx.data.get("signature") is None:
            return None
        if name in ("paths", "methods"):
            return json.loads(ctx.data.get(name) or "[]")
        if name in ("signature", "expires", "project"):
            return ctx.data.get(name)
        if name == "query_str":
            return urllib.parse.urlencode(
                {
                    "signature": ctx.data.get("signature"),
                    "expires": ctx.data.get("expires"),
                    "paths": ",".join(json.loads(ctx.data.get("paths") or "[]")),
                    "methods": ",".join(json.loads(ctx.data.get("methods") or "[]")),
                    "project_id": ctx.data.get("project"),
                    "queue_name": props["queue"],
                }
            )
        return None
