"""What a wait condition handle gives its signaller, per ``signal_transport``.

``TOKEN_SIGNAL`` (Heat's default): with a stack user domain and a REST API serving the engine
(service mode), the handle gets a stack user of its own and hands out a Keystone token of it
and the API's signal URL of the handle, in the stack user project as Heat addresses it; the
``curl_cli`` attribute is Heat's curl command prefix, which a script completes with
``--data-binary '{"status": "SUCCESS"}'``. Without them (local mode) the endpoint is the
builtin delivery's capability URL of the handle, POSTed to with no token: ``token`` is null and
``curl_cli`` sends no ``X-Auth-Token``.

``HEAT_SIGNAL`` hands out the stack user's credentials and the API's signal URL in ``signal``
(Heat's ``alarm_url``, ``auth_url``, ``user_id``, ``password``, ``project_id``, ...);
``NO_SIGNAL`` is signalled by the handle itself on create. ``TEMP_URL_SIGNAL``, on an engine
with a cloud, makes a Swift signal object as ``OS::Heat::SwiftSignalHandle`` does and hands out
its PUT TempURL as ``signal``'s ``alarm_url``; the wait condition reads the signals PUT there
beside those sent through the engine. ``ZAQAR_SIGNAL`` and ``CFN_SIGNAL`` hand out nothing
yet.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from thermik.errors import PluginError
from thermik.resources.context import ResourceContext
from thermik.resources.handle_signals import api_signal_url, handle_signal_services
from thermik.resources.stack_users import (
    STACK_USER_KEY,
    StackUser,
    StackUserServices,
    stack_user_services,
)
from thermik.resources.swift.signal_objects import (
    delete_signal_object,
    make_signal_object,
    object_name,
)

TOKEN_SIGNAL, HEAT_SIGNAL, NO_SIGNAL = "TOKEN_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL"
TEMP_URL_SIGNAL = "TEMP_URL_SIGNAL"
#: Resource data key of a TEMP_URL_SIGNAL handle's Swift signal object.
SWIFT_OBJECT = "swift_signal_object"
#: Resource data keys of the handle's credentials.
#: The user id under STACK_USER_KEY: the API lets that stack user signal this handle only.
USER_ID, PASSWORD, PROJECT_ID, TOKEN, ENDPOINT = (
    STACK_USER_KEY,
    "password",
    "project_id",
    "token",
    "endpoint",
)
_HEADERS = "-H 'Content-Type: application/json' -H 'Accept: application/json'"


def provision(ctx: ResourceContext, transport: str) -> None:
    """Make what the handle's signaller needs and keep it in the resource data.

    Raises:
        PluginError: HEAT_SIGNAL on an engine without a stack user domain or REST API.
        CloudError: Keystone refused the stack user or its token.
    """
    if transport == TEMP_URL_SIGNAL and getattr(ctx, "cloud", None) is not None:
        name = object_name(ctx)
        ctx.data.set(ENDPOINT, make_signal_object(ctx, name), redact=True)
        ctx.data.set(SWIFT_OBJECT, name)
        return
    if transport not in (TOKEN_SIGNAL, HEAT_SIGNAL):
        return
    services = handle_signal_services(ctx)
    api_url = None if services is None else services.api_url
    users = getattr(ctx, "stack_users", None)
    if api_url is not None and (isinstance(users, StackUserServices) or transport == HEAT_SIGNAL):
        user = _user(ctx, stack_user_services(ctx))
        endpoint = api_signal_url(api_url, user.project_id, ctx.stack, ctx.resource_name)
        ctx.data.set(ENDPOINT, endpoint)
        if transport == TOKEN_SIGNAL:
            ctx.data.set(TOKEN, stack_user_services(ctx).token(user), redact=True)
        return
    if transport == HEAT_SIGNAL:
        raise PluginError(
            f"{ctx.resource_name}: signal_transport HEAT_SIGNAL needs the engine's REST API "
            "(thermik-api) to signal through, and this engine runs without it",
            resource=ctx.resource_name,
        )
    url = None if services is None else services.handle_signal_url(ctx.stack.id, ctx.resource_name)
    if url is not None:
        ctx.data.set(ENDPOINT, url, redact=True)


def _user(ctx: ResourceContext, users: StackUserServices) -> StackUser:
    user = users.create_user(ctx)
    ctx.data.set(USER_ID, user.user_id)
    ctx.data.set(PROJECT_ID, user.project_id)
    ctx.data.set(PASSWORD, user.password, redact=True)
    return user


def release(ctx: ResourceContext) -> None:
    """Delete the handle's stack user or Swift signal object, if it has one (one gone
    already is fine)."""
    swift_object = ctx.data.get(SWIFT_OBJECT)
    if swift_object is not None:
        delete_signal_object(ctx, swift_object)
        ctx.data.delete(SWIFT_OBJECT)
    user_id = ctx.data.get(USER_ID)
    if user_id is not None:
        stack_user_services(ctx).delete_user(ctx, user_id)
        ctx.data.delete(USER_ID)
    for key in (PASSWORD, TOKEN, ENDPOINT):
        ctx.data.delete(key)


def curl_cli(token: str | None, endpoint: str | None) -> str | None:
    """The curl command prefix that signals ``endpoint`` (Heat's shape with a token)."""
    if endpoint is None:
        return None
    if token is None:
        return f"curl -i -X POST {_HEADERS} {shlex.quote(endpoint)}"
    return f"curl -i -X POST -H 'X-Auth-Token: {token}' {_HEADERS} {endpoint}"


def attribute(ctx: ResourceContext, transport: str, name: str) -> Any:
    """The handle's attribute ``name`` (``token``, ``endpoint``, ``curl_cli``, ``signal``)."""
    token, endpoint = ctx.data.get(TOKEN), ctx.data.get(ENDPOINT)
    if name == "signal":
        return json.dumps(_signal(ctx, transport, endpoint))
    if transport != TOKEN_SIGNAL:
        return None
    if name == "token":
        return token
    if name == "endpoint":
        return endpoint
    if name == "curl_cli":
        return curl_cli(token, endpoint)
    return None


def _signal(ctx: ResourceContext, transport: str, endpoint: str | None) -> Any:
    if transport == NO_SIGNAL:
        return {}
    if transport == HEAT_SIGNAL and endpoint is not None:
        users = stack_user_services(ctx)
        return {
            "auth_url": users.auth_url,
            "user_id": ctx.data.get(USER_ID),
            "password": ctx.data.get(PASSWORD),
            "project_id": ctx.data.get(PROJECT_ID),
            "alarm_url": endpoint,
        }
    if transport == TEMP_URL_SIGNAL and endpoint is not None:
        return {"alarm_url": endpoint}
    if transport == TOKEN_SIGNAL and ctx.data.get(TOKEN) is None and endpoint is not None:
        return {"alarm_url": endpoint}
    # Heat's TOKEN_SIGNAL handle answers null here: its token and endpoint are attributes.
    return None
