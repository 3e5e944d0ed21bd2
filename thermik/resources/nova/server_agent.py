"""How an ``OS::Nova::Server`` becomes a target of software deployments (its plugin calls these).

A Nova server boots with its agent's configuration in its user_data, so its metadata endpoint
must exist before the server does:

1. :func:`boot_user_data` (or :func:`boot_text`, the same before base64), before the Nova
   create: with ``user_data_format: SOFTWARE_CONFIG``, reserves the endpoint through the
   engine's software services (named by the stack and the resource version, so a create
   resumed after a crash reserves the same one), keeps its record under
   :data:`~thermik.resources.software_services.SERVER_ENDPOINT_KEY` and returns the user_data
   (any format) for Nova's create call;
2. :func:`bind_endpoint`, once the server's id is known: the endpoint serves that server, and
   deployments to it are delivered (idempotent: call it on every resumed create, too);
3. :func:`agent_config` is the ``os_collect_config`` attribute;
4. :func:`release_endpoint`, on delete (and when the create is given up): revokes it, and
   :func:`delete_agent_user` deletes the server's stack user.

The transports whose agent logs in to Keystone (``POLL_SERVER_HEAT``, ``ZAQAR_MESSAGE``) get a
stack domain user of the server's own (:func:`agent_credentials`) when the engine has a stack
user domain: its id is kept under :data:`~thermik.resources.stack_users.STACK_USER_KEY` (the
API lets it read this server's metadata and signal its deployments, nothing else), its
password redacted.

A server of another format has no endpoint; all of these are then no-ops (None).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from thermik.errors import ThermikError
from thermik.resources.agent_config import NOVA_DEFAULT_COLLECTORS
from thermik.resources.context import ResourceContext
from thermik.resources.nova.userdata import (
    SOFTWARE_CONFIG,
    build_user_data,
    encode_user_data,
    server_metadata,
    user_data_content,
)
from thermik.resources.software_services import SERVER_ENDPOINT_KEY, software_services
from thermik.resources.stack_users import STACK_USER_KEY, stack_user_services

DEFAULT_TRANSPORT = "POLL_SERVER_CFN"
#: The transports whose agent logs in to Keystone as the server's stack user.
KEYSTONE_TRANSPORTS = frozenset({"POLL_SERVER_HEAT", "ZAQAR_MESSAGE"})
_PASSWORD_KEY = "stack_user_password"


def endpoint_name(ctx: ResourceContext) -> str:
    """The name the server's endpoint is reserved under: unique to this resource version."""
    return f"{ctx.stack.id}-{ctx.version_id}"


def _find_config(ctx: ResourceContext) -> Callable[[str], str | None]:
    def find(config_id: str) -> str | None:
        try:
            config = software_services(ctx).get_config(config_id, ctx.stack.tenant).config
        except ThermikError:  # Heat uses the value as is when no config has that id
            return None
        return config if isinstance(config, str) else json.dumps(config)

    return find


def boot_user_data(
    ctx: ResourceContext,
    props: Mapping[str, Any],
    *,
    credentials: Mapping[str, str] | None = None,
    instance_user: str | None = None,
) -> str | None:
    """The base64 user_data for Nova's create call (:func:`boot_text`, encoded)."""
    text = boot_text(ctx, props, credentials=credentials, instance_user=instance_user)
    return encode_user_data(text)


def boot_text(
    ctx: ResourceContext,
    props: Mapping[str, Any],
    *,
    credentials: Mapping[str, str] | None = None,
    instance_user: str | None = None,
) -> str | None:
    """The user_data text a server boots with, before Nova's base64.

    ``props`` are the server's properties (``user_data``, ``user_data_format``,
    ``software_config_transport``); ``credentials`` the agent's own where the transport needs
    them (POLL_SERVER_HEAT, ZAQAR_MESSAGE): by default a stack user made for the server
    (:func:`agent_credentials`).

    Raises:
        PluginError: the engine offers no software deployment services, or not the transport.
        PropertyError: bad metadata or user_data.
        CloudError: Keystone refused the server's stack user.
    """
    fmt = str(props.get("user_data_format") or "HEAT_CFNTOOLS")
    content = user_data_content(props.get("user_data") or None, fmt, _find_config(ctx))
    metadata = None
    if fmt == SOFTWARE_CONFIG:
        transport = str(props.get("software_config_transport") or DEFAULT_TRANSPORT)
        if credentials is None:
            credentials = agent_credentials(ctx, transport)
        endpoint = software_services(ctx).reserve_server(
            endpoint_name(ctx),
            transport,
            {},
            credentials=credentials,
            default_collectors=NOVA_DEFAULT_COLLECTORS,
        )
        ctx.data.set(SERVER_ENDPOINT_KEY, json.dumps(dict(endpoint.record)), redact=True)
        metadata = server_metadata({}, endpoint.agent_config)
    return build_user_data(fmt, content, metadata, instance_user=instance_user)


def agent_credentials(ctx: ResourceContext, transport: str) -> dict[str, str] | None:
    """The server's agent's Keystone credentials for ``transport``: a stack user of the
    server's own (made, or taken over with a new password), and for POLL_SERVER_HEAT the
    resource the agent reads. None for the other transports, and when the engine has no stack
    user domain (POLL_SERVER_HEAT is then served as the configured transport).

    Raises:
        CloudError: Keystone refused (the message is Keystone's).
    """
    if transport not in KEYSTONE_TRANSPORTS or getattr(ctx, "stack_users", None) is None:
        return None
    users = stack_user_services(ctx)
    user = users.create_user(ctx)
    ctx.data.set(STACK_USER_KEY, user.user_id)
    ctx.data.set(_PASSWORD_KEY, user.password, redact=True)
    found = {
        "auth_url": users.auth_url,
        "user_id": user.user_id,
        "password": user.password,
        "project_id": user.project_id,
    }
    if users.region_name:
        found["region_name"] = users.region_name
    if transport == "POLL_SERVER_HEAT":
        found["stack_id"] = f"{ctx.stack.name}/{ctx.stack.id}"
        found["resource_name"] = ctx.resource_name
    return found


def delete_agent_user(ctx: ResourceContext) -> None:
    """Delete the server's stack user, if it has one (one gone already is fine)."""
    user_id = ctx.data.get(STACK_USER_KEY)
    if not user_id:
        return
    stack_user_services(ctx).delete_user(ctx, user_id)
    ctx.data.delete(STACK_USER_KEY)
    ctx.data.delete(_PASSWORD_KEY)


def _record(ctx: ResourceContext) -> dict[str, Any] | None:
    text = ctx.data.get(SERVER_ENDPOINT_KEY)
    if not text:
        return None
    record: dict[str, Any] = json.loads(text)
    return record


def bind_endpoint(ctx: ResourceContext) -> None:
    """The server exists (``ctx.physical_id``): deliver its deployments through its endpoint."""
    record = _record(ctx)
    if record is None or ctx.physical_id is None:
        return
    bound = software_services(ctx).bind_server(ctx.physical_id, record)
    ctx.data.set(SERVER_ENDPOINT_KEY, json.dumps(dict(bound.record)), redact=True)


def agent_config(ctx: ResourceContext) -> dict[str, Any] | None:
    """The ``os_collect_config`` attribute: the agent's configuration, with fresh URLs."""
    if ctx.physical_id is None or _record(ctx) is None:
        return None
    found = software_services(ctx).server_agent_config(ctx.physical_id)
    return dict(found) if found is not None else None


def release_endpoint(ctx: ResourceContext) -> None:
    """Revoke the server's endpoint (bound or only reserved) and forget it."""
    record = _record(ctx)
    if record is None:
        return
    services = software_services(ctx)
    if ctx.physical_id is not None:
        services.release_server(ctx.physical_id)
    services.revoke_endpoint(record)
    ctx.data.delete(SERVER_ENDPOINT_KEY)
