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
beside those sent through the engine. ``ZAQAR_SIGNAL`` (with a stack user domain) gives the
handle a stack user and a Zaqar queue in its project and hands out the user's credentials and
the ``queue_id`` in ``signal`` (:mod:`thermik.resources.zaqar.signal_queues`); the wait
condition reads the queue as that user. ``CFN_SIGNAL`` hands out nothing yet.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
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
from thermik.resources.zaqar.signal_queues import (
    delete_signal_queue,
    make_signal_queue,
    signal_queue_name,
)

TOKEN_SIGNAL, HEAT_SIGNAL, NO_SIGNAL = "TOKEN_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL"
TEMP_URL_SIGNAL, ZAQAR_SIGNAL = "TEMP_URL_SIGNAL", "ZAQAR_SIGNAL"
#: Resource data key of a ZAQAR_SIGNAL handle's queue.
ZAQAR_QUEUE = "zaqar_signal_queue_id"
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
    if transport == ZAQAR_SIGNAL:
        user = _user(ctx, stack_user_services(ctx))
        name = signal_queue_name(str(ctx.physical_id or ctx.resource_name))
        make_signal_queue(ctx, user, name)
        ctx.data.set(ZAQAR_QUEUE, name)
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


def stored_user(data: Mapping[str, str]) -> StackUser | None:
    """The stack user whose credentials resource data ``data`` keeps, if it keeps one."""
    user_id, password, project_id = data.get(USER_ID), data.get(PASSWORD), data.get(PROJECT_ID)
    if not user_id or not password or not project_id:
        return None
    return StackUser(user_id, password, project_id)


def release(ctx: ResourceContext) -> None:
    """Delete the handle's Swift signal object or Zaqar queue and its stack user, if it has
    them (one gone already is fine)."""
    swift_object = ctx.data.get(SWIFT_OBJECT)
    if swift_object is not None:
        delete_signal_object(ctx, swift_object)
        ctx.data.delete(SWIFT_OBJECT)
    queue, user = ctx.data.get(ZAQAR_QUEUE), stored_user(ctx.data.as_dict())
    if queue is not None and user is not None:
        delete_signal_queue(ctx, user, queue)
    ctx.data.delete(ZAQAR_QUEUE)
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
    queue = ctx.data.get(ZAQAR_QUEUE)
    if transport == ZAQAR_SIGNAL and queue is not None:
        users = stack_user_services(ctx)
        signal = {
            "auth_url": users.auth_url,
            "user_id": ctx.data.get(USER_ID),
            "password": ctx.data.get(PASSWORD),
            "project_id": ctx.data.get(PROJECT_ID),
            "queue_id": queue,
        }
        if users.region_name:
            signal["region_name"] = users.region_name
        return signal
    if transport == TOKEN_SIGNAL and ctx.data.get(TOKEN) is None and endpoint is not None:
        return {"alarm_url": endpoint}
    # Heat's TOKEN_SIGNAL handle answers null here: its token and endpoint are attributes.
    return None
