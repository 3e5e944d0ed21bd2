"""The Swift objects signals are PUT to, as the stack's user: Heat's Swift signal transport.

A signal object lives in the stack's signal container (named by the stack id, shared by the
stack's handles), which keeps the earlier bodies of its objects as versions
(``<3 hex digits of the name's length><name>/<timestamp>``); the object holds ``in progress``
until the first signal, and a TempURL lets anybody holding it PUT the object (the account's
TempURL key is set first when it has none). Each PUT is one signal. Reading them back gives
the versions oldest first, then the object, as Heat numbers them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from thermik.clients.calls import CloudClient
from thermik.clients.object_store import (
    delete_container,
    delete_current,
    get_object,
    object_names,
    put_container,
    put_object,
    temp_url,
    temp_url_key,
)
from thermik.errors import CloudConflict, CloudGone, PluginError
from thermik.resources.cloud_access import cloud_access
from thermik.resources.context import ResourceContext
from thermik.resources.signal_bodies import signals_of

#: What the handle's object holds until the first signal.
IN_PROGRESS = b"in progress"
#: Most deletes of a handle's object (each one brings back its previous version).
_MAX_VERSIONS = 10000


def swift(ctx: ResourceContext) -> CloudClient:
    """Swift, as the stack's user."""
    return cloud_access(ctx).client("swift")


def object_name(ctx: ResourceContext) -> str:
    """The handle's object: named by the resource version, so a create run again after a
    crash writes the same object."""
    return f"{ctx.stack.name}-{ctx.resource_name}-{ctx.version_id}"


def version_prefix(name: str) -> str:
    """The prefix of the versions Swift keeps of object ``name``."""
    return f"{len(name.encode()):03x}{name}/"


def make_signal_object(ctx: ResourceContext, name: str) -> str:
    """Make the stack's signal container and object ``name`` in it; its PUT TempURL."""
    container, client = ctx.stack.id, swift(ctx)
    client.call(lambda c: put_container(c, container, {"X-Versions-Location": container}))
    client.call(lambda c: put_object(c, container, name, IN_PROGRESS))
    key = client.call(temp_url_key)
    return client.call(lambda c: temp_url(c, container, name, "PUT", key))


def delete_signal_object(ctx: ResourceContext, name: str) -> None:
    """Delete object ``name`` with every version, then the container once it is empty."""
    container, client = ctx.stack.id, swift(ctx)
    for _ in range(_MAX_VERSIONS):
        if not client.call(lambda c: delete_current(c, container, name), idempotent=False):
            break
    # Gone already, or another handle's objects are still in it.
    with contextlib.suppress(CloudGone, CloudConflict):
        client.call(lambda c: delete_container(c, container), idempotent=False)


def read_signals(ctx: ResourceContext, name: str) -> dict[str, dict[str, Any]]:
    """The signals PUT to the handle's object, oldest first, by signal id (a later signal
    with the same id replaces the earlier one).

    Raises:
        PluginError: a signal is not a JSON object, or has an unknown status.
    """
    client, container = swift(ctx), ctx.stack.id
    try:
        names = client.call(lambda c: object_names(c, container))
    except CloudGone:
        return {}
    prefix = version_prefix(name)
    ordered = sorted(n for n in names if n.startswith(prefix)) + [n for n in names if n == name]
    return signals_of(_bodies(client, container, ordered), ctx.resource_name)


def _bodies(client: CloudClient, container: str, names: list[str]) -> list[Mapping[str, Any]]:
    bodies: list[Mapping[str, Any]] = []
    for name in names:
        try:
            raw = _get(client, container, name)
        except CloudGone:
            continue
        if raw == IN_PROGRESS:
            continue
        if not raw:
            bodies.append({})
            continue
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise PluginError(f"Failed to parse JSON data: {raw.decode(errors='replace')}")
        bodies.append(body)
    return bodies


def _get(client: CloudClient, container: str, name: str) -> bytes:
    return client.call(lambda c: get_object(c, container, name))
