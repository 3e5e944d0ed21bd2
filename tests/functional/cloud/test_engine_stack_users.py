"""Stack users through the engine: a plugin gets ``ctx.stack_users``, its user lives with it.

A local-mode engine on the loopback cloud, configured with a stack user domain of the test's
own, runs a type made for the test that creates a stack user in its create and deletes it in
its delete (what OS::Nova::Server with POLL_SERVER_HEAT and the wait condition handle do).
Deleting the stack deletes the user, then the stack tree's project.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CTX, CloudEngine, local_settings
from tests.functional.cloud.keystone_support import keystone_settings, stack_domain
from thermik.clients.stack_users import project_name
from thermik.conf.settings import StackDomainSettings
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.stack_users import stack_user_services
from thermik.service import orchestrator_for, start_engine

pytestmark = pytest.mark.functional

TYPE = "Thermik::Test::StackUser"
TEMPLATE = f"""
heat_template_version: 2018-08-31
resources:
  agent: {{type: "{TYPE}"}}
outputs:
  user: {{value: {{get_resource: agent}}}}
"""


class StackUserResource(ResourcePlugin):
    """A resource that is nothing but its own Keystone user."""

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        user = stack_user_services(ctx).create_user(ctx)
        ctx.data.set("password", user.password, redact=True)
        ctx.data.set("project_id", user.project_id)
        ctx.set_physical_id(user.user_id)
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if ctx.physical_id is not None:
            stack_user_services(ctx).delete_user(ctx, ctx.physical_id)
        return None


class StackUserEngine(CloudEngine):
    """The local-mode engine, with a stack user domain and the test's type registered."""

    def __init__(self, root: Path, env: CloudEnv, domain: StackDomainSettings) -> None:
        settings = local_settings(root, env)
        self.settings = dataclasses.replace(
            settings, keystone=keystone_settings(env, domain=domain)
        )
        self.engine = start_engine(self.settings, serve_urls=False)
        self.engine.registry.register(TYPE, StackUserResource)
        self.service = orchestrator_for(self.engine, self.settings)


@pytest.fixture
def domain(cloud_env: CloudEnv) -> Iterator[StackDomainSettings]:
    with stack_domain(cloud_env) as settings:
        yield settings


@pytest.fixture
def admin(cloud_env: CloudEnv) -> Iterator[Connection]:
    conn = cloud_env.connect(admin=True)
    yield conn
    conn.close()


def test_a_resources_stack_user_lives_and_dies_with_it(
    tmp_path: Path, cloud_env: CloudEnv, domain: StackDomainSettings, admin: Connection
) -> None:
    engine = StackUserEngine(tmp_path / "state", cloud_env, domain)
    domain_id = admin.identity.find_domain(domain.domain_name).id
    try:
        stack = engine.create(f"ks-{uuid.uuid4().hex[:8]}", TEMPLATE)
        view = engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        user = admin.identity.get_user(engine.outputs(stack)["user"])
        assert (user.domain_id, user.name.startswith(f"thermik-{stack.id}-")) == (domain_id, True)
        project = admin.identity.get_project(user.default_project_id)
        assert project.name == project_name(stack.id)
        assert engine.service.show_stack(CTX, stack).stack_user_project_id == project.id

        view = engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert admin.identity.find_user(user.id) is None
        deadline = time.monotonic() + 60
        while admin.identity.find_project(project.id) is not None:
            assert time.monotonic() < deadline, "the stack's project is still there"
            time.sleep(0.5)
    finally:
        engine.close()
