"""The ``roles`` property of Heat's Keystone types: grants of roles on projects or domains.

``OS::Keystone::User``, ``Group``, ``UserRoleAssignment`` and ``GroupRoleAssignment`` share it.
Each entry names a role and exactly one of a project or a domain. The grants a resource made are
kept in its resource data as ids, so an update grants what is new and revokes what went away
(compared by id: renaming a project changes no grant), and a delete revokes exactly what the
resource granted, whatever its properties say by then.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from thermik.clients.keystone_grants import grant, has_grant, revoke
from thermik.errors import PluginError, PropertyError
from thermik.resources.cloud_access import find
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Props
from thermik.resources.schema import PropertySchema, Type

#: Resource data key of the grants made, as a JSON list of [role id, target, target id].
GRANTS = "grants"

#: One grant by ids: (role id, "project" or "domain", target id).
Grant = tuple[str, str, str]

ROLES = PropertySchema(
    Type.LIST,
    "Role assignments: each a role with either a project or a domain.",
    schema=PropertySchema(
        Type.MAP,
        "A role on either a project or a domain.",
        schema={
            "role": PropertySchema(
                Type.STRING,
                "Name or id of the Keystone role.",
                required=True,
                constraints=(CustomConstraint("keystone.role"),),
            ),
            "project": PropertySchema(
                Type.STRING,
                "Name or id of the Keystone project the role is granted on.",
                constraints=(CustomConstraint("keystone.project"),),
            ),
            "domain": PropertySchema(
                Type.STRING,
                "Name or id of the Keystone domain the role is granted on.",
                constraints=(CustomConstraint("keystone.domain"),),
            ),
        },
    ),
    update_allowed=True,
)


def check_roles(props: Props) -> None:
    """Heat's rule: each entry names exactly one of ``project`` and ``domain``.

    Raises:
        PropertyError: with the path of the entry at fault.
    """
    for index, entry in enumerate(props.get("roles") or ()):
        if not isinstance(entry, dict):
            continue  # unresolved yet; checked again once it is
        path = ("properties", "roles", index)
        if entry.get("project") is not None and entry.get("domain") is not None:
            raise PropertyError(
                "Cannot define the following properties at the same time: project, domain",
                path=path,
            )
        if entry.get("project") is None and entry.get("domain") is None:
            raise PropertyError(
                f"Either project or domain must be specified for role {entry.get('role')}",
                path=path,
            )


def wanted(ctx: ResourceContext, props: Props) -> list[Grant]:
    """The grants ``props`` ask for, resolved to ids (in order, without repeats)."""
    out: list[Grant] = []
    for entry in props.get("roles") or ():
        role = find(ctx, "keystone.role", entry["role"])
        if entry.get("project") is not None:
            target = ("project", find(ctx, "keystone.project", entry["project"]))
        else:
            target = ("domain", find(ctx, "keystone.domain", entry["domain"]))
        item = (role, *target)
        if item not in out:
            out.append(item)
    return out


def granted(ctx: ResourceContext) -> list[Grant]:
    """The grants this resource made (and has not revoked)."""
    stored = ctx.data.get(GRANTS)
    return [(str(r), str(t), str(i)) for r, t, i in json.loads(stored)] if stored else []


def _record(ctx: ResourceContext, grants: Sequence[Grant]) -> None:
    ctx.data.set(GRANTS, json.dumps([list(g) for g in grants]))


class Grants:
    """The grants of one user or group, made and revoked through a cloud ``call``."""

    def __init__(self, call: Any, actor: str) -> None:
        #: ``call(action)``: the plugin's call of its Keystone client.
        self.call = call
        #: ``user`` or ``group``.
        self.actor = actor

    def converge(self, ctx: ResourceContext, actor_id: str, grants: Iterable[Grant]) -> None:
        """Make ``actor_id``'s grants by this resource exactly ``grants``: new ones first
        (recorded as they are made), then the revocations of what is no longer wanted."""
        target = list(grants)
        have = granted(ctx)
        for item in target:
            if item not in have:
                self.call(lambda conn, g=item: grant(conn, self.actor, actor_id, *g))
                have.append(item)
                _record(ctx, have)
        self.revoke_all(ctx, actor_id, [g for g in have if g not in target])

    def revoke_all(
        self, ctx: ResourceContext, actor_id: str, grants: Iterable[Grant] | None = None
    ) -> None:
        """Revoke ``grants`` (default: every grant this resource made) from ``actor_id``."""
        have = granted(ctx)
        for item in list(have if grants is None else grants):
            self.call(lambda conn, g=item: revoke(conn, self.actor, actor_id, *g))
            have = [g for g in have if g != item]
            _record(ctx, have)

    def check(self, ctx: ResourceContext, actor_id: str) -> None:
        """Fail when a grant this resource made is no longer there."""
        for item in granted(ctx):
            if not self.call(lambda conn, g=item: has_grant(conn, self.actor, actor_id, *g)):
                role, target, target_id = item
                raise PluginError(
                    f"The role {role} on {target} {target_id} is no longer granted to "
                    f"{self.actor} {actor_id}",
                    resource=ctx.resource_name,
                )
