"""OS::Nova::Quota on the real Nova, as the cloud's admin, on projects of the test's own:
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
  instances: {type: number, default: 5}
resources:
  quota:
    type: OS::Nova::Quota
    properties:
      project: {get_param: project}
      instances: {get_param: instances}
      cores: 50
      ram: -1
"""


@pytest.fixture
def projects(cloud_env: CloudEnv) -> Iterator[list[str]]:
    """Two projects of the test's own, so that its quotas touch no other test."""
    admin = cloud_env.connect(admin=True)
    made = [
        admin.identity.create_project(name=f"cquota-{uuid.uuid4().hex[:8]}", domain_id="default")
        for _ in range(2)
    ]
    try:
        yield [str(p.name) for p in made]
    finally:
        for project in made:
            admin.compute.revert_quota_set(project.id)
            admin.identity.delete_project(project.id)


def test_a_projects_quotas_are_set_updated_replaced_checked_and_reverted(
    admin_engine: CloudEngine, cloud_env: CloudEnv, projects: list[str]
) -> None:
    admin = cloud_env.connect(admin=True)
    first, second = (admin.identity.find_project(p, ignore_missing=False).id for p in projects)
    defaults = admin.compute.get_quota_set(first)
    stack = admin_engine.create(f"cquota-{uuid.uuid4().hex[:6]}", QUOTA, project=projects[0])
    view = admin_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    quotas = admin.compute.get_quota_set(first)
    assert (quotas.instances, quotas.cores, quotas.ram) == (5, 50, -1)

    admin_engine.update(stack, project=projects[0], instances=7)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin.compute.get_quota_set(first).instances == 7

    admin_engine.update(stack, project=projects[1], instances=7)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin.compute.get_quota_set(second).instances == 7
    assert admin.compute.get_quota_set(first).instances == defaults.instances, "reverted"

    assert admin_engine.check(stack).status == "COMPLETE"
    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    reverted = admin.compute.get_quota_set(second)
    assert (reverted.instances, reverted.cores) == (defaults.instances, defaults.cores)


def test_no_quotas_and_an_unknown_project_are_refused(admin_engine: CloudEngine) -> None:
    empty = """
heat_template_version: 2018-08-31
resources:
  quota: {type: OS::Nova::Quota, properties: {project: demo}}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"cquota-{uuid.uuid4().hex[:6]}", empty)
    assert "At least one of the following properties must be specified" in str(raised.value)
    unknown = """
heat_template_version: 2018-08-31
resources:
  quota: {type: OS::Nova::Quota, properties: {project: no-such-project-x, instances: 3}}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"cquota-{uuid.uuid4().hex[:6]}", unknown)
    assert "project" in str(raised.value)
