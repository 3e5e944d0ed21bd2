"""What plugins need to give a server or a wait condition handle a Keystone user of its own.

A plugin finds the engine's :class:`StackUserServices` on its context with
:func:`stack_user_services`, creates the resource's user in its create action (storing the
password with ``redact=True``) and deletes it in its delete action:

    users = stack_user_services(ctx)
    user = users.create_user(ctx)
    ctx.data.set("password", user.password, redact=True)
    ...
    users.delete_user(ctx, user_id)

The user lives in the stack domain, in a project of the stack tree's own, with the
``heat_stack_user`` role only (see :mod:`thermik.clients.stack_users`). Its name is the
resource version's :func:`~thermik.resources.cloud_access.creation_tag`: a create the engine
runs again after a crash takes the user the first run made (with a new password).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from thermik.clients.calls import CloudClient
from thermik.clients.stack_users import StackDomainUsers, StackUser
from thermik.errors import PluginError, ThermikError
from thermik.resources.cloud_access import creation_tag
from thermik.resources.context import ResourceContext

LOG = logging.getLogger(__name__)

__all__ = [
    "AGENT_SERVER_KEY",
    "STACK_USER_KEY",
    "StackUser",
    "StackUserServices",
    "StackUsers",
    "stack_user_services",
]

#: The resource data key of the id of the resource's own stack user: the REST API lets that
#: user read the resource's metadata and signal it (and the deployments of a server's user
#: signal its deployments), nothing else.
STACK_USER_KEY = "stack_user_id"
#: The resource data key of the physical id of the server a resource (a software deployment)
#: runs on: the stack user of that server's agent may signal it.
AGENT_SERVER_KEY = "agent_server_id"


@runtime_checkable
class StackUserServices(Protocol):
    """Stack domain users, as resource plugins make and delete them."""

    @property
    def auth_url(self) -> str:
        """Keystone's v3 URL, for the agent inside a server to authenticate at."""
        ...

    @property
    def region_name(self) -> str | None:
        """The region in which agents find Thermik and Zaqar in Keystone's catalog (None:
        the catalog's only one)."""
        ...

    def create_user(self, ctx: ResourceContext) -> StackUser:
        """The Keystone user of the resource of ``ctx`` (created, or taken over with a new
        password from an interrupted earlier create): user id, password, project id.

        Raises:
            CloudError: Keystone refused (the message is Keystone's).
        """
        ...

    def delete_user(self, ctx: ResourceContext, user_id: str) -> None:
        """Delete the resource's user; one that is gone already is fine.

        Raises:
            CloudError: Keystone refused, or ``user_id`` is not a stack user.
        """
        ...

    def token(self, user: StackUser) -> str:
        """A Keystone token of ``user`` on its project.

        Raises:
            CloudError: Keystone refused (the message is Keystone's).
        """
        ...

    def client(self, user: StackUser, service: str) -> CloudClient:
        """A client of ``service`` (zaqar ...) acting as ``user`` in its project."""
        ...


def stack_user_services(ctx: ResourceContext) -> StackUserServices:
    """The stack user services of ``ctx``, or a clear error naming the resource."""
    found = getattr(ctx, "stack_users", None)
    if not isinstance(found, StackUserServices):
        raise PluginError(
            f"{ctx.resource_type} needs a Keystone user of its own, and this engine has no "
            "stack user domain: configure stack_user_domain_name, stack_domain_admin and "
            "stack_domain_admin_password (thermik-manage keystone setup-domain)",
            resource=ctx.resource_name,
        )
    return found


class StackUsers:
    """:class:`StackUserServices` over the stack user domain.

    ``root_of(stack_id)`` names the root of a stack's tree (nested stacks share their root's
    project); ``on_project(root_stack_id, project_id)``, when given, is told of a project the
    first time it is used (to record it as the stacks' ``stack_user_project_id``).
    """

    def __init__(
        self,
        domain: StackDomainUsers,
        root_of: Callable[[str], str] = lambda stack_id: stack_id,
        on_project: Callable[[str, str], None] | None = None,
    ) -> None:
        self.domain = domain
        self._root_of = root_of
        self._on_project = on_project

    @property
    def auth_url(self) -> str:
        return self.domain.auth_url

    @property
    def region_name(self) -> str | None:
        return self.domain.settings.agent_region

    def create_user(self, ctx: ResourceContext) -> StackUser:
        root = self._root_of(ctx.stack.id)
        project_id = self.domain.project_for(root, ctx.stack.tenant)
        if self._on_project is not None:
            self._on_project(root, project_id)
        return self.domain.create_user(project_id, creation_tag(ctx))

    def delete_user(self, ctx: ResourceContext, user_id: str) -> None:
        self.domain.delete_user(user_id)

    def token(self, user: StackUser) -> str:
        return self.domain.token(user)

    def client(self, user: StackUser, service: str) -> CloudClient:
        return self.domain.client(user, service)

    def forget_stack(self, root_stack_id: str) -> None:
        """Delete a deleted stack tree's project and any user its resources left in it (the
        engine calls it on its executor; a failure is logged, the stack stays deleted)."""
        try:
            self.domain.delete_project(root_stack_id)
        except ThermikError as error:
            LOG.warning(
                "stack %s: its stack user project was not deleted: %s", root_stack_id, error
            )
