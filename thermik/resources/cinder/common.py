"""What Cinder's resource types share: the volume statuses they wait on, and the reason a
volume that went to an error status gives (Cinder's own user message, when it left one)."""

from __future__ import annotations

from typing import Any

from thermik.clients.calls import CloudClient
from thermik.errors import CloudError, PluginError
from thermik.resources.context import ResourceContext

#: Metadata key of the creation tag a volume carries (Cinder volumes have no tags).
TAG_KEY = "thermik_creation_tag"
#: Statuses of a volume that Cinder is still making (from nothing, an image or a backup).
CREATING = frozenset({"creating", "downloading", "restoring-backup"})
#: Statuses of a volume that is busy with an action that ends by itself.
BUSY = frozenset(
    {*CREATING, "extending", "retyping", "attaching", "detaching", "reserved", "maintenance"}
)
#: The microversion of Cinder's user messages API.
MESSAGES_VERSION = "3.3"
#: Statuses of a volume ready for use.
READY = frozenset({"available", "in-use"})


def volume_failed(
    ctx: ResourceContext, client: CloudClient, volume: Any, what: str
) -> PluginError:
    """The error of ``volume`` gone to an error status during ``what`` (``create``,
    ``resize``...), in Heat's words, with the reason Cinder recorded for the user."""
    reason = user_message(client, str(volume.id)) or f"Volume {what} failed"
    return PluginError(
        f'Went to status {volume.status} due to "{reason}"',
        resource=ctx.resource_name,
        kind="ResourceInError",
    )


def user_message(client: CloudClient, resource_id: str) -> str | None:
    """Cinder's latest user message about a volume or backup, if any."""
    try:
        # openstacksdk lists messages without the microversion (3.3) that Cinder needs.
        listed = client.call(
            lambda conn: conn.block_storage.get("/messages", microversion=MESSAGES_VERSION).json()
        )
    except CloudError:
        return None  # the messages API is optional: the status alone still explains it
    mine = [m for m in listed.get("messages") or () if m.get("resource_uuid") == resource_id]
    if not mine:
        return None
    latest = max(mine, key=lambda m: str(m.get("created_at") or ""))
    text = latest.get("user_message")
    return str(text) if text else None


def user_metadata(metadata: Any) -> dict[str, Any]:
    """A volume's metadata as its user sees it: without Thermik's creation tag."""
    return {k: v for k, v in dict(metadata or {}).items() if k != TAG_KEY}
