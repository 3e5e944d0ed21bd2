"""``OS::Keystone::UserRoleAssignment`` and ``GroupRoleAssignment``: roles granted to a user
or group that the stack does not own.

As in Heat, such a resource has no physical id (``get_resource`` gives its name). What it
granted is kept by id in its resource data (see :mod:`thermik.resources.keystone.roles`):
an update grants and revokes the difference, and moves every grant when the user or group
itself changes; a delete revokes what it granted; a check finds every grant still there.
"""

from __future__ import annotations

from typing import ClassVar

from thermik.resources.cloud_access import find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.keystone.base import keystone_support
from thermik.resources.keystone.roles import ROLES, Grants, check_roles, granted, wanted
from thermik.resources.plugin import Operation, Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type

#: Resource data key of the id of the user or group the grants were made to.
ACTOR_ID = "actor_id"


class RoleAssignment(CloudResource):
    """Roles granted to the user or group of property :attr:`actor`."""

    service: ClassVar[str] = "keystone"
    #: ``user`` or ``group``: the property naming who is granted, and Keystone's word for it.
    actor: ClassVar[str]
    support_status = keystone_support("5.0.0")

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        # Granting and revoking are idempotent: running them again makes nothing twice.
        return operation in (Operation.CREATE, Operation.DELETE)

    @classmethod
    def checks(cls) -> bool:
        return True

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        check_roles(props)

    def _grants(self, ctx: ResourceContext) -> Grants:
        return Grants(lambda action: self.call(ctx, action), self.actor)

    def _actor_id(self, ctx: ResourceContext, props: Props) -> str:
        actor_id = find(ctx, f"keystone.{self.actor}", props[self.actor])
        ctx.data.set(ACTOR_ID, actor_id)
        return actor_id

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        self._grants(ctx).converge(ctx, self._actor_id(ctx, props), wanted(ctx, props))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        grants = self._grants(ctx)
        before = ctx.data.get(ACTOR_ID)
        actor_id = self._actor_id(ctx, new_props)
        if before is not None and before != actor_id:
            grants.revoke_all(ctx, before)
        grants.converge(ctx, actor_id, wanted(ctx, new_props))
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        actor_id = ctx.data.get(ACTOR_ID)
        if actor_id is not None and granted(ctx):
            self._grants(ctx).revoke_all(ctx, actor_id)
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        actor_id = ctx.data.get(ACTOR_ID)
        if actor_id is not None:
            self._grants(ctx).check(ctx, actor_id)
        return None


class UserRoleAssignment(RoleAssignment):
    """``OS::Keystone::UserRoleAssignment``."""

    actor: ClassVar[str] = "user"
    properties_schema: ClassVar[PropertiesSchema] = {
        "user": PropertySchema(
            Type.STRING,
            "Name or id of the Keystone user granted the roles.",
            required=True,
            update_allowed=True,
            constraints=(CustomConstraint("keystone.user"),),
        ),
        "roles": ROLES,
    }


class GroupRoleAssignment(RoleAssignment):
    """``OS::Keystone::GroupRoleAssignment``."""

    actor: ClassVar[str] = "group"
    properties_schema: ClassVar[PropertiesSchema] = {
        "group": PropertySchema(
            Type.STRING,
            "Name or id of the Keystone group granted the roles.",
            required=True,
            update_allowed=True,
            constraints=(CustomConstraint("keystone.group"),),
        ),
        "roles": ROLES,
    }
