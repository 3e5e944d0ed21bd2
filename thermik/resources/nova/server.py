"""``OS::Nova::Server``: a Nova server, with Heat's properties, attributes and update rules.

Create makes one Nova request (the flavor, image, networks and security groups named by the
template are resolved once per traversal, however many servers name them): the server carries
its creation tag from that request on, so an engine resuming an interrupted create finds it
rather than booting a second one. The create then waits for ACTIVE, polling with backoff
(:mod:`~thermik.resources.nova.server_steps`); the attributes come from the last poll.

Updates in place: name, metadata, tags, admin_pass; networks by detaching and attaching
interfaces (:mod:`~thermik.resources.nova.network_updates`); a flavor by resize and confirm
(``flavor_update_policy: RESIZE``), an image by rebuild (``image_update_policy: REBUILD`` or
``REBUILD_PRESERVE_EPHEMERAL``), user_data by rebuild (``user_data_update_policy: REBUILD``) or
not at all (``IGNORE``). Anything else, and the ``REPLACE`` policies, replace the server.

``addresses`` and ``console_urls`` cost Neutron and Nova requests of their own: they are
resolved when an action completes only if a template reads them (``lazy_attributes``).

Deployments: a server with ``user_data_format: SOFTWARE_CONFIG`` is a target of
software deployments as an ``OS::Heat::DeployedServer`` is (its metadata endpoint under
:data:`~thermik.resources.software_services.SERVER_ENDPOINT_KEY`, the ``os_collect_config``
attribute); its boot data, built by :mod:`thermik.resources.nova.server_agent`, carries the
agent's configuration.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.lookups import looks_like_id
from thermik.errors import CloudGone, PluginError, PropertyError, ThermikError
from thermik.resources.cloud_access import TAG_PREFIX, cloud_access, creation_tag, find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.implied import server_requirements
from thermik.resources.nova import server_agent, server_steps
from thermik.resources.nova.block_devices import validate_block_devices
from thermik.resources.nova.network_updates import in_place, steps_for
from thermik.resources.nova.networks import (
    addresses_attribute,
    delete_internal_ports,
    first_address,
    networks_attribute,
    nova_networks,
    validate_networks,
)
from thermik.resources.nova.server_body import (
    create_fields,
    rebuild_args,
    serialized_metadata,
    server_name,
    user_tags,
)
from thermik.resources.nova.server_schema import (
    ATTRIBUTES,
    PROPERTIES,
    REBUILD,
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
from thermik.resources.software_services import software_services
from thermik.resources.stack_view import StackView

#: Console types of the ``console_urls`` attribute.
CONSOLE_TYPES = ("novnc", "xvpvnc", "spice-html5", "rdp-html5", "serial", "webmks")
#: Resource data key of the image a snapshot made.
SNAPSHOT_IMAGE_KEY = "snapshot_image_id"
#: Properties an update applies with a call each, on the server as fetched once.
_AT_ONCE = frozenset({"name", "metadata", "tags"})


class Server(CloudResource):
    """``OS::Nova::Server`` (see the module docstring)."""

    service: ClassVar[str] = "nova"
    delete_waits: ClassVar[bool] = True
    properties_schema: ClassVar[PropertiesSchema] = PROPERTIES
    attributes_schema: ClassVar[AttributesSchema] = ATTRIBUTES
    #: Four Neutron requests and six Nova requests, a Neutron look-up per network label:
    #: only when something reads them.
    lazy_attributes: ClassVar[frozenset[str]] = frozenset(
        {"addresses", "console_urls", "networks"}
    )

    # -- validation ---------------------------------------------------------------------------

    @classmethod
    def implied_requirements(cls, name: str, stack: StackView) -> Iterable[str]:
        return server_requirements(name, stack)

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
        if props.get("user_data_format") == SOFTWARE_CONFIG:
            # The server's metadata endpoint is reserved first; its agent configuration goes
            # in the boot data.
            return server_agent.boot_text(ctx, props)
        text = str(props.get("user_data") or "")
        if text and looks_like_id(text):
            try:
                config = software_services(ctx).get_config(text, ctx.stack.tenant).config
            except ThermikError:
                return text
            return config if isinstance(config, str) else json.dumps(config)
        return text or None

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Ask Nova for the server, tagged, then wait for it to be ACTIVE."""
        fields = create_fields(ctx, props, self._user_data(ctx, props))
        fields["networks"] = nova_networks(
            ctx, props.get("networks"), props.get("security_groups")
        )
        tags = list(props.get("tags") or [])
        server = self.create_tagged(
            ctx,
            lambda tag: self.call(
                ctx,
                lambda c: c.compute.create_server(**fields, tags=[*tags, tag]),
                idempotent=False,
            ),
        )
        ctx.set_physical_id(str(server.id))
        server_agent.bind_endpoint(ctx)
        return server_steps.steps(("boot", {}), started=True)

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._advance(ctx, progress)

    def _advance(self, ctx: ResourceContext, progress: Progress | None) -> CheckResult:
        """One look at the server, in the traversal's rounds (see
        :func:`server_steps.advance`)."""
        assert ctx.physical_id is not None
        rounds = server_steps.TaggedRounds(
            cloud_access(ctx).rounds("nova.server"), creation_tag(ctx)
        )
        try:
            result = server_steps.advance(
                self.client(ctx), ctx.physical_id, progress, self.seen, rounds
            )
        except ThermikError:
            rounds.over()
            raise
        if result is True:
            rounds.over()
        return result

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
            todo.append(
                (
                    "rebuild",
                    rebuild_args(
                        ctx, new_props, self._user_data(ctx, new_props) if rebuild_data else None
                    ),
                )
            )
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

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._advance(ctx, progress)

    # -- delete ------------------------------------------------------------------------------

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda c: c.compute.get_server(physical_id))

    def created_with(self, client: CloudClient, tag: str) -> Any:
        found = client.call(lambda c: list(c.compute.servers(tags=tag)))
        return found[0] if found else None

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda c: c.compute.delete_server(physical_id, ignore_missing=False))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Delete the server (its metadata endpoint and its agent's stack user first); the
        ports it made go once it is gone."""
        server_agent.release_endpoint(ctx)
        server_agent.delete_agent_user(ctx)
        started = super().delete(ctx, props)
        if started is None:
            delete_internal_ports(ctx)
        return started

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Gone (or DELETED): done, once the server's own ports are deleted too. A server
        that goes to ERROR while deleted fails the delete with Nova's reason."""
        physical_id = (progress.state if progress else {}).get("waiting")
        if progress is None or not isinstance(physical_id, str):
            delete_internal_ports(ctx)
            return True
        polls = int(progress.state.get("polls", 0))
        if polls == 0:
            return server_steps.later(progress)
        try:
            server = self.fetch(self.client(ctx), physical_id)
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
        server = self.refresh(ctx)
        busy = getattr(server, "task_state", None)
        if status == "queued" and not busy and int(progress.state["polls"]) > 2:
            # The server's snapshot task ended without uploading (a fake virt driver's way).
            raise PluginError(f"Snapshot image {image_id} of the server was never uploaded")
        if status != "active" or busy:
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
        args = rebuild_args(ctx, {**props, "image": image}, None)
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
        return server_agent.agent_config(ctx) or {}

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "name": found.name,
            "first_address": first_address(found),
            "instance_name": found.instance_name,
            "accessIPv4": found.access_ipv4 or "",
            "accessIPv6": found.access_ipv6 or "",
            "tags": user_tags(found),
        }
