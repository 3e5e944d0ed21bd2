"""A server's block devices: ``block_device_mapping`` (v1) and ``block_device_mapping_v2``.

Both become Nova's ``block_device_mapping_v2`` in the create request (a v1 mapping is a volume
or a volume made from a snapshot, as Nova itself reads the legacy format), with Heat's defaults:
a volume, snapshot or image is the boot device unless ``boot_index`` says otherwise and stays
after the server; swap and ephemeral disks are local, not bootable, and go with the server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thermik.errors import PropertyError
from thermik.resources.constraints import AllowedValues, CustomConstraint, Range
from thermik.resources.schema import PropertySchema, SupportLevel, SupportStatus, Type

_VOLUME = CustomConstraint("cinder.volume")
_SNAPSHOT = CustomConstraint("cinder.snapshot")
_IMAGE = CustomConstraint("glance.image")

BLOCK_DEVICE_MAPPING = PropertySchema(
    Type.LIST,
    "Volumes of the server (the legacy format).",
    schema=PropertySchema(
        Type.MAP,
        schema={
            "device_name": PropertySchema(
                Type.STRING,
                "Device name of the volume in the server (/dev/<name>), typically vda.",
                required=True,
            ),
            "volume_id": PropertySchema(
                Type.STRING,
                "ID of the volume (give it or snapshot_id).",
                constraints=(_VOLUME,),
            ),
            "snapshot_id": PropertySchema(
                Type.STRING,
                "ID of the snapshot a new volume is made from.",
                constraints=(_SNAPSHOT,),
            ),
            "volume_size": PropertySchema(
                Type.INTEGER, "Size of the volume in GB (Nova infers it when left out)."
            ),
            "delete_on_termination": PropertySchema(
                Type.BOOLEAN, "Whether the volume is deleted with the server."
            ),
        },
    ),
)

BLOCK_DEVICE_MAPPING_V2 = PropertySchema(
    Type.LIST,
    "Block devices of the server.",
    support_status=SupportStatus(version="2015.1"),
    schema=PropertySchema(
        Type.MAP,
        schema={
            "device_name": PropertySchema(
                Type.STRING, "Device name in the server (/dev/<name>), typically vda."
            ),
            "volume_id": PropertySchema(
                Type.STRING, "ID of a volume to attach.", constraints=(_VOLUME,)
            ),
            "image_id": PropertySchema(
                Type.STRING,
                "ID of the image a volume is made from (use image).",
                constraints=(_IMAGE,),
                support_status=SupportStatus(
                    SupportLevel.HIDDEN,
                    version="9.0.0",
                    message="Use property image.",
                    previous=SupportStatus(
                        SupportLevel.DEPRECATED,
                        version="7.0.0",
                        previous=SupportStatus(version="5.0.0"),
                    ),
                ),
            ),
            "image": PropertySchema(
                Type.STRING,
                "Name or ID of the image a volume is made from.",
                constraints=(_IMAGE,),
                support_status=SupportStatus(version="7.0.0"),
            ),
            "snapshot_id": PropertySchema(
                Type.STRING,
                "ID of the snapshot a volume is made from.",
                constraints=(_SNAPSHOT,),
            ),
            "swap_size": PropertySchema(Type.INTEGER, "Size of a swap disk, in MB."),
            "ephemeral_size": PropertySchema(
                Type.INTEGER,
                "Size of a local ephemeral disk, in GB.",
                constraints=(Range(min=1),),
                support_status=SupportStatus(version="8.0.0"),
            ),
            "ephemeral_format": PropertySchema(
                Type.STRING,
                "File system of the local ephemeral disk (Nova's default when left out).",
                constraints=(AllowedValues(("ext2", "ext3", "ext4", "xfs", "ntfs")),),
                support_status=SupportStatus(version="8.0.0"),
            ),
            "device_type": PropertySchema(
                Type.STRING,
                "Type of the device: disk or cdrom.",
                constraints=(AllowedValues(("cdrom", "disk")),),
            ),
            "disk_bus": PropertySchema(
                Type.STRING,
                "Bus of the device (the hypervisor picks one when left out).",
                constraints=(AllowedValues(("ide", "lame_bus", "sata", "scsi", "usb", "virtio")),),
            ),
            "boot_index": PropertySchema(
                Type.INTEGER,
                "Boot order of the device: 0 by default for a volume, snapshot or image, -1 "
                "for the others.",
            ),
            "volume_size": PropertySchema(
                Type.INTEGER, "Size of the device in GB (the hypervisor's when left out)."
            ),
            "delete_on_termination": PropertySchema(
                Type.BOOLEAN,
                "Whether the device is deleted with the server (by default false for a "
                "volume, snapshot or image, true for swap and ephemeral disks).",
            ),
            "volume_type": PropertySchema(
                Type.STRING,
                "Volume type of a volume made from an image, a snapshot or nothing.",
                constraints=(CustomConstraint("cinder.vtype"),),
                support_status=SupportStatus(version="26.0.0"),
            ),
        },
    ),
)

#: Keys a v2 mapping passes to Nova as they are, when set.
_PASSED = (
    "device_type",
    "disk_bus",
    "boot_index",
    "volume_size",
    "delete_on_termination",
    "volume_type",
)


def _bdm_error(message: str, *path: str | int) -> PropertyError:
    return PropertyError(message, path=("properties", *path))


def validate_block_devices(props: Mapping[str, Any]) -> None:
    """Heat's checks: one format only, one source per mapping, and something to boot from.

    Raises:
        PropertyError: naming the property (and mapping) at fault.
    """
    v1 = props.get("block_device_mapping") or []
    v2 = props.get("block_device_mapping_v2") or []
    if v1 and v2:
        raise _bdm_error(
            "block_device_mapping and block_device_mapping_v2 may not both be given",
            "block_device_mapping_v2",
        )
    bootable = props.get("image") is not None
    for index, mapping in enumerate(v1):
        if mapping.get("volume_id") and mapping.get("snapshot_id"):
            raise _bdm_error(
                "volume_id and snapshot_id may not both be given",
                "block_device_mapping",
                index,
            )
        if not (mapping.get("volume_id") or mapping.get("snapshot_id")):
            raise _bdm_error(
                f"either volume_id or snapshot_id must be given for device "
                f"{mapping.get('device_name')}",
                "block_device_mapping",
                index,
            )
        bootable = bootable or mapping.get("device_name") == "vda"
    sources = [props.get("image")] if props.get("image") is not None else []
    for index, mapping in enumerate(v2):
        given = [k for k in _SOURCES if mapping.get(k) is not None]
        if mapping.get("ephemeral_format") is not None and "ephemeral_size" not in given:
            given.append("ephemeral_format")
        if len(given) > 1:
            raise _bdm_error(
                f"only one of {', '.join(_SOURCES)} may be given, not {', '.join(given)}",
                "block_device_mapping_v2",
                index,
            )
        if not given:
            raise _bdm_error(
                f"one of {', '.join(_SOURCES)} must be given", "block_device_mapping_v2", index
            )
        source = _source(mapping)
        if source and mapping.get("boot_index") in (None, 0):
            bootable = True
            sources.append(source)
    if not bootable:
        raise _bdm_error("neither image nor a bootable volume is given", "image")
    if v2 and len(sources) > 1:
        raise _bdm_error("more than one bootable source is given", "block_device_mapping_v2")


_SOURCES = ("volume_id", "snapshot_id", "image", "image_id", "swap_size", "ephemeral_size")


def _source(mapping: Mapping[str, Any]) -> str | None:
    for key in ("volume_id", "snapshot_id", "image", "image_id"):
        if mapping.get(key):
            return str(mapping[key])
    return None


def _v1(mapping: Mapping[str, Any]) -> dict[str, Any]:
    snapshot = mapping.get("snapshot_id")
    out: dict[str, Any] = {
        "source_type": "snapshot" if snapshot else "volume",
        "destination_type": "volume",
        "uuid": snapshot or mapping.get("volume_id"),
        "device_name": mapping["device_name"],
        "boot_index": 0 if mapping["device_name"] == "vda" else -1,
    }
    if mapping.get("volume_size"):
        out["volume_size"] = mapping["volume_size"]
    if mapping.get("delete_on_termination") is not None:
        out["delete_on_termination"] = mapping["delete_on_termination"]
    return out


def _v2(mapping: Mapping[str, Any], image_id: str | None) -> dict[str, Any]:
    out: dict[str, Any]
    if mapping.get("volume_id") or mapping.get("snapshot_id") or image_id:
        kind = "volume" if mapping.get("volume_id") else "snapshot"
        out = {
            "uuid": mapping.get("volume_id") or mapping.get("snapshot_id") or image_id,
            "source_type": "image" if image_id else kind,
            "destination_type": "volume",
            "boot_index": 0,
            "delete_on_termination": False,
        }
    else:
        out = {
            "source_type": "blank",
            "destination_type": "local",
            "boot_index": -1,
            "delete_on_termination": True,
        }
        if mapping.get("swap_size"):
            out.update(guest_format="swap", volume_size=mapping["swap_size"])
        else:
            if mapping.get("ephemeral_size"):
                out["volume_size"] = mapping["ephemeral_size"]
            if mapping.get("ephemeral_format"):
                out["guest_format"] = mapping["ephemeral_format"]
    if mapping.get("device_name"):
        out["device_name"] = mapping["device_name"]
    out.update({k: mapping[k] for k in _PASSED if mapping.get(k) is not None})
    return out


def nova_block_devices(props: Mapping[str, Any], image_of: Any) -> list[dict[str, Any]] | None:
    """Nova's ``block_device_mapping_v2`` for the properties (``None`` when there are none);
    ``image_of(name_or_id)`` resolves an image."""
    v1: Sequence[Mapping[str, Any]] = props.get("block_device_mapping") or []
    v2: Sequence[Mapping[str, Any]] = props.get("block_device_mapping_v2") or []
    if v1:
        return [_v1(m) for m in v1]
    if v2:
        out = []
        for m in v2:
            image = m.get("image") or m.get("image_id")
            out.append(_v2(m, image_of(image) if image else None))
        return out
    return None
