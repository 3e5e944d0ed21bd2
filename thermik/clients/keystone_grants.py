"""Keystone's role grants and group memberships, with failures that are not silent.

openstacksdk's ``assign_project_role_to_user`` and friends drop Keystone's answer: a grant of a
role that does not exist "succeeds". These send the same requests and raise what Keystone
answered, so a bad grant fails the resource with Keystone's own message.
"""

from __future__ import annotations

import contextlib

from openstack import exceptions as sdk
from openstack.connection import Connection

from thermik.clients.keystone import identity

#: What a role is granted on: ``project`` or ``domain``.
TARGETS = ("project", "domain")
#: Who a role is granted to: ``user`` or ``group``.
ACTORS = ("user", "group")


def _send(conn: Connection, method: str, path: str) -> None:
    proxy = identity(conn)
    response = proxy.put(path) if method == "PUT" else proxy.delete(path)
    sdk.raise_from_response(response)


def grant_path(actor: str, actor_id: str, role_id: str, target: str, target_id: str) -> str:
    """The URL path of one grant (``/projects/{p}/users/{u}/roles/{r}`` ...)."""
    if actor not in ACTORS or target not in TARGETS:
        raise ValueError(f"no grant of a {target} role to a {actor}")
    return f"/{target}s/{target_id}/{actor}s/{actor_id}/roles/{role_id}"


def grant(
    conn: Connection, actor: str, actor_id: str, role: str, target: str, target_id: str
) -> None:
    """Grant role ``role`` on ``target`` ``target_id`` to ``actor`` ``actor_id``."""
    _send(conn, "PUT", grant_path(actor, actor_id, role, target, target_id))


def revoke(
    conn: Connection, actor: str, actor_id: str, role: str, target: str, target_id: str
) -> None:
    """Revoke a grant; one that is gone already (or whose parts are) counts as revoked."""
    with contextlib.suppress(sdk.NotFoundException):
        _send(conn, "DELETE", grant_path(actor, actor_id, role, target, target_id))


def has_grant(
    conn: Connection, actor: str, actor_id: str, role: str, target: str, target_id: str
) -> bool:
    """Whether the grant exists."""
    response = identity(conn).head(grant_path(actor, actor_id, role, target, target_id))
    if response.status_code == 404:
        return False
    sdk.raise_from_response(response)
    return True


def add_member(conn: Connection, user_id: str, group_id: str) -> None:
    """Make user ``user_id`` a member of group ``group_id``."""
    _send(conn, "PUT", f"/groups/{group_id}/users/{user_id}")


def remove_member(conn: Connection, user_id: str, group_id: str) -> None:
    """End a membership; one that is gone already counts as ended."""
    with contextlib.suppress(sdk.NotFoundException):
        _send(conn, "DELETE", f"/groups/{group_id}/users/{user_id}")
