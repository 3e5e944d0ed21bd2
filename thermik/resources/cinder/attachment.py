"""``OS::Cinder::VolumeAttachment``: a Cinder volume attached to a Nova server (through Nova,
as Heat attaches it)."""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone, PluginError
from thermik.resources.cloud_access import cloud_access, find
from thermik.resources.cloud_resource import CloudResource, backoff
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import CheckResult, PollAfter, Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type

#: Progress keys: the stage (attach or detach), and the server and volume it acts on.
STAGE, SERVER, VOLUME, DEVICE = "stage", "server", "volume", "device"
#: Resource data key of the server the attachment was made on (the physical id is the
#: volume's, as Nova names an attachment by its volume).
SERVER_KEY = "server_id"
#: Volume statuses while Cinder attaches or detaches.
_ATTACHING = frozenset({"available", "attaching", "reserved"})
_DETACHING = frozenset({"in-use", "detaching", "reserved"})


class VolumeAttachment(CloudResource):
    """``OS::Cinder::VolumeAttachment``.

    Any change detaches the volume and attaches the (new) volume to the (new) server in
    place, as Heat does; a delete waits until Cinder reports the volume detached.
    """

    service: ClassVar[str] = "nova"
    properties_schema: ClassVar[PropertiesSchema] = {
        "instance_uuid": PropertySchema(
            Type.STRING,
            "The ID of the server to which the volume attaches.",
            required=True,
            update_allowed=True,
        ),
        "volume_id": PropertySchema(
            Type.STRING,
            "The ID of the volume to be attached.",
            required=True,
            update_allowed=True,
            constraints=(CustomConstraint("cinder.volume"),),
        ),
        "mountpoint": PropertySchema(
            Type.STRING,
            "The location where the volume is exposed on the instance. This assignment may "
            "not be honored and it is advised that the path /dev/disk/by-id/virtio-<VolumeId> "
            "be used instead.",
            update_allowed=True,
        ),
    }

    def _target(self, ctx: ResourceContext, props: Props) -> dict[str, Any]:
        return {
            SERVER: find(ctx, "nova.server", props["instance_uuid"]),
            VOLUME: find(ctx, "cinder.volume", props["volume_id"]),
            DEVICE: props.get("mountpoint") or None,
        }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return self._attach(ctx, self._target(ctx, props))

    def _attach(self, ctx: ResourceContext, target: dict[str, Any]) -> Progress:
        server, volume, device = target[SERVER], target[VOLUME], target[DEVICE]
        extra = {"device": device} if device else {}
        made = self.call(
            ctx,
            lambda conn: conn.compute.create_volume_attachment(server, volume, **extra),
            idempotent=False,
        )
        ctx.data.set(SERVER_KEY, server)
        ctx.set_physical_id(str(made.id))
        return Progress({STAGE: "attach", **target})

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._attached(ctx, progress)

    def _attached(self, ctx: ResourceContext, progress: Progress | None) -> CheckResult:
        state = progress.state if progress else {}
        volume = self._volume(ctx, str(state[VOLUME]))
        if volume.status == "in-use":
            return True
        if volume.status in _ATTACHING:
            return backoff(progress)
        raise PluginError(
            f"Volume attachment failed: volume {volume.id} went to status {volume.status}",
            resource=ctx.resource_name,
            kind="ResourceUnknownStatus",
        )

    def _volume(self, ctx: ResourceContext, volume_id: str) -> Any:
        """The volume as Cinder shows it (the attachment's state is the volume's status)."""
        cinder = cloud_access(ctx).client("cinder")
        return cinder.call(lambda conn: conn.block_storage.get_volume(volume_id))

    # -- update: detach, then attach ---------------------------------------------------------

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        if not changed:
            return None
        target = self._target(ctx, new_props)
        old = self._detach(ctx, old_props)
        return Progress({STAGE: "detach", "old": old, "new": target})

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        state = progress.state if progress else {}
        if state.get(STAGE) == "attach":
            return self._attached(ctx, progress)
        if state.get(STAGE) != "detach":
            return True
        detached = self._detached(ctx, state["old"], progress)
        if detached is not True:
            return detached
        return PollAfter(0.5, self._attach(ctx, dict(state["new"])))

    # -- delete: detach ----------------------------------------------------------------------

    def _detach(self, ctx: ResourceContext, props: Props) -> dict[str, Any] | None:
        """Ask Nova to detach; what to wait on (``None``: it was not attached)."""
        volume = ctx.physical_id
        server = ctx.data.get(SERVER_KEY) or props.get("instance_uuid")
        if volume is None or server is None:
            return None
        try:
            self.call(
                ctx,
                lambda conn: conn.compute.delete_volume_attachment(
                    server, volume, ignore_missing=False
                ),
            )
        except CloudGone:
            return None
        return {SERVER: server, VOLUME: volume}

    def _detached(
        self, ctx: ResourceContext, old: dict[str, Any] | None, progress: Progress | None
    ) -> CheckResult:
        if old is None:
            return True
        try:
            volume = self._volume(ctx, str(old[VOLUME]))
        except CloudGone:
            return True
        servers = {a.get("server_id") for a in volume.attachments or ()}
        if old[SERVER] not in servers and volume.status not in ("detaching",):
            return True
        if volume.status in _DETACHING:
            return backoff(progress)
        raise PluginError(
            f"Volume detachment failed: volume {volume.id} went to status {volume.status}",
            resource=ctx.resource_name,
            kind="ResourceUnknownStatus",
        )

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        old = self._detach(ctx, props)
        return None if old is None else Progress({"old": old})

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._detached(ctx, (progress.state if progress else {}).get("old"), progress)

    # -- check -------------------------------------------------------------------------------

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is None:
            return super().check(ctx, props)
        server = ctx.data.get(SERVER_KEY) or props["instance_uuid"]
        volume = ctx.physical_id
        self.call(ctx, lambda conn: conn.compute.get_volume_attachment(server, volume))
        return None

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        # The attachment's state is the volume's (Nova names an attachment by its volume).
        return client.call(lambda conn: conn.block_storage.get_volume(physical_id))
