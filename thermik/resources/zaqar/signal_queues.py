"""The Zaqar queue a ``ZAQAR_SIGNAL`` wait condition handle is signalled through.

As in Heat, the handle gets a stack user of its own and a queue in that user's project (a
Zaqar behind Keystone gives a queue to the project of the token), made, read and deleted as
that user: whoever holds the handle's ``signal`` attribute logs in as the user and posts each
signal as one message. The wait condition reads the queue without claiming or deleting
anything (a message is a signal until its TTL ends) and keeps what it read in its own
resource data, so its ``data`` outlives the messages.

None of it depends on the engine's delivery backend: the queue is reached through Keystone's
catalog, as the stack user sees it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from thermik.clients.calls import CloudClient
from thermik.clients.messaging import delete_queue, put_queue, queue_messages
from thermik.errors import CloudGone, PluginError
from thermik.resources.context import ResourceContext
from thermik.resources.stack_users import StackUser, stack_user_services

#: Zaqar's queue names.
_QUEUE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: Resource data key (of the wait condition) of the messages read so far: ``[[id, body]]``.
READ_KEY = "zaqar_signals_read"


def signal_queue_name(physical_name: str) -> str:
    """The queue of the handle named ``physical_name``: that name when Zaqar takes it, else
    a readable head of it with a hash (unique per name)."""
    if _QUEUE_NAME.match(physical_name):
        return physical_name
    digest = hashlib.sha256(physical_name.encode()).hexdigest()[:16]
    head = re.sub(r"[^a-zA-Z0-9_-]", "-", physical_name)[: 64 - len(digest) - 1]
    return f"{head}-{digest}"


def _as_user(ctx: ResourceContext, user: StackUser) -> CloudClient:
    return stack_user_services(ctx).client(user, "zaqar")


def make_signal_queue(ctx: ResourceContext, user: StackUser, name: str) -> None:
    """Make queue ``name`` in the project of ``user``, as that user."""
    _as_user(ctx, user).call(lambda conn: put_queue(conn, name, {}))


def delete_signal_queue(ctx: ResourceContext, user: StackUser, name: str) -> None:
    """Delete queue ``name`` with its messages, as ``user`` (one gone already is fine)."""
    with contextlib.suppress(CloudGone):
        _as_user(ctx, user).call(lambda conn: delete_queue(conn, name))


def read_messages(ctx: ResourceContext, user: StackUser, name: str) -> list[tuple[str, Any]]:
    """The ``(id, body)`` of every message of queue ``name``, oldest first, as ``user``."""
    found = _as_user(ctx, user).call(lambda conn: queue_messages(conn, name))
    return [(str(message.get("id")), message.get("body")) for message in found]


def merged(read: list[list[Any]], fresh: list[tuple[str, Any]]) -> list[list[Any]]:
    """The messages read before (``[[id, body]]``, in the order first seen) followed by the
    fresh ones not among them."""
    seen = {entry[0] for entry in read}
    return read + [[mid, body] for mid, body in fresh if mid not in seen]


def bodies(entries: list[list[Any]], resource: str) -> list[Mapping[str, Any]]:
    """The signal bodies of messages ``entries`` (an empty message is an empty signal).

    Raises:
        PluginError: a message is not a JSON object (the signal's text is named).
    """
    found: list[Mapping[str, Any]] = []
    for _, body in entries:
        if body is None or body == "":
            found.append({})
        elif isinstance(body, Mapping):
            found.append(body)
        else:
            text = body if isinstance(body, str) else json.dumps(body)
            raise PluginError(f"Failed to parse JSON data: {text}", resource=resource)
    return found


def stored_reads(ctx: ResourceContext) -> list[list[Any]]:
    """The messages the wait condition of ``ctx`` read so far."""
    text = ctx.data.get(READ_KEY)
    found = json.loads(text) if text else []
    return found if isinstance(found, list) else []


def refresh_reads(ctx: ResourceContext, user: StackUser, name: str) -> list[list[Any]]:
    """Read queue ``name`` again and keep (in the data of ``ctx``'s resource) what is new."""
    before = stored_reads(ctx)
    after = merged(before, read_messages(ctx, user, name))
    if len(after) != len(before):
        ctx.data.set(READ_KEY, json.dumps(after), redact=True)
    return after
