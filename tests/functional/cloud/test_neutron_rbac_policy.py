"""OS::Neutron::RBACPolicy on the real Neutron: a stack's network shared with another project;
the target changed in place; a new object replacing the policy; check; a wildcard target the
demo user may not set failing the update; delete; an action the object type does not take
refused at validation. Nothing is left behind."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  target: {type: string}
  on_b: {type: boolean, default: false}
resources:
  a:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  b:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  share:
    type: OS::Neutron::RBACPolicy
    properties:
      object_type: network
      object_id: {if: [{get_param: on_b}, {get_resource: b}, {get_resource: a}]}
      action: access_as_shared
      target_tenant: {get_param: target}
outputs:
  share: {value: {get_resource: share}}
  nets: {value: [{get_resource: a}, {get_resource: b}]}
"""


def other_projects(env: CloudEnv, demo: str) -> list[str]:
    """Two projects of the cloud that are not the demo user's."""
    admin = env.connect(admin=True)
    found = [p.id for p in admin.identity.projects() if p.id != demo]
    assert len(found) >= 2, "the loopback cloud has an admin and a service project"
    return found[:2]


def test_a_policy_is_created_updated_replaced_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-rbac-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, cloud_env, conn, name)


def lifecycle(cloud_engine: CloudEngine, env: CloudEnv, conn: Any, name: str) -> None:
    first, second = other_projects(env, conn.current_project_id)
    stack = cloud_engine.create(name, TEMPLATE, name=name, target=first)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = cloud_engine.outputs(stack)
    a, b = outputs["nets"]
    policy = conn.network.get_rbac_policy(outputs["share"])
    assert (policy.object_id, policy.object_type, policy.action) == (
        a,
        "network",
        "access_as_shared",
    )
    assert policy.target_project_id == first

    cloud_engine.update(stack, target=second)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert cloud_engine.outputs(stack)["share"] == policy.id, "a new target is set in place"
    assert conn.network.get_rbac_policy(policy.id).target_project_id == second

    cloud_engine.update(stack, target=second, on_b=True)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    replaced = cloud_engine.outputs(stack)["share"]
    assert replaced != policy.id, "a new object replaces the policy"
    assert conn.network.get_rbac_policy(replaced).object_id == b
    assert conn.network.find_rbac_policy(policy.id) is None, "the old policy is deleted"

    assert cloud_engine.check(stack).status == "COMPLETE"

    cloud_engine.update(stack, target="*", on_b=True)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "FAILED"), "a wildcard is for admins"
    assert "share" in view.status_reason
    assert conn.network.get_rbac_policy(replaced).target_project_id == second

    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert conn.network.find_rbac_policy(replaced) is None
    assert not list(conn.network.rbac_policies(object_id=a))
    assert not list(conn.network.rbac_policies(object_id=b))
    assert not leftovers(conn, name)


def test_an_action_the_type_does_not_take_is_refused_at_validation(
    cloud_engine: CloudEngine,
) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  share:
    type: OS::Neutron::RBACPolicy
    properties:
      object_type: security_group
      object_id: default
      action: access_as_external
      target_tenant: someone
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "Invalid action access_as_external for object type security_group" in str(raised.value)
