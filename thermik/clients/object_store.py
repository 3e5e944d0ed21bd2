"""Swift containers as Heat's ``OS::Swift::Container`` uses them: headers in, headers out.

Heat's container type speaks Swift's headers (``X-Container-Read``, ``X-Container-Meta-*``,
``X-Account-Meta-*``) as they are; these functions send them in one request each through the
connection's object-store proxy and raise what Swift answered.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping

from openstack import exceptions as sdk
from openstack.connection import Connection


def _path(container: str, obj: str | None = None) -> str:
    path = "/" + urllib.parse.quote(container, safe="")
    return path if obj is None else f"{path}/{urllib.parse.quote(obj, safe='')}"


def storage_url(conn: Connection) -> str:
    """The URL of the caller's Swift account (``…/v1/AUTH_<project>``)."""
    return str(conn.object_store.get_endpoint()).rstrip("/")


def put_container(conn: Connection, name: str, headers: Mapping[str, str]) -> None:
    """Create (or update) container ``name`` with ``headers``."""
    sdk.raise_from_response(conn.object_store.put(_path(name), headers=dict(headers)))


def head_container(conn: Connection, name: str) -> dict[str, str]:
    """The headers of container ``name``, lowercased (``x-container-object-count`` ...)."""
    response = conn.object_store.head(_path(name))
    sdk.raise_from_response(response)
    return {k.lower(): v for k, v in response.headers.items()}


def post_account(conn: Connection, headers: Mapping[str, str]) -> None:
    """Set account metadata headers."""
    sdk.raise_from_response(conn.object_store.post("/", headers=dict(headers)))


def object_names(conn: Connection, name: str) -> list[str]:
    """The names of every object in container ``name``."""
    return [str(o.name) for o in conn.object_store.objects(name)]


def delete_object(conn: Connection, container: str, obj: str) -> None:
    """Delete one object; one that is gone already counts as deleted."""
    response = conn.object_store.delete(_path(container, obj))
    if response.status_code != 404:
        sdk.raise_from_response(response)


def delete_container(conn: Connection, name: str) -> None:
    """Delete container ``name`` (Swift refuses with 409 while it holds objects)."""
    sdk.raise_from_response(conn.object_store.delete(_path(name)))
