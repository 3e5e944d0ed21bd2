"""The property and attribute schemas of ``OS::Cinder::Volume``, as Heat declares them."""

from __future__ import annotations

from thermik.resources.constraints import CustomConstraint, Range
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)

#: Properties a volume can be made from; at most one of them, and ``size`` unless one of the
#: sized ones (a snapshot's or a source volume's size) is given.
SOURCES = ("snapshot_id", "source_volid", "image", "imageRef")
SIZED_SOURCES = ("snapshot_id", "source_volid")

PROPERTIES: PropertiesSchema = {
    "availability_zone": PropertySchema(
        Type.STRING, "The availability zone in which the volume will be created."
    ),
    "size": PropertySchema(
        Type.INTEGER,
        "The size of the volume in GB. On update only increase in size is supported. This "
        "property is required unless property backup_id or source_volid or snapshot_id is "
        "specified.",
        update_allowed=True,
        constraints=(Range(min=1),),
    ),
    "snapshot_id": PropertySchema(
        Type.STRING,
        "If specified, the snapshot to create the volume from.",
        constraints=(CustomConstraint("cinder.snapshot"),),
    ),
    "backup_id": PropertySchema(
        Type.STRING,
        "If specified, the backup to create the volume from.",
        update_allowed=True,
        constraints=(CustomConstraint("cinder.backup"),),
    ),
    "name": PropertySchema(
        Type.STRING, "A name used to distinguish the volume.", update_allowed=True
    ),
    "description": PropertySchema(
        Type.STRING, "A description of the volume.", update_allowed=True
    ),
    "volume_type": PropertySchema(
        Type.STRING,
        "If specified, the type of volume to use, mapping to a specific backend.",
        constraints=(CustomConstraint("cinder.vtype"),),
        update_allowed=True,
    ),
    "metadata": PropertySchema(
        Type.MAP,
        "Key/value pairs to associate with the volume.",
        update_allowed=True,
        default={},
    ),
    "imageRef": PropertySchema(
        Type.STRING,
        "The ID of the image to create the volume from.",
        support_status=SupportStatus(
            SupportLevel.HIDDEN,
            version="5.0.0",
            message="Use property image.",
            previous=SupportStatus(SupportLevel.DEPRECATED, version="2014.1"),
        ),
    ),
    "image": PropertySchema(
        Type.STRING,
        "If specified, the name or ID of the image to create the volume from.",
        constraints=(CustomConstraint("glance.image"),),
    ),
    "source_volid": PropertySchema(
        Type.STRING,
        "If specified, the volume to use as source.",
        constraints=(CustomConstraint("cinder.volume"),),
    ),
    "scheduler_hints": PropertySchema(
        Type.MAP,
        "Arbitrary key-value pairs specified by the client to help the Cinder scheduler "
        "creating a volume.",
        support_status=SupportStatus(version="2015.1"),
    ),
    "read_only": PropertySchema(
        Type.BOOLEAN,
        "Enables or disables read-only access mode of volume.",
        update_allowed=True,
        support_status=SupportStatus(version="5.0.0"),
    ),
    "multiattach": PropertySchema(
        Type.BOOLEAN,
        "Whether allow the volume to be attached more than once.",
        default=False,
        support_status=SupportStatus(
            SupportLevel.HIDDEN,
            version="13.0.0",
            previous=SupportStatus(version="6.0.0"),
        ),
    ),
}

_STRING = AttributeType.STRING

ATTRIBUTES: AttributesSchema = {
    "availability_zone": AttributeSchema(
        "The availability zone in which the volume is located.", type=_STRING
    ),
    "size": AttributeSchema("The size of the volume in GB.", type=_STRING),
    "snapshot_id": AttributeSchema(
        "The snapshot the volume was created from, if any.", type=_STRING
    ),
    "display_name": AttributeSchema("Name of the volume.", type=_STRING),
    "display_description": AttributeSchema("Description of the volume.", type=_STRING),
    "volume_type": AttributeSchema(
        "The type of the volume mapping to a backend, if any.", type=_STRING
    ),
    "metadata": AttributeSchema("Key/value pairs associated with the volume.", type=_STRING),
    "source_volid": AttributeSchema("The volume used as source, if any.", type=_STRING),
    "status": AttributeSchema(
        "The current status of the volume.", type=_STRING, cache_mode=CacheMode.NONE
    ),
    "created_at": AttributeSchema("The timestamp indicating volume creation.", type=_STRING),
    "bootable": AttributeSchema(
        "Boolean indicating if the volume can be booted or not.", type=_STRING
    ),
    "metadata_values": AttributeSchema(
        "Key/value pairs associated with the volume in raw dict form.", type=AttributeType.MAP
    ),
    "encrypted": AttributeSchema(
        "Boolean indicating if the volume is encrypted or not.", type=_STRING
    ),
    "attachments": AttributeSchema(
        "A string representation of the list of attachments of the volume.",
        type=_STRING,
        cache_mode=CacheMode.NONE,
        support_status=SupportStatus(
            SupportLevel.DEPRECATED,
            version="9.0.0",
            message="Use property attachments_list.",
            previous=SupportStatus(version="2015.1"),
        ),
    ),
    "attachments_list": AttributeSchema(
        "The list of attachments of the volume.",
        type=AttributeType.LIST,
        cache_mode=CacheMode.NONE,
        support_status=SupportStatus(version="9.0.0"),
    ),
    "multiattach": AttributeSchema(
        "Boolean indicating whether allow the volume to be attached more than once.",
        type=AttributeType.BOOLEAN,
        support_status=SupportStatus(version="6.0.0"),
    ),
}
