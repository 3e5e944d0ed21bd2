"""``OS::Cinder::Volume``: a Cinder volume, empty or made from an image, a snapshot, another
volume or a backup."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone, PluginError, PropertyError
from thermik.resources.cinder import volume_steps
from thermik.resources.cinder.common import (
    CREATING,
    READY,
    TAG_KEY,
    user_message,
    user_metadata,
    volume_failed,
)
from thermik.resources.cinder.volume_schema import ATTRIBUTES, PROPERTIES, SIZED_SOURCES, SOURCES
from thermik.resources.cloud_access import find
from thermik.resources.cloud_resource import CloudResource, backoff
from thermik.resources.context import (
    ResourceContext,
    ValidationContext,
    deletion_policy,
    physical_resource_name,
)
from thermik.resources.plugin import CheckResult, NeedsReplacement, PollAfter, Progress, Props
from thermik.resources.schema import AttributesSchema, PropertiesSchema

#: The metadata key in which Cinder shows the read-only flag.
READONLY_KEY = "readonly"
#: Resource data key of the name the volume was given (an interrupted create reuses it).
NAME_KEY = "physical_name"
#: Progress keys of a delete: the backup it waits for, the volume it deletes.
BACKUP = "backup"
WAITING = "waiting"
#: Heat's attribute names -> openstacksdk's (the rest are named alike).
_SDK_NAMES = {
    "source_volid": "source_volume_id",
    "bootable": "is_bootable",
    "encrypted": "is_encrypted",
    "multiattach": "is_multiattach",
}


class Volume(CloudResource):
    """``OS::Cinder::Volume``.

    The creation tag is a metadata key of the volume (hidden from the ``metadata``
    attributes and kept through metadata updates). A change of size extends the volume
    (shrinking is refused), of ``volume_type`` retypes it (never migrating), of
    ``backup_id`` restores that backup onto it, of ``read_only`` sets the flag; name,
    description and metadata change at once. With ``deletion_policy: Snapshot`` a delete
    first makes a Cinder backup of the volume (as Heat does) and keeps it.
    """

    service: ClassVar[str] = "cinder"
    delete_waits: ClassVar[bool] = True
    #: A failed volume is kept unless it is unusable (see :meth:`needs_replacement`).
    replace_if_failed: ClassVar[bool] = False
    snapshots_on_delete: ClassVar[bool] = True
    properties_schema: ClassVar[PropertiesSchema] = PROPERTIES
    attributes_schema: ClassVar[AttributesSchema] = ATTRIBUTES

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """Heat's rules on what a volume is made from."""
        if props.get("image") is not None and props.get("imageRef") is not None:
            raise PropertyError(
                "Cannot define the following properties at the same time: image, imageRef",
                path=("properties", "image"),
            )
        if props.get("backup_id") is not None:
            return
        given = [name for name in SOURCES if props.get(name) is not None]
        sized = [name for name in given if name in SIZED_SOURCES]
        if props.get("size") is None and (len(sized) != 1 or len(given) != 1):
            raise PropertyError(
                'If neither "backup_id" nor "size" is provided, one and only one of '
                '"source_volid", "snapshot_id" must be specified, but currently specified '
                f"options: {given}.",
                path=("properties", "size"),
            )
        if props.get("size") is not None and len(given) > 1:
            raise PropertyError(
                'If "size" is provided, only one of "image", "imageRef", "source_volid", '
                f'"snapshot_id" can be specified, but currently specified options: {given}.',
                path=("properties", given[1]),
            )

    # -- create ------------------------------------------------------------------------------

    def _names(self, ctx: ResourceContext, props: Props) -> tuple[str, str]:
        """The volume's name and description (Heat: the physical resource name for both)."""
        physical = ctx.data.get(NAME_KEY)
        if physical is None:
            physical = physical_resource_name(ctx)
            ctx.data.set(NAME_KEY, physical)
        return props.get("name") or physical, props.get("description") or physical

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name, description = self._names(ctx, props)
        if props.get("backup_id"):
            volume = self.create_tagged(
                ctx, lambda tag: self._restored(ctx, props, (name, description), tag)
            )
        else:
            fields = self._fields(ctx, props)
            volume = self.create_tagged(
                ctx,
                lambda tag: self.call(
                    ctx,
                    lambda conn: conn.block_storage.create_volume(
                        **fields,
                        name=name,
                        description=description,
                        metadata={**_strings(props.get("metadata") or {}), TAG_KEY: tag},
                    ),
                    idempotent=False,
                ),
            )
        ctx.set_physical_id(volume.id)
        return Progress({"creating": volume.id})

    def _fields(self, ctx: ResourceContext, props: Props) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for name in ("size", "availability_zone", "volume_type", "scheduler_hints"):
            if props.get(name):
                fields[name] = props[name]
        if props.get("snapshot_id"):
            fields["snapshot_id"] = find(ctx, "cinder.snapshot", props["snapshot_id"])
        if props.get("source_volid"):
            fields["source_volume_id"] = find(ctx, "cinder.volume", props["source_volid"])
        image = props.get("image") or props.get("imageRef")
        if image:
            fields["image_id"] = find(ctx, "glance.image", image)
        return fields

    def _restored(
        self, ctx: ResourceContext, props: Props, names: tuple[str, str], tag: str
    ) -> Any:
        """A new volume restored from the ``backup_id`` backup, named, described and carrying
        ``tag`` and the metadata (Cinder's restore takes only a name)."""
        backup, (name, description) = find(ctx, "cinder.backup", props["backup_id"]), names
        restored = self.call(
            ctx,
            lambda conn: conn.block_storage.restore_backup(backup, name=name),
            idempotent=False,
        )
        volume_id = str(restored.volume_id)
        metadata = {**_strings(props.get("metadata") or {}), TAG_KEY: tag}
        self.call(
            ctx,
            lambda conn: conn.block_storage.update_volume(volume_id, description=description),
        )
        self.call(ctx, lambda conn: conn.block_storage.set_volume_metadata(volume_id, **metadata))
        return self.fetch(self.client(ctx), volume_id)

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        volume = self.refresh(ctx)
        if volume.status in CREATING:
            return backoff(progress)
        if volume.status != "available":
            raise volume_failed(ctx, self.client(ctx), volume, "create")
        if props.get("read_only") is not None:
            return self._steps(ctx, [{"do": "read_only", "read_only": props["read_only"]}])
        return True

    def _steps(self, ctx: ResourceContext, steps: list[volume_steps.Step]) -> CheckResult:
        return self._run(ctx, volume_steps.start(steps), self.current(ctx))

    def _run(self, ctx: ResourceContext, progress: Progress | None, volume: Any) -> CheckResult:
        """One poll of the update steps on ``volume`` as just fetched; once they are done the
        volume is fetched again, as the last (the read-only flag) shows only then, for the
        attributes."""
        done = volume_steps.run(ctx, self.client(ctx), volume, progress)
        if done is True:
            self.refresh(ctx)
        return done

    def created_with(self, client: CloudClient, tag: str) -> Any:
        return client.call(
            lambda conn: next(
                (
                    v
                    for v in conn.block_storage.volumes()
                    if (v.metadata or {}).get(TAG_KEY) == tag
                ),
                None,
            )
        )

    # -- update ------------------------------------------------------------------------------

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        """Heat's rules, and Heat's for a volume whose last action failed: it is replaced
        only when it has no volume, or its volume is gone, in error or being deleted (a
        failed resize keeps the volume and its data)."""
        fixed = super().needs_replacement(ctx, new_props, old_props, changed)
        if fixed is not None or ctx.physical_id is None:
            return fixed or NeedsReplacement(f"{ctx.resource_name} has no volume")
        try:
            volume = self.current(ctx)
        except CloudGone:
            return NeedsReplacement(f"volume {ctx.physical_id} is gone")
        if volume.status in ("error", "deleting"):
            return NeedsReplacement(f"volume {ctx.physical_id} is {volume.status}")
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        volume = self.current(ctx)
        size = new_props.get("size")
        if "size" in changed and size is not None and size < int(volume.size):
            raise PluginError(
                f"Shrinking volume is not supported: the volume is {volume.size} GB, the new "
                f"size {size} GB",
                resource=ctx.resource_name,
            )
        if changed & {"name", "description"}:
            self._rename(ctx, new_props)
        if "metadata" in changed:
            self._set_metadata(ctx, new_props.get("metadata") or {}, volume.metadata)
        steps: list[volume_steps.Step] = []
        if "backup_id" in changed and new_props.get("backup_id"):
            backup = find(ctx, "cinder.backup", new_props["backup_id"])
            steps.append({"do": "restore", "backup": backup})
        if "volume_type" in changed and new_props.get("volume_type"):
            vtype = find(ctx, "cinder.vtype", new_props["volume_type"])
            steps.append({"do": "retype", "type": vtype})
        if "size" in changed and size is not None and size > int(volume.size):
            steps.append({"do": "extend", "size": size})
        if "read_only" in changed and new_props.get("read_only") is not None:
            steps.append({"do": "read_only", "read_only": new_props["read_only"]})
        return volume_steps.start(steps)

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return True if progress is None else self._run(ctx, progress, self.refresh(ctx))

    def _rename(self, ctx: ResourceContext, props: Props) -> None:
        name, description = self._names(ctx, props)
        volume_id = ctx.physical_id
        self.call(
            ctx,
            lambda conn: conn.block_storage.update_volume(
                volume_id, name=name, description=description
            ),
        )

    def _set_metadata(
        self, ctx: ResourceContext, wanted: Mapping[str, Any], current: Mapping[str, Any] | None
    ) -> None:
        """Make the volume's user metadata exactly ``wanted`` (its creation tag stays)."""
        volume_id = ctx.physical_id
        # ``readonly`` is Cinder's, set by the read-only flag: shown, but not the user's.
        gone = sorted(set(user_metadata(current)) - set(wanted) - {READONLY_KEY})
        if gone:
            self.call(ctx, lambda conn: conn.block_storage.delete_volume_metadata(volume_id, gone))
        if wanted:
            values = _strings(wanted)
            self.call(
                ctx, lambda conn: conn.block_storage.set_volume_metadata(volume_id, **values)
            )

    # -- delete ------------------------------------------------------------------------------

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        volume_id = self.physical_or_orphan(ctx)
        if volume_id is None:
            return None
        try:
            volume = self.fetch(self.client(ctx), volume_id)
        except CloudGone:
            return None
        if deletion_policy(ctx) == "Snapshot" and volume.status != "error":
            name = str(volume.name or volume_id)
            backup = self.call(
                ctx,
                lambda conn: conn.block_storage.create_backup(
                    volume_id=volume_id, name=name, description=f"Backup of volume {name}"
                ),
                idempotent=False,
            )
            return Progress({BACKUP: str(backup.id), WAITING: volume_id})
        self._remove(ctx, volume)
        return Progress({WAITING: volume_id})

    def _remove(self, ctx: ResourceContext, volume: Any) -> None:
        if volume.status == "in-use":
            raise PluginError(
                f"Volume in use: volume {volume.id} is attached (detach it first)",
                resource=ctx.resource_name,
            )
        if volume.status != "deleting":
            with contextlib.suppress(CloudGone):
                self.remove(self.client(ctx), str(volume.id))

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        state = dict(progress.state) if progress else {}
        volume_id = state.get(WAITING)
        if not isinstance(volume_id, str):
            return True
        if state.get(BACKUP):
            return self._backed_up(ctx, state, progress)
        try:
            volume = self.fetch(self.client(ctx), volume_id)
        except CloudGone:
            return True
        if volume.status == "error_deleting":
            raise volume_failed(ctx, self.client(ctx), volume, "delete")
        return backoff(progress)

    def _backed_up(
        self, ctx: ResourceContext, state: dict[str, Any], progress: Progress | None
    ) -> CheckResult:
        """Wait for the backup a Snapshot deletion policy made, then delete the volume."""
        backup_id = str(state[BACKUP])
        backup = self.call(ctx, lambda conn: conn.block_storage.get_backup(backup_id))
        if backup.status == "creating" or not backup.status:
            return backoff(progress)
        if backup.status != "available":
            reason = backup.fail_reason or user_message(self.client(ctx), backup_id)
            raise PluginError(
                f"Volume backup failed: backup {backup_id} of volume {state[WAITING]} went to "
                f"status {backup.status} ({reason or 'no reason given'}); the volume is kept",
                resource=ctx.resource_name,
                kind="ResourceUnknownStatus",
            )
        try:
            self._remove(ctx, self.fetch(self.client(ctx), str(state[WAITING])))
        except CloudGone:
            return True
        return PollAfter(0.5, Progress({WAITING: state[WAITING]}))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(
            lambda conn: conn.block_storage.delete_volume(physical_id, ignore_missing=False)
        )

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.block_storage.get_volume(physical_id))

    # -- check and attributes ----------------------------------------------------------------

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        super().check(ctx, props)
        volume = self.current(ctx)
        if volume.status not in READY:
            raise PluginError(
                f"'status': expected {sorted(READY)}, got '{volume.status}'",
                resource=ctx.resource_name,
            )
        return None

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        metadata = user_metadata(found.metadata)
        out: dict[str, Any] = {
            name: str(getattr(found, _SDK_NAMES.get(name, name), None))
            for name in self.attributes_schema
        }
        out.update(
            metadata=json.dumps(metadata),
            metadata_values=metadata,
            display_name=found.name,
            display_description=found.description,
            attachments=str(found.attachments or []),
            attachments_list=list(found.attachments or []),
            bootable=str(bool(found.is_bootable)).lower(),
        )
        return out


def _strings(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Metadata as Cinder takes it: every value a string (JSON for the others)."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in metadata.items()}
