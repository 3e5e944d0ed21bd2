"""What a stack user may reach through the API: its own resource, and the deployments to it.

A stack domain user (a server's agent, a wait condition handle) calls with a token of its
stack's stack user project, which finds the stack (:meth:`~thermik.orchestration.base.Base.
find_stack`); the policy limits it to reading metadata and signalling. This module limits it
further to the resources it belongs to, as Heat's ``access_allowed`` does: the resource whose
data names it (:data:`~thermik.resources.stack_users.STACK_USER_KEY`), and the resources whose
data names such a server (:data:`~thermik.resources.stack_users.AGENT_SERVER_KEY`: the software
deployments a server's agent runs and signals with HEAT_SIGNAL).
"""

from __future__ import annotations

from thermik.api.boundary import RequestContext
from thermik.errors import Forbidden
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.persistence.values import Stack
from thermik.resources.stack_users import AGENT_SERVER_KEY, STACK_USER_KEY


def is_stack_user_of(ctx: RequestContext, stack: Stack) -> bool:
    """Whether the caller reached ``stack`` through its stack user project."""
    project = stack.stack_user_project_id
    return project is not None and ctx.tenant == project and ctx.tenant != stack.tenant


def check_stack_user(
    store: Store, ctx: RequestContext, stack: Stack, resource: Resource, rule: str
) -> None:
    """Forbidden (Heat's 403 for ``rule``) unless the caller is no stack user of ``stack``,
    or ``resource`` is one of its own."""
    if not is_stack_user_of(ctx, stack):
        return
    if ctx.user and _belongs_to(store, resource, ctx.user):
        return
    raise Forbidden(f"You are not authorized to use {rule}.")


def _belongs_to(store: Store, resource: Resource, user_id: str) -> bool:
    data = store.get_resource_data(resource.id)
    if data.get(STACK_USER_KEY) == user_id:
        return True
    server_id = data.get(AGENT_SERVER_KEY)
    if not server_id:
        return False
    return any(
        store.get_resource_data(server.id).get(STACK_USER_KEY) == user_id
        for server in store.find_resources_by_physical_id(server_id)
    )
