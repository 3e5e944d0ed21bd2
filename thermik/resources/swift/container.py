"""``OS::Swift::Container``: a Swift container of the stack's project, with its ACLs and
metadata."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.object_store import (
    delete_container,
    delete_object,
    head_container,
    object_names,
    post_account,
    put_container,
    storage_url,
)
from thermik.errors import CloudConflict, CloudGone, PluginError
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import Operation, Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)


class Container(CloudResource):
    """``OS::Swift::Container``.

    The physical id, and the reference id, is the container's name. Every property change
    replaces the container, as in Heat. A container is named before it is made, so a create
    an engine crash interrupted finds its container by that name (Swift's PUT of an existing
    container is harmless). A delete of a container that still holds objects fails, naming
    ``PurgeOnDelete``, unless that is true: then its objects are deleted first.
    """

    service: ClassVar[str] = "swift"

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING, "The container's name (default: a name unique to the resource)."
        ),
        "X-Container-Read": PropertySchema(
            Type.STRING, "Who may read the container (a Swift read ACL)."
        ),
        "X-Container-Write": PropertySchema(
            Type.STRING, "Who may write the container (a Swift write ACL)."
        ),
        "X-Container-Meta": PropertySchema(
            Type.MAP, "Metadata of the container, as key/value pairs.", default={}
        ),
        "X-Account-Meta": PropertySchema(
            Type.MAP,
            "Metadata set on the project's Swift account, as key/value pairs.",
            default={},
        ),
        "PurgeOnDelete": PropertySchema(
            Type.BOOLEAN,
            "Whether a delete removes the container's objects too (else a container that "
            "holds objects is not deleted).",
            default=False,
            support_status=SupportStatus(version="2015.1"),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "DomainName": AttributeSchema(
            "The host of the container's URL.", type=AttributeType.STRING
        ),
        "WebsiteURL": AttributeSchema("The container's URL.", type=AttributeType.STRING),
        "RootURL": AttributeSchema(
            "The URL of the account the container is in.", type=AttributeType.STRING
        ),
        "ObjectCount": AttributeSchema(
            "How many objects the container holds.",
            type=AttributeType.INTEGER,
            cache_mode=CacheMode.NONE,
        ),
        "BytesUsed": AttributeSchema(
            "How many bytes the container's objects take.",
            type=AttributeType.INTEGER,
            cache_mode=CacheMode.NONE,
        ),
        "HeadContainer": AttributeSchema(
            "Every header of the container, as a map.",
            type=AttributeType.MAP,
            cache_mode=CacheMode.NONE,
        ),
    }

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        # Named before it is made: a PUT run again makes nothing twice, gone is deleted.
        return True

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = str(props.get("name") or physical_resource_name(ctx))
        headers = _meta("X-Container-Meta-", props["X-Container-Meta"])
        for acl in ("X-Container-Read", "X-Container-Write"):
            if props.get(acl):
                headers[acl] = props[acl]
        ctx.set_physical_id(name)
        self.call(ctx, lambda conn: put_container(conn, name, headers))
        account = _meta("X-Account-Meta-", props["X-Account-Meta"])
        if account:
            self.call(ctx, lambda conn: post_account(conn, account))
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = ctx.physical_id
        if name is None:
            return None
        try:
            if props.get("PurgeOnDelete"):
                names = self.call(ctx, lambda conn: object_names(conn, name))
                self.call_each(ctx, names, lambda conn, obj: delete_object(conn, name, obj))
            self.call(ctx, lambda conn: delete_container(conn, name), idempotent=False)
        except CloudGone:
            return None
        except CloudConflict:
            raise PluginError(
                f"Deleting non-empty container ({name}) when PurgeOnDelete is False",
                resource=ctx.resource_name,
            ) from None
        return None

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: head_container(conn, physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: delete_container(conn, physical_id))

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        return ctx.physical_id

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        if ctx.physical_id is None:
            return None
        container = ctx.physical_id
        if name in ("DomainName", "WebsiteURL", "RootURL"):
            root = self.call(ctx, storage_url)
            parts = urllib.parse.urlsplit(root)
            return {
                "DomainName": parts.hostname,
                "WebsiteURL": f"{root}/{urllib.parse.quote(container)}",
                "RootURL": root,
            }[name]
        return super().resolve_attribute(ctx, props, name)

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "ObjectCount": int(found.get("x-container-object-count", 0)),
            "BytesUsed": int(found.get("x-container-bytes-used", 0)),
            "HeadContainer": dict(found),
        }


def _meta(prefix: str, values: Mapping[str, Any] | None) -> dict[str, str]:
    """Swift's metadata headers for ``values``."""
    return {f"{prefix}{k}": str(v) for k, v in (values or {}).items()}
