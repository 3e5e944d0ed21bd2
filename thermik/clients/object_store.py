"""Swift containers as Heat's ``OS::Swift::Container`` uses them: headers in, headers out.

Heat's container type speaks Swift's headers (``X-Container-Read``, ``X-Container-Meta-*``,
``X-Account-Meta-*``) as they are; these functions send them in one request each through the
connection's object-store proxy and raise what Swift answered.
"""

from __future__ import annotations

import secrets
import urllib.parse
from collections.abc import Mapping

from openstack import exceptions as sdk
from openstack.connection import Connection
from swiftclient import utils as swift_utils


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


#: The account metadata header holding the key TempURLs are signed with.
TEMP_URL_KEY = "x-account-meta-temp-url-key"
#: The last second a TempURL can name (Swift's expiry is a 32-bit epoch).
MAX_EXPIRES = 2**31 - 1 - 60


def put_object(conn: Connection, container: str, obj: str, body: bytes) -> None:
    """Write one object."""
    response = conn.object_store.put(_path(container, obj), data=body)
    sdk.raise_from_response(response)


def get_object(conn: Connection, container: str, obj: str) -> bytes:
    """One object's bytes."""
    response = conn.object_store.get(_path(container, obj))
    sdk.raise_from_response(response)
    return bytes(response.content)


def temp_url_key(conn: Connection) -> str:
    """The account's TempURL key, set to a random one first if the account has none."""
    response = conn.object_store.head("/")
    sdk.raise_from_response(response)
    key = {k.lower(): v for k, v in response.headers.items()}.get(TEMP_URL_KEY)
    if key:
        return str(key)
    post_account(conn, {TEMP_URL_KEY: secrets.token_hex(16)})
    return temp_url_key(conn)


def temp_url(conn: Connection, container: str, obj: str, method: str, key: str) -> str:
    """A TempURL of one object for ``method`` that expires as late as Swift allows."""
    root = urllib.parse.urlsplit(storage_url(conn))
    path = f"{root.path}/{urllib.parse.quote(container)}/{urllib.parse.quote(obj)}"
    signed = swift_utils.generate_temp_url(path, MAX_EXPIRES, key, method, absolute=True)
    return f"{root.scheme}://{root.netloc}{signed}"


def delete_current(conn: Connection, container: str, obj: str) -> bool:
    """Delete an object's current version; False when there was none. In a container with
    versioning, the previous version becomes the current one."""
    response = conn.object_store.delete(_path(container, obj))
    if response.status_code == 404:
        return False
    sdk.raise_from_response(response)
    return True
