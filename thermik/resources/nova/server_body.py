"""What a server's create and rebuild requests carry, in the form Nova takes it: its name,
flavor and image ids, metadata, user_data (base64), block devices and tags."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from thermik.errors import PropertyError
from thermik.resources.cloud_access import TAG_PREFIX, find
from thermik.resources.context import ResourceContext, short_id
from thermik.resources.nova.block_devices import nova_block_devices
from thermik.resources.nova.server_schema import REBUILD_PRESERVE_EPHEMERAL
from thermik.resources.plugin import Props

#: Heat's ``max_server_name_length``: a generated name stays a valid host name.
MAX_SERVER_NAME = 53
#: Nova's limit on the base64-encoded user_data.
MAX_ENCODED_USER_DATA = 65535


def server_name(ctx: ResourceContext, props: Props) -> str:
    """The ``name`` property, else ``<stack>-<resource>-<short id>`` cut to a host name's
    length (the stack name's head and the resource name's tail, as Heat cuts it)."""
    if props.get("name"):
        return str(props["name"])
    suffix = short_id(ctx.random)
    name = f"{ctx.stack.name}-{ctx.resource_name}-{suffix}"
    if len(name) <= MAX_SERVER_NAME:
        return name
    room = MAX_SERVER_NAME - len(suffix) - 2
    head = ctx.stack.name[: room // 2]
    tail = ctx.resource_name[-(room - len(head)) :]
    return f"{head}-{tail}-{suffix}"


def serialized_metadata(metadata: Mapping[str, Any] | None) -> dict[str, str]:
    """Nova's server metadata: values other than strings as JSON, as Heat sends them."""
    return {
        str(k): v if isinstance(v, str) else json.dumps(v) for k, v in (metadata or {}).items()
    }


def encoded(user_data: str | None) -> str | None:
    """The user_data as Nova takes it (base64).

    Raises:
        PropertyError: it is longer than Nova accepts.
    """
    if not user_data:
        return None
    out = base64.b64encode(user_data.encode("utf-8")).decode("ascii")
    if len(out) > MAX_ENCODED_USER_DATA:
        raise PropertyError(
            f"user_data is {len(out)} bytes once encoded, more than Nova's "
            f"{MAX_ENCODED_USER_DATA}",
            path=("properties", "user_data"),
        )
    return out


def user_tags(server: Any) -> list[str]:
    """The server's tags without the creation tag Thermik put on it."""
    return [t for t in getattr(server, "tags", None) or [] if not t.startswith(TAG_PREFIX)]


def create_fields(ctx: ResourceContext, props: Props, user_data: str | None) -> dict[str, Any]:
    """openstacksdk's create arguments but the networks and the tags: the flavor and images
    resolved (once per traversal), ``user_data`` the text to boot with."""
    image = props.get("image")
    fields: dict[str, Any] = {
        "name": server_name(ctx, props),
        "flavor_id": find(ctx, "nova.flavor", props["flavor"]),
        "image_id": find(ctx, "glance.image", image) if image else None,
        "key_name": props.get("key_name"),
        "availability_zone": props.get("availability_zone"),
        "metadata": serialized_metadata(props.get("metadata")) or None,
        "scheduler_hints": props.get("scheduler_hints") or None,
        "config_drive": props.get("config_drive"),
        "admin_password": props.get("admin_pass") or None,
        "disk_config": props.get("diskConfig"),
        "user_data": encoded(user_data),
        "block_device_mapping": nova_block_devices(
            props, lambda value: find(ctx, "glance.image", value)
        ),
    }
    groups = props.get("security_groups") or []
    networks = props.get("networks") or []
    if groups and not (networks and networks[0].get("allocate_network") == "none"):
        fields["security_groups"] = [{"name": g} for g in groups]
    return {k: v for k, v in fields.items() if v is not None}


def rebuild_args(ctx: ResourceContext, props: Props, user_data: str | None) -> dict[str, Any]:
    """The rebuild step's arguments: the image resolved, the metadata, the password, the
    ephemeral disk kept or not, and a new ``user_data`` when given."""
    fields: dict[str, Any] = {
        "metadata": serialized_metadata(props.get("metadata")),
        "preserve_ephemeral": props.get("image_update_policy") == REBUILD_PRESERVE_EPHEMERAL,
    }
    if props.get("admin_pass"):
        fields["admin_password"] = props["admin_pass"]
    if user_data is not None:
        fields["user_data"] = encoded(user_data)
    image = props.get("image")
    return {"image": find(ctx, "glance.image", str(image)), "fields": fields}
