"""OS::Neutron::Quota on the real Neutron, as the cloud's admin, on projects of the test's own:
quotas set, updated in place, moved to another project by a replacement (the first project's
reverted), checked, reverted by the delete; no quotas at all, and an unknown project, refused
at validation."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

QUOTA = """
heat_template_version: 2018-08-31
parameters:
  project: {type: string}
  networks: {type: number, default: 5}
resources:
  quota:
    type: OS::Neutron::Quota
    properties:
      project: {get_param: project}
      network: {get_param: networks}
      port: 50
      router: -1
"""


@pytest.fixture
def projects(cloud_env: CloudEnv) -> Iterator[list[str]]:
    """Two projects of the test's own, so that its quotas touch no other test."""
    admin = cloud_env.connect(admin=True)
    made = [
        admin.identity.create_project(name=f"nquota-{uuid.uuid4().hex[:8]}", domain_id="default")
        for _ in range(2)
    ]
    try:
        yield [str(p.name) for p in made]
    finally:
        for project in made:
            admin.network.delete_quota(project.id, ignore_missing=True)
            admin.identity.delete_project(project.id)


def test_a_projects_quotas_are_set_updated_replaced_checked_and_reverted(
    admin_engine: CloudEngine, cloud_env: CloudEnv, projects: list[str]
) -> None:
    admin = cloud_env.connect(admin=True)
    first, second = (admin.identity.find_project(p, ignore_missing=False).id for p in projects)
    defaults = admin.network.get_quota(first)
    stack = admin_engine.create(f"nquota-{uuid.uuid4().hex[:6]}", QUOTA, project=projects[0])
    view = admin_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    quotas = admin.network.get_quota(first)
    assert (quotas.networks, quotas.ports, quotas.routers) == (5, 50, -1)

    admin_engine.update(stack, project=projects[0], networks=7)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin.network.get_quota(first).networks == 7

    admin_engine.update(stack, project=projects[1], networks=7)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin.network.get_quota(second).networks == 7
    assert admin.network.get_quota(first).networks == defaults.networks, "reverted"

    assert admin_engine.check(stack).status == "COMPLETE"
    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    reverted = admin.network.get_quota(second)
    assert (reverted.networks, reverted.ports) == (defaults.networks, defaults.ports)


def test_no_quotas_and_an_unknown_project_are_refused(admin_engine: CloudEngine) -> None:
    empty = """
heat_template_version: 2018-08-31
resources:
  quota: {type: OS::Neutron::Quota, properties: {project: demo}}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"nquota-{uuid.uuid4().hex[:6]}", empty)
    assert "At least one of the following properties must be specified" in str(raised.value)
    unknown = """
heat_template_version: 2018-08-31
resources:
  quota: {type: OS::Neutron::Quota, properties: {project: no-such-project-x, network: 3}}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"nquota-{uuid.uuid4().hex[:6]}", unknown)
    assert "project" in str(raised.value)
