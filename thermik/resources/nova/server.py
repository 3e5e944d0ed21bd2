"""``OS::Nova::Server``: a Nova server, with Heat's properties, attributes and update rules.

Create makes one Nova request (the flavor, image, networks and security groups named by the
template are resolved once per traversal, however many servers name them): the server carries
its creation tag from that request on, so an engine resuming an interrupted create finds it
rather than booting a second one. The create then waits for ACTIVE, polling with backoff
(:mod:`~thermik.resources.nova.server_steps`); the attributes come from the last poll.

Updates in place: name, metadata, tags, admin_pass; a flavor by resize and confirm
(``flavor_update_policy: RESIZE``), an image by rebuild (``image_update_policy: REBUILD`` or
``REBUILD_PRESERVE_EPHEMERAL``), user_data by rebuild (``user_data_update_policy: REBUILD``) or
not at all (``IGNORE``). Anything else, and the ``REPLACE`` policies, replace the server.

Deployments: a server with ``user_data_format: SOFTWARE_CONFIG`` is a target of software
deployments as an ``OS::Heat::DeployedServer`` is (its metadata endpoint under
:data:`~thermik.resources.software_services.SERVER_ENDPOINT_KEY`, the ``os_collect_config``
attribute); building its boot data is :meth:`Server._user_data`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.lookups import looks_like_id
from thermik.errors import CloudGone, PluginError, PropertyError, ThermikError
from thermik.resources.cloud_access import TAG_PREFIX, cloud_access, create_once, find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.context import ResourceContext, ValidationContext, short_id
from thermik.resources.nova import server_steps
from thermik.resources.nova.block_devices import nova_block_devices, validate_block_devices
from thermik.resources.nova.network_updates import in_place, steps_for
from thermik.resources.nova.networks import (
    addresses_attribute,
    delete_internal_ports,
    first_address,
    networks_attribute,
    nova_networks,
    validate_networks,
)
from thermik.resources.nova.server_schema import (
    ATTRIBUTES,
    PROPERTIES,
    REBUILD,
    REBUILD_PRESERVE_EPHEMERAL,
    REPLACE,
    SOFTWARE_CONFIG,
)
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    Progress,
    Props,
    select_path,
)
from thermik.resources.schema import AttributesSchema, PropertiesSchema
from thermik.resources.software_services import SERVER_ENDPOINT_KEY, software_services

#: Heat's ``max_server_name_length``: a generated name stays a valid host name.
MAX_SERVER_NAME = 53
#: Nova's limit on the base64-encoded user_data.
MAX_ENCODED_USER_DATA = 65535
#: Console types of the ``console_urls`` attribute.
CONSOLE_TYPES = ("novnc", "xvpvnc", "spice-html5", "rdp-html5", "serial", "webmks")
#: Resource data key of the image a snapshot made.
SNAPSHOT_IMAGE_KEY = "snapshot_image_id"
#: Properties an update applies with a call each, on the server as fetched once.
_AT_ONCE = frozenset({"name", "metadata", "tags"})


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


class Server(CloudResource):
    """``OS::Nova::Server`` (see the module docstring)."""

    service: ClassVar[str] = "nova"
    delete_waits: ClassVar[bool] = True
    properties_schema: ClassVar[PropertiesSchema] = PROPERTIES
    attributes_schema: ClassVar[AttributesSchema] = ATTRIBUTES
    #: Four Neutron requests and six Nova requests: only when something reads them.
    lazy_attributes: ClassVar[frozenset[str]] = frozenset({"addresses", "console_urls"})

    # -- validation ---------------------------------------------------------------------------

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """Heat's checks across properties: networks, block devices, personality."""
        validate_networks(props.get("networks") or [], props.get("security_groups"))
        validate_block_devices(props)
        if props.get("personality"):
            raise PropertyError(
                "personality is not supported: Nova no longer takes personality files (API "
                "2.57 and later); use user_data instead",
                path=("properties", "personality"),
            )

    # -- create ------------------------------------------------------------------------------

    def _user_data(self, ctx: ResourceContext, props: Props) -> str | None:
        """The user_data text the server boots with (before Nova's base64), per
        ``user_data_format``. A user_data that is the id of a software config (``get_resource``
        of an ``OS::Heat::SoftwareConfig``) stands for that config's text, as in Heat.

        HEAT_CFNTOOLS is given as RAW for now: the boot script runs under cloud-init either
        way; the multipart message Heat wraps it in is built by
        :mod:`thermik.resources.nova.userdata`.
        """
        fmt = props.get("user_data_format")
        if fmt == SOFTWARE_CONFIG:
            raise PluginError(
                f"{ctx.resource_name}: user_data_format SOFTWARE_CONFIG is not supported yet "
                "by OS::Nova::Server (use RAW, or OS::Heat::DeployedServer for deployments)",
                resource=ctx.resource_name,
            )
        text = str(props.get("user_data") or "")
        if text and looks_like_id(text):
            try:
                config = software_services(ctx).get_config(text, ctx.stack.tenant).config
            except ThermikError:
                return text
            return config if isinstance(config, str) else json.dumps(config)
        return text or None

    def _body(self, ctx: ResourceContext, props: Props) -> dict[str, Any]:
        """openstacksdk's create arguments (everything but the networks and the tags)."""
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
            "user_data": encoded(self._user_data(ctx, props)),
            "block_device_mapping": nova_block_devices(
                props, lambda value: find(ctx, "glance.image", value)
            ),
        }
        groups = props.get("security_groups") or []
        if groups and props.get("networks") != [{"allocate_network": "none"}]:
            fields["security_groups"] = [{"name": g} for g in groups]
        return {k: v for k, v in fields.items() if v is not None}

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Ask Nova for the server, tagged, then wait for it to be ACTIVE."""
        fields = self._body(ctx, props)
        networks = nova_networks(ctx, props.get("networks"), props.get("security_groups"))
        if networks is not None:
            fields["networks"] = networks
        made: dict[str, Any] = {}

        def found(tag: str) -> str | None:
            matches = self.call(ctx, lambda c: list(c.compute.servers(tags=tag)))
            return str(matches[0].id) if matches else None

        def new(tag: str) -> str:
            tags = [*(props.get("tags") or []), tag]
            made["it"] = self.call(
                ctx, lambda c: c.compute.create_server(**fields, tags=tags), idempotent=False
            )
            return str(made["it"].id)

        ctx.set_physical_id(create_once(ctx, found, new))
        return server_steps.steps(("boot", {}), started=True)

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._advance(ctx, progress)

    def _advance(self, ctx: ResourceContext, progress: Progress | None) -> CheckResult:
        assert ctx.physical_id is not None
        return server_steps.advance(self.client(ctx), ctx.physical_id, progress, self.seen)

    # -- update ------------------------------------------------------------------------------

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        """Heat's rules: properties that cannot change, and the REPLACE policies."""
        fixed = super().needs_replacement(ctx, new_props, old_props, changed)
        if fixed is not None:
            return fixed
        policies = (
            ("flavor", "flavor_update_policy"),
            ("image", "image_update_policy"),
            ("user_data", "user_data_update_policy"),
        )
        for prop, policy in policies:
            if prop in changed and (new_props.get(policy) or old_props.get(policy)) == REPLACE:
                return NeedsReplacement(f"update of {prop} with {policy} {REPLACE}")
        if "image" in changed and not new_props.get("image"):
            return NeedsReplacement("update of image to none needs replacement")
        if "networks" in changed and not in_place(
            old_props.get("networks"), new_props.get("networks")
        ):
            return NeedsReplacement("update of networks from or to Nova's choice")
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Apply the quick changes at once; resize and rebuild as steps to wait on."""
        assert ctx.physical_id is not None
        if changed & _AT_ONCE:
            self._update_at_once(ctx, new_props, old_props, changed)
        todo: list[tuple[str, Mapping[str, Any]]] = []
        if "networks" in changed:
            todo.extend(
                steps_for(
                    ctx,
                    ctx.physical_id,
                    old_props.get("networks") or [],
                    new_props.get("networks") or [],
                    new_props.get("security_groups") or [],
                )
            )
        if "flavor" in changed:
            flavor = str(new_props["flavor"])
            flavor_id = find(ctx, "nova.flavor", flavor)
            todo.append(("resize", {"flavor": flavor, "flavor_id": flavor_id}))
            todo.append(("confirm", {}))
        rebuild_data = (
            "user_data" in changed and new_props.get("user_data_update_policy") == REBUILD
        )
        if "image" in changed or rebuild_data:
            todo.append(("rebuild", self._rebuild_args(ctx, new_props, user_data=rebuild_data)))
        elif "admin_pass" in changed and new_props.get("admin_pass"):
            password = str(new_props["admin_pass"])
            self.call(ctx, lambda c: c.compute.change_server_password(ctx.physical_id, password))
        if not todo:
            return None
        return server_steps.steps(*todo)

    def _update_at_once(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> None:
        physical_id = ctx.physical_id
        server = self.call(ctx, lambda c: c.compute.get_server(physical_id))
        if "name" in changed:
            name = server_name(ctx, new_props)
            server = self.call(ctx, lambda c: c.compute.update_server(server, name=name))
        if "metadata" in changed:
            metadata = serialized_metadata(new_props.get("metadata"))
            self.call(ctx, lambda c: server.replace_metadata(c.compute, metadata=metadata))
        if "tags" in changed:
            keep = [t for t in server.tags or [] if t.startswith(TAG_PREFIX)]
            tags = [*(new_props.get("tags") or []), *keep]
            self.call(ctx, lambda c: server.set_tags(c.compute, tags))

    def _rebuild_args(
        self, ctx: ResourceContext, props: Props, *, user_data: bool
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "metadata": serialized_metadata(props.get("metadata")),
            "preserve_ephemeral": props.get("image_update_policy") == REBUILD_PRESERVE_EPHEMERAL,
        }
        if props.get("admin_pass"):
            fields["admin_password"] = props["admin_pass"]
        if user_data:
            fields["user_data"] = encoded(self._user_data(ctx, props))
        image = props.get("image")
        return {"image": find(ctx, "glance.image", str(image)), "fields": fields}

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._advance(ctx, progress)

    # -- delete ------------------------------------------------------------------------------

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda c: c.compute.get_server(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda c: c.compute.delete_server(physical_id, ignore_missing=False))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Delete the server; the ports it made go once it is gone."""
        started = super().delete(ctx, props)
        if started is None:
            delete_internal_ports(ctx)
        return started

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Gone (or DELETED): done, once the server's own ports are deleted too. A server
        that goes to ERROR while deleted fails the delete with Nova's reason."""
        if progress is None or ctx.physical_id is None:
            delete_internal_ports(ctx)
            return True
        polls = int(progress.state.get("polls", 0))
        if polls == 0:
            return server_steps.later(progress)
        try:
            server = self.refresh(ctx)
        except CloudGone:
            delete_internal_ports(ctx)
            return True
        status = server_steps.status_of(server)
        if status == "DELETED":
            delete_internal_ports(ctx)
            return True
        if status == "ERROR" and not getattr(server, "task_state", None):
            raise PluginError(
                f"Server {server.name} delete failed: {server_steps.fault_reason(server)}"
            )
        if status == "SOFT_DELETED":
            physical_id = ctx.physical_id
            self.call(ctx, lambda c: c.compute.force_delete_server(physical_id))
        return server_steps.later(progress)

    # -- check, suspend, resume, snapshot, restore -------------------------------------------

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """The server exists and is ACTIVE."""
        super().check(ctx, props)
        status = server_steps.status_of(self._seen)
        if status != "ACTIVE":
            raise PluginError(
                f"Server {ctx.resource_name} is {status}, not ACTIVE", resource=ctx.resource_name
            )
        return None

    def suspend(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return self._step(ctx, "suspend", "SUSPENDED")

    def check_suspend_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._advance(ctx, progress)

    def resume(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return self._step(ctx, "resume", "ACTIVE")

    def check_resume_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._advance(ctx, progress)

    def _step(self, ctx: ResourceContext, kind: str, done: str) -> Progress | None:
        if ctx.physical_id is None:
            raise PluginError(
                f"Cannot {kind} {ctx.resource_name}: it has no server", resource=ctx.resource_name
            )
        server = self.refresh(ctx)
        if server_steps.status_of(server) == done:
            return None
        return server_steps.steps((kind, {}))

    def snapshot(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """An image of the server (kept for a restore)."""
        assert ctx.physical_id is not None
        physical_id, name = ctx.physical_id, server_name(ctx, {})
        image = self.call(
            ctx,
            lambda c: c.compute.create_server_image(physical_id, name, wait=False),
            idempotent=False,
        )
        image_id = str(getattr(image, "id", image))
        ctx.data.set(SNAPSHOT_IMAGE_KEY, image_id)
        return Progress({"image": image_id})

    def check_snapshot_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        if progress is None:
            return True
        if int(progress.state.get("polls", 0)) == 0:
            return server_steps.later(progress)
        image_id = str(progress.state["image"])
        glance = self._glance(ctx)
        image = glance.call(lambda c: c.image.get_image(image_id))
        status = str(image.status or "").lower()
        if status in ("error", "deleted", "killed"):
            raise PluginError(f"Snapshot image {image_id} of the server is {status}")
        if status != "active":
            return server_steps.later(progress)
        server = self.refresh(ctx)
        if getattr(server, "task_state", None):
            return server_steps.later(progress)
        return True

    def _glance(self, ctx: ResourceContext) -> CloudClient:
        return cloud_access(ctx).client("glance")

    def restore(
        self, ctx: ResourceContext, props: Props, snapshot: Mapping[str, str]
    ) -> Progress | None:
        """Rebuild the server from the image its snapshot made."""
        image = snapshot.get(SNAPSHOT_IMAGE_KEY)
        if not image or ctx.physical_id is None:
            return None
        args = self._rebuild_args(ctx, {**props, "image": image}, user_data=False)
        return server_steps.steps(("rebuild", args))

    def check_restore_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._advance(ctx, progress)

    # -- attributes ----------------------------------------------------------------------------

    def attribute(
        self, ctx: ResourceContext, props: Props, name: str, path: Sequence[str | int] = ()
    ) -> Any:
        """As the base, but ``console_urls`` asks Nova only for the console type the path
        names."""
        if name == "console_urls" and path and isinstance(path[0], str):
            return select_path({path[0]: self._console_url(ctx, path[0])}, path)
        return super().attribute(ctx, props, name, path)

    def _console_url(self, ctx: ResourceContext, kind: str) -> str:
        if kind not in CONSOLE_TYPES:
            return f"Unsupported console_type {kind}"
        physical_id = ctx.physical_id
        try:
            found = self.call(ctx, lambda c: c.compute.get_server_console_url(physical_id, kind))
        except ThermikError as error:
            return f"Cannot get console url: {error}"
        except ValueError as error:  # openstacksdk refuses types it does not know
            return f"Cannot get console url: {error}"
        return str((found or {}).get("url", ""))

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        if name == "os_collect_config":
            return self._agent_config(ctx)
        if name == "console_urls":
            return {kind: self._console_url(ctx, kind) for kind in CONSOLE_TYPES}
        if ctx.physical_id is None:
            return None
        try:
            server = self.current(ctx)
        except CloudGone:
            return ""
        if name == "addresses":
            return addresses_attribute(ctx, server)
        if name == "networks":
            return networks_attribute(ctx, server)
        return super().resolve_attribute(ctx, props, name)

    def _agent_config(self, ctx: ResourceContext) -> Any:
        if ctx.physical_id is None or ctx.data.get(SERVER_ENDPOINT_KEY) is None:
            return {}
        found = software_services(ctx).server_agent_config(ctx.physical_id)
        return dict(found) if found is not None else {}

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "name": found.name,
            "first_address": first_address(found),
            "instance_name": found.instance_name,
            "accessIPv4": found.access_ipv4 or "",
            "accessIPv6": found.access_ipv6 or "",
            "tags": user_tags(found),
        }
