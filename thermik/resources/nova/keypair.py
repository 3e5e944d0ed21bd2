"""``OS::Nova::KeyPair``: an SSH key pair Nova injects into the servers that name it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone
from thermik.resources.cloud_access import CREATE_STARTED_KEY, create_once, find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import AllowedValues, CustomConstraint, Length
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import NeedsReplacement, Progress, Props
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
from thermik.resources.untagged import refused_forgets

#: Resource data keys: the generated private key (redacted) and the key's owner, if not us.
PRIVATE_KEY = "private_key"
USER_ID = "user_id"


class KeyPair(CloudResource):
    """``OS::Nova::KeyPair``.

    Without ``public_key`` Nova generates the pair and returns the private key once: it is
    kept (encrypted, in the resource data) only with ``save_private_key``, and is then the
    secret ``private_key`` attribute. The physical id, and the reference id, is the key's name.

    Nova's key pairs are named, not tagged: an interrupted create finds what it made by that
    name (a generated private key it could not record is lost, as the key was generated).
    A change of anything but the name recreates the pair under the same name in place, since
    a replacement could not take the name before the old pair is gone.
    """

    service: ClassVar[str] = "nova"
    support_status = SupportStatus(version="2014.1")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The name of the key pair.",
            required=True,
            constraints=(Length(1, 255),),
        ),
        "save_private_key": PropertySchema(
            Type.BOOLEAN,
            "Whether to keep a generated private key (then the private_key attribute).",
            default=False,
        ),
        "public_key": PropertySchema(
            Type.STRING,
            "The public key of an existing key pair; without it Nova generates a new pair.",
        ),
        "type": PropertySchema(
            Type.STRING,
            "The key pair's type.",
            constraints=(AllowedValues(("ssh", "x509")),),
            support_status=SupportStatus(version="8.0.0"),
        ),
        "user": PropertySchema(
            Type.STRING,
            "Name or id of the user the key pair is for (administrators only).",
            constraints=(CustomConstraint("keystone.user"),),
            support_status=SupportStatus(version="9.0.0"),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "public_key": AttributeSchema("The public key.", type=AttributeType.STRING),
        "private_key": AttributeSchema(
            "The private key, if it was generated and saved.",
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
            secret=True,
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields: dict[str, Any] = {"name": props["name"]}
        if props.get("public_key"):
            fields["public_key"] = props["public_key"]
        if props.get("type"):
            fields["type"] = props["type"]
        if props.get("user"):
            fields["user_id"] = find(ctx, "keystone.user", props["user"])
            ctx.data.set(USER_ID, fields["user_id"])
        made: list[Any] = []

        def new(tag: str) -> str:
            made.append(
                self.call(
                    ctx, lambda conn: conn.compute.create_keypair(**fields), idempotent=False
                )
            )
            return str(made[0].name)

        # A pair is found again (and deleted) by its name: when Nova refuses the create (the
        # name is taken), that name is another's, so the started create is forgotten.
        name = refused_forgets(
            ctx,
            [CREATE_STARTED_KEY],
            lambda: create_once(ctx, lambda tag: self._existing(ctx, props), new),
        )
        if made and props["save_private_key"] and made[0].private_key:
            ctx.data.set(PRIVATE_KEY, made[0].private_key, redact=True)
        ctx.set_physical_id(name)
        return None

    def _existing(self, ctx: ResourceContext, props: Props) -> str | None:
        """The pair named as this version's, which its interrupted create made."""
        try:
            return str(self.fetch_as(ctx, props["name"]).name)
        except CloudGone:
            return None

    def fetch_as(self, ctx: ResourceContext, name: str) -> Any:
        """The pair ``name`` of the user it was made for."""
        user_id = ctx.data.get(USER_ID)
        return self.call(ctx, lambda conn: conn.compute.get_keypair(name, user_id=user_id))

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        if "name" in changed:
            return NeedsReplacement("update of name needs replacement")
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        if not changed:
            return None
        self.delete(ctx, old_props)
        for key in (PRIVATE_KEY, USER_ID, CREATE_STARTED_KEY):
            ctx.data.delete(key)
        return self.create(ctx, new_props)

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        started = ctx.data.get(CREATE_STARTED_KEY) is not None
        name = ctx.physical_id or (props.get("name") if started else None)
        if name is None:
            return None
        user_id = ctx.data.get(USER_ID)
        # Ignoring what is missing, in one request: a key pair is deleted at once.
        self.call(
            ctx,
            lambda conn: conn.compute.delete_keypair(name, ignore_missing=True, user_id=user_id),
        )
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None:
            return super().check(ctx, props)
        self.seen(self.fetch_as(ctx, ctx.physical_id))
        return None

    def current(self, ctx: ResourceContext) -> Any:
        if self._seen is None and ctx.physical_id is not None:
            self._seen = self.fetch_as(ctx, ctx.physical_id)
        return self._seen

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.compute.get_keypair(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: conn.compute.delete_keypair(physical_id, ignore_missing=False))

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        return ctx.physical_id

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        if name == "private_key":
            return (ctx.data.get(PRIVATE_KEY) or "") if props.get("save_private_key") else ""
        if name == "public_key" and props.get("public_key"):
            return props["public_key"]
        return super().resolve_attribute(ctx, props, name)

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {"public_key": found.public_key}
