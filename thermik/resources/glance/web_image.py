"""``OS::Glance::WebImage``: a Glance image whose data Glance downloads from a URL itself
(the ``web-download`` import method of Glance's interoperable image import)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.images import create_image_record, remove_image_properties
from thermik.errors import PluginError, PropertyError
from thermik.resources.cloud_access import TAG_PREFIX
from thermik.resources.cloud_resource import CloudResource, backoff
from thermik.resources.constraints import AllowedPattern, AllowedValues, Range
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.plugin import CheckResult, Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

_ID = AllowedPattern(
    r"^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$"
)
_AMI = ("ami", "ari", "aki")
#: Properties sent to Glance's create as they are named.
_CREATED = (
    "name",
    "min_disk",
    "min_ram",
    "protected",
    "disk_format",
    "container_format",
    "architecture",
    "kernel_id",
    "os_distro",
    "os_version",
    "owner",
    "visibility",
    "ramdisk_id",
)
#: Properties an update sends to Glance as they are named (the rest have calls of their own).
_UPDATED = (
    "protected",
    "architecture",
    "kernel_id",
    "os_distro",
    "os_version",
    "owner",
    "visibility",
    "ramdisk_id",
)


def _updatable(kind: Type, description: str, **extra: Any) -> PropertySchema:
    return PropertySchema(kind, description, update_allowed=True, **extra)


class WebImage(CloudResource):
    """``OS::Glance::WebImage``.

    The create makes the image record (carrying the creation tag among its tags), asks Glance
    to import the data from ``location``, then polls, with backoff, until the image is
    ``active`` (or ``deactivated`` when ``active`` is false). An import Glance gives up on
    (``killed``, or back to ``queued`` after importing) fails the resource.
    """

    service: ClassVar[str] = "glance"
    support_status = SupportStatus(version="12.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(Type.STRING, "Name for the image (not unique in Glance)."),
        "id": PropertySchema(
            Type.STRING, "The image ID. Glance will generate a UUID if not specified."
        ),
        "min_disk": PropertySchema(
            Type.INTEGER,
            "Disk space (in GB) required to boot the image; 0 means no limit.",
            default=0,
            constraints=(Range(min=0),),
        ),
        "min_ram": PropertySchema(
            Type.INTEGER,
            "RAM (in MB) required to boot the image; 0 means no limit.",
            default=0,
            constraints=(Range(min=0),),
        ),
        "protected": _updatable(
            Type.BOOLEAN, "Whether the image is protected from deletion.", default=False
        ),
        "disk_format": PropertySchema(
            Type.STRING,
            "Disk format of image.",
            required=True,
            constraints=(
                AllowedValues(
                    (
                        "ami",
                        "ari",
                        "aki",
                        "vhd",
                        "vhdx",
                        "vmdk",
                        "raw",
                        "qcow2",
                        "vdi",
                        "iso",
                        "ploop",
                    )
                ),
            ),
        ),
        "container_format": PropertySchema(
            Type.STRING,
            "Container format of image.",
            required=True,
            constraints=(AllowedValues(("ami", "ari", "aki", "bare", "ovf", "ova", "docker")),),
        ),
        "location": PropertySchema(
            Type.STRING,
            "URL Glance downloads the image data from.",
            required=True,
        ),
        "tags": _updatable(Type.LIST, "List of image tags."),
        "architecture": _updatable(Type.STRING, "Operating system architecture."),
        "kernel_id": _updatable(
            Type.STRING,
            "ID of the Glance image to boot as kernel of an AMI-style image.",
            constraints=(_ID,),
        ),
        "os_distro": _updatable(
            Type.STRING, "The common name of the operating system distribution in lowercase."
        ),
        "os_version": _updatable(
            Type.STRING, "Operating system version as specified by the distributor."
        ),
        "owner": _updatable(Type.STRING, "Owner of the image."),
        "extra_properties": _updatable(
            Type.MAP,
            "Arbitrary properties to associate with the image.",
            default={},
            support_status=SupportStatus(version="17.0.0"),
        ),
        "visibility": _updatable(
            Type.STRING,
            "Scope of image accessibility.",
            default="private",
            constraints=(AllowedValues(("public", "private", "community", "shared")),),
        ),
        "ramdisk_id": _updatable(
            Type.STRING,
            "ID of the Glance image to boot as ramdisk of an AMI-style image.",
            constraints=(_ID,),
        ),
        "active": _updatable(
            Type.BOOLEAN,
            "Activate or deactivate the image (deactivating requires admin rights).",
            default=True,
            support_status=SupportStatus(version="16.0.0"),
        ),
        "members": _updatable(
            Type.LIST,
            "Projects (or users, as Glance is configured) that may read a shared image.",
            schema=PropertySchema(Type.STRING, "A member ID."),
            support_status=SupportStatus(version="16.0.0"),
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        container, disk = props.get("container_format"), props.get("disk_format")
        known = not (vctx.unresolved(container) or vctx.unresolved(disk))
        if known and container in _AMI and disk != container:
            raise PropertyError(
                "Invalid mix of disk and container formats. When setting a disk or container "
                "format to one of 'aki', 'ari', or 'ami', the container and disk formats must "
                "match.",
                path=("properties", "disk_format"),
            )
        visibility = props.get("visibility")
        if props.get("members") and not vctx.unresolved(visibility) and visibility != "shared":
            raise PropertyError(
                'The property "members" requires "visibility" to be "shared".',
                path=("properties", "members"),
            )

    # -- create -------------------------------------------------------------------------------

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields: dict[str, Any] = dict(props.get("extra_properties") or {})
        fields.update({n: props[n] for n in _CREATED if props.get(n) is not None})
        if props.get("id"):
            fields["id"] = props["id"]
        location = props["location"]

        def make(tag: str) -> Any:
            record = {**fields, "tags": [*(props.get("tags") or []), tag]}
            return self.call(ctx, lambda conn: create_image_record(conn, record), idempotent=False)

        image = self.create_tagged(ctx, make)
        ctx.set_physical_id(image.id)
        if image.status == "queued":
            self.call(
                ctx,
                lambda conn: conn.image.import_image(image, method="web-download", uri=location),
            )
        self.call_each(
            ctx,
            props.get("members") or [],
            lambda conn, m: conn.image.add_member(image, member_id=m),
        )
        return Progress({"active": props["active"]})

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        image = self.refresh(ctx)
        status = image.status
        if status in ("killed", "deleted") or (status == "queued" and _import_failed(image)):
            why = self.call(ctx, lambda conn: _import_failure(conn, image))
            raise PluginError(
                f"Glance did not import the image from its location (status {status}): {why}",
                resource=ctx.resource_name,
            )
        wanted_active = (progress.state if progress else {}).get("active", True)
        if status == "active" and not wanted_active:
            self.call(ctx, lambda conn: conn.image.deactivate_image(image))
            return True
        if status == "active" or (status == "deactivated" and not wanted_active):
            return True
        return backoff(progress)

    # -- update -------------------------------------------------------------------------------

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        image_id = ctx.physical_id
        if "active" in changed and not new_props["active"]:
            self.call(ctx, lambda conn: conn.image.deactivate_image(image_id))
        if "tags" in changed:
            self._retag(ctx, image_id, old_props.get("tags") or [], new_props.get("tags") or [])
        fields = {
            n: new_props[n] for n in _UPDATED if n in changed and new_props.get(n) is not None
        }
        if "extra_properties" in changed:
            old = old_props.get("extra_properties") or {}
            new = new_props.get("extra_properties") or {}
            fields.update(new)
            gone = sorted(set(old) - set(new))
            if gone:
                self.call(ctx, lambda conn: remove_image_properties(conn, image_id, gone))
        if fields:
            self.seen(self.call(ctx, lambda conn: conn.image.update_image(image_id, **fields)))
        if "members" in changed:
            self._share(ctx, image_id, old_props.get("members") or [], new_props.get("members"))
        if "active" in changed and new_props["active"]:
            self.call(ctx, lambda conn: conn.image.reactivate_image(image_id))
        return None

    def _retag(
        self, ctx: ResourceContext, image_id: str, old: Iterable[str], new: Iterable[str]
    ) -> None:
        added = sorted(set(new) - set(old))
        removed = sorted(t for t in set(old) - set(new) if not t.startswith(TAG_PREFIX))
        self.call_each(ctx, added, lambda conn, t: conn.image.add_tag(image_id, t))
        self.call_each(ctx, removed, lambda conn, t: conn.image.remove_tag(image_id, t))

    def _share(
        self, ctx: ResourceContext, image_id: str, old: Iterable[str], new: Iterable[str] | None
    ) -> None:
        wanted = set(new or [])
        added, removed = sorted(wanted - set(old)), sorted(set(old) - wanted)
        self.call_each(ctx, added, lambda conn, m: conn.image.add_member(image_id, member_id=m))
        self.call_each(ctx, removed, lambda conn, m: conn.image.remove_member(m, image_id))

    # -- the cloud resource ------------------------------------------------------------------

    def created_with(self, client: CloudClient, tag: str) -> Any:
        return client.call(lambda conn: next(iter(conn.image.images(tag=[tag])), None))

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.image.get_image(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: conn.image.delete_image(physical_id, ignore_missing=False))


def _import_failed(image: Any) -> bool:
    """Whether Glance tried an import of ``image`` and gave up (it then goes back to queued)."""
    return bool(_extra(image, "os_glance_failed_import"))


def _import_failure(conn: Any, image: Any) -> str:
    """Glance's own reason for the failed import of ``image`` (its import task's message)."""
    for task in conn.image.image_tasks(image):
        if task.status == "failure" and task.message:
            return str(task.message)
    return "Glance gave no reason"


def _extra(image: Any, name: str) -> Any:
    properties = getattr(image, "properties", None) or {}
    return properties.get(name) if isinstance(properties, dict) else None
