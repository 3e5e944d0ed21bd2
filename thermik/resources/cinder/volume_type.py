"""``OS::Cinder::VolumeType`` and ``OS::Cinder::EncryptedVolumeType``: volume types with their
extra specs and project access, and their encryption (Cinder keeps both to administrators)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone, PropertyError
from thermik.resources.cloud_access import find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import AllowedValues, CustomConstraint
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type
from thermik.resources.untagged import refused_forgets

#: Resource data key of the type's name at create (an interrupted create finds it by name).
NAME_KEY = "physical_name"


class VolumeType(CloudResource):
    """``OS::Cinder::VolumeType``.

    Volume types carry no tag; their names are unique, so an interrupted create finds what
    it made by the name it recorded first. ``metadata`` are the type's extra specs.
    """

    service: ClassVar[str] = "cinder"
    support_status = SupportStatus(version="2015.1")
    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING, "Name of the volume type.", required=True, update_allowed=True
        ),
        "metadata": PropertySchema(
            Type.MAP,
            "The extra specs key and value pairs of the volume type.",
            update_allowed=True,
        ),
        "is_public": PropertySchema(
            Type.BOOLEAN,
            "Whether the volume type is accessible to the public.",
            default=True,
            update_allowed=True,
            support_status=SupportStatus(version="5.0.0"),
        ),
        "description": PropertySchema(
            Type.STRING,
            "Description of the volume type.",
            update_allowed=True,
            support_status=SupportStatus(version="5.0.0"),
        ),
        "projects": PropertySchema(
            Type.LIST,
            "Projects to add volume type access to. NOTE: This property is only supported "
            "since Cinder API V2.",
            default=[],
            update_allowed=True,
            schema=PropertySchema(
                Type.STRING, constraints=(CustomConstraint("keystone.project"),)
            ),
            support_status=SupportStatus(version="5.0.0"),
        ),
    }

    def __init__(self) -> None:
        super().__init__()
        self._name: str | None = None

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        if props.get("projects") and props.get("is_public"):
            raise PropertyError(
                'Can not specify property "projects" if the volume type is public.',
                path=("properties", "projects"),
            )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        self._name = str(props["name"])
        ctx.data.set(NAME_KEY, self._name)
        fields: dict[str, Any] = {"name": props["name"], "is_public": props["is_public"]}
        if props.get("description") is not None:
            fields["description"] = props["description"]
        # Found again by its name, which may be another's when Cinder refuses the create.
        made = refused_forgets(
            ctx,
            [NAME_KEY],
            lambda: self.create_tagged(
                ctx,
                lambda tag: self.call(
                    ctx, lambda conn: conn.block_storage.create_type(**fields), idempotent=False
                ),
            ),
        )
        ctx.set_physical_id(made.id)
        self._set_specs(ctx, props.get("metadata") or {}, {})
        self._grant(ctx, props.get("projects") or [], [])
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        type_id = ctx.physical_id
        fields = {k: new_props[k] for k in ("name", "description", "is_public") if k in changed}
        if fields:
            self.call(ctx, lambda conn: conn.block_storage.update_type(type_id, **fields))
        if "metadata" in changed:
            current = self.refresh(ctx).extra_specs or {}
            self._set_specs(ctx, new_props.get("metadata") or {}, current)
        if "projects" in changed and not new_props["is_public"]:
            granted = self.call(
                ctx,
                lambda conn: [
                    a["project_id"] for a in conn.block_storage.get_type_access(type_id)
                ],
            )
            self._grant(ctx, new_props.get("projects") or [], granted)
        return None

    def _set_specs(
        self, ctx: ResourceContext, wanted: Mapping[str, Any], current: Mapping[str, Any]
    ) -> None:
        """Make the type's extra specs exactly ``wanted``."""
        type_id = ctx.physical_id
        gone = sorted(set(current) - set(wanted))
        if gone:
            self.call(ctx, lambda conn: conn.block_storage.delete_type_extra_specs(type_id, gone))
        specs = {k: v if isinstance(v, str) else str(v) for k, v in wanted.items()}
        if specs:
            self.call(
                ctx, lambda conn: conn.block_storage.update_type_extra_specs(type_id, **specs)
            )

    def _grant(self, ctx: ResourceContext, projects: list[str], granted: list[str]) -> None:
        """Open the type to ``projects`` (names or ids), and only to them."""
        type_id = ctx.physical_id
        wanted = {find(ctx, "keystone.project", p) for p in projects}
        self.call_each(
            ctx,
            sorted(wanted - set(granted)),
            lambda conn, p: conn.block_storage.add_type_access(type_id, p),
        )
        self.call_each(
            ctx,
            sorted(set(granted) - wanted),
            lambda conn, p: conn.block_storage.remove_type_access(type_id, p),
        )

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        self._name = ctx.data.get(NAME_KEY)
        return super().physical_or_orphan(ctx)

    def created_with(self, client: CloudClient, tag: str) -> Any:
        name = self._name
        if name is None:
            return None
        return client.call(
            lambda conn: next((t for t in conn.block_storage.types() if t.name == name), None)
        )

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.block_storage.get_type(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: conn.block_storage.delete_type(physical_id, ignore_missing=False))


#: The encryption properties Cinder takes as they are named.
_ENCRYPTION = ("provider", "control_location", "cipher", "key_size")


class EncryptedVolumeType(CloudResource):
    """``OS::Cinder::EncryptedVolumeType``: the encryption of a volume type, whose id is
    the resource's physical id (a type has one encryption at most)."""

    service: ClassVar[str] = "cinder"
    support_status = SupportStatus(version="5.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "provider": PropertySchema(
            Type.STRING,
            "The class that provides encryption support. For example, "
            "nova.volume.encryptors.luks.LuksEncryptor.",
            required=True,
            update_allowed=True,
        ),
        "control_location": PropertySchema(
            Type.STRING,
            "Notional service where encryption is performed For example, front-end. For Nova.",
            default="front-end",
            constraints=(AllowedValues(("front-end", "back-end")),),
            update_allowed=True,
        ),
        "cipher": PropertySchema(
            Type.STRING,
            "The encryption algorithm or mode. For example, aes-xts-plain64.",
            constraints=(AllowedValues(("aes-xts-plain64", "aes-cbc-essiv")),),
            update_allowed=True,
        ),
        "key_size": PropertySchema(
            Type.INTEGER,
            "Size of encryption key, in bits. For example, 128 or 256.",
            update_allowed=True,
        ),
        "volume_type": PropertySchema(
            Type.STRING,
            "Name or id of volume type (OS::Cinder::VolumeType).",
            required=True,
            constraints=(CustomConstraint("cinder.vtype"),),
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        type_id = find(ctx, "cinder.vtype", props["volume_type"])
        specs = {k: props[k] for k in _ENCRYPTION if props.get(k) is not None}
        # One encryption per type: a second create is refused, none can be orphaned.
        self.call(
            ctx,
            lambda conn: conn.block_storage.create_type_encryption(type_id, **specs),
            idempotent=False,
        )
        ctx.set_physical_id(type_id)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        type_id = ctx.physical_id
        specs = {k: new_props.get(k) for k in _ENCRYPTION if k in changed}
        if specs:
            encryption = self.fetch(self.client(ctx), str(type_id))
            self.call(
                ctx,
                lambda conn: conn.block_storage.update_type_encryption(
                    encryption, volume_type=type_id, **specs
                ),
            )
        return None

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        found = client.call(lambda conn: conn.block_storage.get_type_encryption(physical_id))
        if not getattr(found, "encryption_id", None):
            # Cinder answers an unencrypted type with an empty encryption, not a 404.
            raise CloudGone(f"The volume type {physical_id} has no encryption.")
        return found

    def remove(self, client: CloudClient, physical_id: str) -> None:
        encryption = self.fetch(client, physical_id)
        client.call(
            lambda conn: conn.block_storage.delete_type_encryption(
                encryption, volume_type=physical_id, ignore_missing=False
            )
        )
