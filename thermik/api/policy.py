"""Authorization: which caller may use which route, as oslo.policy rules with Heat's names.

Every responder names its rule (``stacks:create``, ``resource:signal`` ...; the defaults and
their documentation are in :mod:`thermik.conf.policies`) and :meth:`Policy.authorize` answers a
denial with Heat's 403, ``You are not authorized to use stacks:create.``. The composition root
builds the :class:`Policy` from the service's configuration (``[oslo_policy] policy_file``
overrides the defaults); without one, the defaults in code apply.

The rules see the caller's :class:`Credentials`: with keystone, what keystonemiddleware
established; with noauth, a member (and reader) of the tenant in the URL, never an admin.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from oslo_policy import policy as oslo_policy

from thermik import errors
from thermik.conf import policies

#: Keystone's default role implications (each role implies the ones after it), applied to the
#: token's roles as Keystone does when it issues the token.
IMPLIED_ROLES = ("admin", "member", "reader")
#: The roles of a noauth caller: a project member, as every noauth caller always was.
NOAUTH_ROLES = ("member", "reader")


@dataclasses.dataclass(frozen=True, slots=True)
class Credentials:
    """What the rules check: the caller's values (oslo.context's ``to_policy_values``) and the
    project the request is about (``%(project_id)s`` in a rule)."""

    values: Mapping[str, Any]
    project_id: str

    @property
    def target(self) -> dict[str, str]:
        """The rule target."""
        return {"project_id": self.project_id}


def with_implied_roles(roles: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``roles`` plus the ones they imply by Keystone's defaults (admin > member > reader)."""
    implied = list(roles)
    for rank, role in enumerate(IMPLIED_ROLES):
        if role in roles:
            implied.extend(IMPLIED_ROLES[rank + 1 :])
    return tuple(dict.fromkeys(implied))


def noauth_credentials(tenant: str, user: str | None) -> Credentials:
    """The credentials of a noauth caller addressing ``tenant``."""
    values = {
        "user_id": user,
        "project_id": tenant,
        "roles": list(NOAUTH_ROLES),
        "is_admin_project": True,
        "is_admin": False,
        "system_scope": None,
        "domain_id": None,
    }
    return Credentials(values=values, project_id=tenant)


class Policy:
    """The rules in force: the defaults in code, overridden by the operator's policy file."""

    def __init__(self, enforcer: oslo_policy.Enforcer | None = None) -> None:
        self._enforcer = enforcer or policies.build_enforcer()

    def is_admin(self, values: Mapping[str, Any]) -> bool:
        """Whether ``values`` pass ``context_is_admin``."""
        return bool(self._enforcer.authorize("context_is_admin", {}, dict(values)))

    def authorize(self, rule: str, credentials: Credentials) -> None:
        """Forbidden (Heat's 403) unless ``rule`` allows the caller."""
        try:
            allowed = self._enforcer.authorize(rule, credentials.target, dict(credentials.values))
        except oslo_policy.InvalidScope:
            allowed = False
        if not allowed:
            raise errors.Forbidden(f"You are not authorized to use {rule}.{_hint(rule)}")


#: Said after the denial of the rules that are admin-only by default.
_ADMIN_HINTS = {
    "service:index": "Listing services",
    "stacks:global_index": "Listing the stacks of all tenants",
}


def _hint(rule: str) -> str:
    what = _ADMIN_HINTS.get(rule)
    return "" if what is None else f" {what} is only allowed for administrators by default."
