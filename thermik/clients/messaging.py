"""Zaqar's v2 queues, subscriptions and pre-signed queue URLs as Heat's Zaqar types use them.

openstacksdk's queue model knows only a few of a queue's metadata keys and nothing of signed
URLs, so these functions speak Zaqar's REST API through the connection's messaging proxy
(its endpoint, from the catalog, ends in ``/v2/``), one request each, raising what Zaqar
answered. Every request carries a ``Client-ID``, which Zaqar's v2 API demands.
"""

from __future__ import annotations

import json
import urllib.parse
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from openstack import exceptions as sdk
from openstack.connection import Connection

#: Zaqar's media type of a JSON patch of queue metadata.
PATCH_TYPE = "application/openstack-messaging-v2.0-json-patch"
#: The longest page Zaqar gives of a listing.
PAGE = 20


def _headers(**extra: str) -> dict[str, str]:
    return {"Client-ID": str(uuid.uuid4()), **extra}


def _queue(name: str) -> str:
    return "queues/" + urllib.parse.quote(name, safe="")


def _checked(response: Any) -> Any:
    sdk.raise_from_response(response)
    return response


def queue_href(conn: Connection, name: str) -> str:
    """The queue's URL (``…/v2/queues/<name>``)."""
    return f"{str(conn.message.get_endpoint()).rstrip('/')}/{_queue(name)}"


def put_queue(conn: Connection, name: str, metadata: Mapping[str, Any]) -> None:
    """Create queue ``name`` with ``metadata`` (an existing queue is left as it is)."""
    _checked(conn.message.put(_queue(name), json=dict(metadata), headers=_headers()))


def queue_metadata(conn: Connection, name: str) -> dict[str, Any]:
    """The queue's metadata, Zaqar's own keys (``_default_message_ttl`` ...) included."""
    return dict(_checked(conn.message.get(_queue(name), headers=_headers())).json())


def set_queue_metadata(conn: Connection, name: str, metadata: Mapping[str, Any]) -> None:
    """Make the user's metadata of queue ``name`` exactly ``metadata`` (Zaqar's own keys,
    which start with ``_``, stay)."""
    current = queue_metadata(conn, name)
    ops: list[dict[str, Any]] = [
        {"op": "replace" if key in current else "add", "path": f"/metadata/{key}", "value": value}
        for key, value in metadata.items()
    ]
    ops += [
        {"op": "remove", "path": f"/metadata/{key}"}
        for key in current
        if not key.startswith("_") and key not in metadata
    ]
    if ops:
        headers = _headers(**{"Content-Type": PATCH_TYPE})
        _checked(conn.message.patch(_queue(name), data=json.dumps(ops), headers=headers))


def _listing(conn: Connection, path: str, key: str) -> list[dict[str, Any]]:
    """Every item of a Zaqar listing, page by page (Zaqar gives at most 20 a page)."""
    items: list[dict[str, Any]] = []
    marker: str | None = None
    while True:
        params: dict[str, Any] = {"limit": PAGE, **({"marker": marker} if marker else {})}
        page = _checked(conn.message.get(path, params=params, headers=_headers()))
        found = [dict(i) for i in (page.json() if page.content else {}).get(key, [])]
        items += found
        if len(found) < PAGE:
            return items
        marker = str(found[-1].get("name") or found[-1].get("id"))


def queue_names(conn: Connection) -> list[str]:
    """The names of every queue of the caller's project."""
    return [str(q["name"]) for q in _listing(conn, "queues", "queues")]


def delete_queue(conn: Connection, name: str) -> None:
    """Delete queue ``name`` with its messages (Zaqar answers 204 for a missing one too)."""
    _checked(conn.message.delete(_queue(name), headers=_headers()))


def subscribe(conn: Connection, queue: str, body: Mapping[str, Any]) -> str:
    """Subscribe ``body["subscriber"]`` to ``queue``; the subscription's id."""
    response = conn.message.post(
        f"{_queue(queue)}/subscriptions", json=dict(body), headers=_headers()
    )
    return str(_checked(response).json()["subscription_id"])


def subscription(conn: Connection, queue: str, sid: str) -> dict[str, Any]:
    """Subscription ``sid`` of ``queue`` (``subscriber``, ``ttl``, ``options`` ...)."""
    response = conn.message.get(f"{_queue(queue)}/subscriptions/{sid}", headers=_headers())
    return dict(_checked(response).json())


def subscriptions(conn: Connection, queue: str) -> list[dict[str, Any]]:
    """The subscriptions of ``queue``."""
    return _listing(conn, f"{_queue(queue)}/subscriptions", "subscriptions")


def update_subscription(conn: Connection, queue: str, sid: str, body: Mapping[str, Any]) -> None:
    """Change subscription ``sid`` of ``queue`` to ``body``."""
    response = conn.message.patch(
        f"{_queue(queue)}/subscriptions/{sid}", json=dict(body), headers=_headers()
    )
    _checked(response)


def unsubscribe(conn: Connection, queue: str, sid: str) -> None:
    """Delete subscription ``sid`` of ``queue``."""
    _checked(conn.message.delete(f"{_queue(queue)}/subscriptions/{sid}", headers=_headers()))


def share(conn: Connection, queue: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """A pre-signed URL of ``queue``: Zaqar's ``signature``, ``expires``, ``paths``,
    ``methods`` and ``project``."""
    response = conn.message.post(f"{_queue(queue)}/share", json=dict(body), headers=_headers())
    return dict(_checked(response).json())


def post_messages(conn: Connection, queue: str, messages: Sequence[Mapping[str, Any]]) -> None:
    """Post ``messages`` (each ``{"body": ..., "ttl": seconds}``) to ``queue`` in one request
    (Zaqar creates a missing queue)."""
    body = {"messages": [dict(message) for message in messages]}
    _checked(conn.message.post(f"{_queue(queue)}/messages", json=body, headers=_headers()))


def queue_messages(conn: Connection, queue: str) -> list[dict[str, Any]]:
    """Every message of ``queue`` still there, oldest first (``id``, ``body``, ``age``,
    ``ttl``), read without claiming or deleting any; a missing queue has none."""
    messages: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": PAGE, "echo": "true"}
    while True:
        page = _checked(
            conn.message.get(f"{_queue(queue)}/messages", params=params, headers=_headers())
        )
        found = (page.json() if page.content else {}).get("messages") or []
        messages += [dict(m) for m in found]
        marker = _next_marker(page.json() if page.content else {})
        if len(found) < PAGE or marker is None:
            return messages
        params = {"limit": PAGE, "echo": "true", "marker": marker}


def _next_marker(page: Mapping[str, Any]) -> str | None:
    """The marker of a listing's next page (in its ``next`` link), if it names one."""
    for link in page.get("links") or []:
        if link.get("rel") == "next":
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(str(link["href"])).query)
            return query.get("marker", [None])[0]
    return None
