"""Heat's Keystone types on the real Keystone, as its administrator: projects, users, groups,
roles and their grants; domains, regions, services and endpoints. Create, attributes, update in
place (grants and memberships added and removed), replacement, check, delete leaving nothing,
and the failures: Heat's validation rules, unknown names, and a member who may not."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.keystone_support import delete_domain
from thermik.clients.keystone_grants import has_grant
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

PEOPLE = """
heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  description: {type: string, default: first}
  groups: {type: string, default: "yes"}
  wanted: {type: json}
conditions:
  in_group: {equals: [{get_param: groups}, "yes"]}
resources:
  project:
    type: OS::Keystone::Project
    properties:
      name: {list_join: ["-", [{get_param: prefix}, project]]}
      description: {get_param: description}
      tags: [thermik-test]
  group:
    type: OS::Keystone::Group
    properties:
      name: {list_join: ["-", [{get_param: prefix}, group]]}
      roles: [{role: member, project: {get_resource: project}}]
  role:
    type: OS::Keystone::Role
    properties: {name: {list_join: ["-", [{get_param: prefix}, role]]}}
  user:
    type: OS::Keystone::User
    properties:
      name: {list_join: ["-", [{get_param: prefix}, user]]}
      password: {get_param: prefix}
      default_project: {get_resource: project}
      groups: {if: [in_group, [{get_resource: group}], []]}
      roles: [{role: reader, project: {get_resource: project}}]
  grants:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user: {get_resource: user}
      roles: {get_param: wanted}
  group_grants:
    type: OS::Keystone::GroupRoleAssignment
    properties:
      group: {get_resource: group}
      roles: [{role: {get_resource: role}, project: {get_resource: project}}]
outputs:
  project: {value: {get_resource: project}}
  group: {value: {get_resource: group}}
  role: {value: {get_resource: role}}
  user: {value: {get_resource: user}}
  grants: {value: {get_resource: grants}}
  project_domain: {value: {get_attr: [project, domain_id]}}
  project_enabled: {value: {get_attr: [project, enabled]}}
  user_project: {value: {get_attr: [user, default_project_id]}}
  user_name: {value: {get_attr: [user, name]}}
"""


@pytest.fixture
def admin(cloud_env: CloudEnv) -> Iterator[Connection]:
    conn = cloud_env.connect(admin=True)
    try:
        yield conn
    finally:
        conn.close()


def _prefix() -> str:
    return f"ks-{uuid.uuid4().hex[:8]}"


def _leftovers(admin: Connection, prefix: str) -> list[str]:
    idc = admin.identity
    return [
        *(f"project {p.name}" for p in idc.projects() if p.name.startswith(prefix)),
        *(f"user {u.name}" for u in idc.users() if u.name.startswith(prefix)),
        *(f"group {g.name}" for g in idc.groups() if g.name.startswith(prefix)),
        *(f"role {r.name}" for r in idc.roles(domain_id="default") if r.name.startswith(prefix)),
        *(f"domain {d.name}" for d in idc.domains() if d.name.startswith(prefix)),
        *(f"region {r.id}" for r in idc.regions() if r.id.startswith(prefix)),
        *(f"service {s.name}" for s in idc.services() if (s.name or "").startswith(prefix)),
    ]


@pytest.fixture
def prefix(admin: Connection) -> Iterator[str]:
    """A name prefix of the test's own; whatever carries it is deleted afterwards."""
    prefix = _prefix()
    yield prefix
    idc = admin.identity
    for user in [u for u in idc.users() if u.name.startswith(prefix)]:
        idc.delete_user(user)
    for group in [g for g in idc.groups() if g.name.startswith(prefix)]:
        idc.delete_group(group)
    for project in [p for p in idc.projects() if p.name.startswith(prefix)]:
        idc.delete_project(project)
    for role in [r for r in idc.roles(domain_id="default") if r.name.startswith(prefix)]:
        idc.delete_role(role)
    for service in [s for s in idc.services() if (s.name or "").startswith(prefix)]:
        idc.delete_service(service)
    regions = [r for r in idc.regions() if r.id.startswith(prefix)]
    for region in sorted(regions, key=lambda r: r.parent_region_id is None):
        idc.delete_region(region)
    for domain in [d for d in idc.domains() if d.name.startswith(prefix)]:
        delete_domain(admin, domain.name)


def test_people_their_groups_and_grants_are_made_updated_checked_and_deleted(
    admin_engine: CloudEngine, admin: Connection, prefix: str
) -> None:
    reader = admin.identity.find_role("reader", ignore_missing=False).id
    member = admin.identity.find_role("member", ignore_missing=False).id
    first = [{"role": "reader", "domain": "default"}, {"role": "member", "project": "demo"}]
    stack = admin_engine.create(prefix, PEOPLE, prefix=prefix, wanted=first)
    view = admin_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = admin_engine.outputs(stack)
    idc = admin.identity
    project = idc.get_project(out["project"])
    assert (project.name, project.description, project.tags) == (
        f"{prefix}-project",
        "first",
        ["thermik-test"],
    )
    assert out["project_domain"] == "default"
    assert out["project_enabled"] is True
    assert out["user_project"] == out["project"]
    assert out["user_name"] == f"{prefix}-user"
    assert out["grants"] == "grants", "an assignment has no physical id, as in Heat"
    user, group = out["user"], out["group"]
    assert idc.check_user_in_group(user, group)
    demo = idc.find_project("demo", ignore_missing=False).id
    assert has_grant(admin, "user", user, reader, "project", out["project"])
    assert has_grant(admin, "user", user, reader, "domain", "default")
    assert has_grant(admin, "user", user, member, "project", demo)
    assert has_grant(admin, "group", group, member, "project", out["project"])
    assert has_grant(admin, "group", group, out["role"], "project", out["project"])
    assert admin_engine.check(stack).status == "COMPLETE"

    # In place: a new description, the user out of its group, one grant moved to the project.
    second = [{"role": "member", "project": "demo"}, {"role": "admin", "project": project.id}]
    admin_engine.update(stack, prefix=prefix, description="second", groups="no", wanted=second)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin_engine.outputs(stack)["user"] == user, "updated in place"
    assert idc.get_project(out["project"]).description == "second"
    assert not idc.check_user_in_group(user, group)
    admin_role = idc.find_role("admin", ignore_missing=False).id
    assert not has_grant(admin, "user", user, reader, "domain", "default")
    assert has_grant(admin, "user", user, member, "project", demo)
    assert has_grant(admin, "user", user, admin_role, "project", out["project"])

    # A grant revoked behind the stack's back: check fails, naming it.
    idc.unassign_project_role_from_user(out["project"], user, admin_role)
    view = admin_engine.check(stack)
    assert (view.action, view.status) == ("CHECK", "FAILED")
    assert "no longer granted" in view.status_reason

    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert _leftovers(admin, prefix) == []
    # The grant on demo, made to a user that is gone, went with it.
    assert not list(idc.role_assignments(user_id=user))


CATALOG = """
heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  region_id: {type: string}
  url: {type: string}
  enabled: {type: boolean, default: true}
resources:
  domain:
    type: OS::Keystone::Domain
    properties:
      name: {list_join: ["-", [{get_param: prefix}, domain]]}
      description: a domain
      enabled: {get_param: enabled}
  parent:
    type: OS::Keystone::Region
    properties: {id: {list_join: ["-", [{get_param: prefix}, parent]]}}
  region:
    type: OS::Keystone::Region
    properties:
      id: {get_param: region_id}
      parent_region: {get_resource: parent}
      description: a region
  service:
    type: OS::Keystone::Service
    properties:
      name: {list_join: ["-", [{get_param: prefix}, service]]}
      type: {list_join: ["-", [{get_param: prefix}, type]]}
  endpoint:
    type: OS::Keystone::Endpoint
    properties:
      service: {get_resource: service}
      region: {get_resource: region}
      interface: internal
      url: {get_param: url}
outputs:
  domain: {value: {get_resource: domain}}
  region: {value: {get_resource: region}}
  service: {value: {get_resource: service}}
  endpoint: {value: {get_resource: endpoint}}
"""


def test_a_domain_regions_a_service_and_its_endpoint_are_updated_replaced_and_deleted(
    admin_engine: CloudEngine, admin: Connection, prefix: str
) -> None:
    idc = admin.identity
    first = f"{prefix}-one"
    stack = admin_engine.create(
        prefix, CATALOG, prefix=prefix, region_id=first, url="http://127.0.0.1:9/one"
    )
    view = admin_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = admin_engine.outputs(stack)
    domain = idc.get_domain(out["domain"])
    assert (domain.name, domain.description, domain.is_enabled) == (
        f"{prefix}-domain",
        "a domain",
        True,
    )
    assert out["region"] == first
    assert idc.get_region(first).parent_region_id == f"{prefix}-parent"
    service = idc.get_service(out["service"])
    assert (service.name, service.type) == (f"{prefix}-service", f"{prefix}-type")
    endpoint = idc.get_endpoint(out["endpoint"])
    assert (endpoint.service_id, endpoint.region_id, endpoint.interface, endpoint.url) == (
        out["service"],
        first,
        "internal",
        "http://127.0.0.1:9/one",
    )
    assert endpoint.name.startswith(f"{prefix}-endpoint-")
    assert admin_engine.check(stack).status == "COMPLETE"

    # The URL and the domain's flag change in place; a new region id replaces the region,
    # and the endpoint moves to the replacement before the old region goes.
    second = f"{prefix}-two"
    admin_engine.update(
        stack, prefix=prefix, region_id=second, url="http://127.0.0.1:9/two", enabled=False
    )
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    now = admin_engine.outputs(stack)
    assert (now["domain"], now["endpoint"]) == (out["domain"], out["endpoint"])
    assert now["region"] == second
    assert idc.get_domain(out["domain"]).is_enabled is False
    endpoint = idc.get_endpoint(out["endpoint"])
    assert (endpoint.region_id, endpoint.url) == (second, "http://127.0.0.1:9/two")
    assert idc.find_region(first) is None, "the replaced region is deleted"

    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert idc.find_endpoint(out["endpoint"]) is None
    assert _leftovers(admin, prefix) == []


def test_heats_rules_and_unknown_names_fail_validation_naming_the_property(
    admin_engine: CloudEngine, prefix: str
) -> None:
    both = """
heat_template_version: 2018-08-31
resources:
  grants:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user: admin
      roles: [{role: reader, project: demo, domain: default}]
"""
    with pytest.raises(PropertyError, match="project, domain") as error:
        admin_engine.create(prefix, both)
    assert "resources.grants.properties.roles[0]" in str(error.value)
    neither = both.replace(", project: demo, domain: default", "")
    with pytest.raises(PropertyError, match="Either project or domain must be specified"):
        admin_engine.create(prefix, neither)
    unknown_role = both.replace(
        "role: reader, project: demo, domain: default", "role: nope, project: demo"
    )
    with pytest.raises(PropertyError, match=r"The Role \(nope\) could not be found") as error:
        admin_engine.create(prefix, unknown_role)
    assert "resources.grants.properties.roles[0].role" in str(error.value)
    unknown_user = neither.replace("user: admin", "user: no-such-user").replace(
        "role: reader", "role: reader, project: demo"
    )
    with pytest.raises(PropertyError, match=r"The User \(no-such-user\) could not be found"):
        admin_engine.create(prefix, unknown_user)


def test_a_member_may_not_make_a_project_and_is_told_so(
    cloud_engine: CloudEngine, admin: Connection, prefix: str
) -> None:
    template = f"""
heat_template_version: 2018-08-31
resources:
  project:
    type: OS::Keystone::Project
    properties: {{name: {prefix}-project}}
"""
    stack = cloud_engine.create(prefix, template)
    view = cloud_engine.wait(stack)
    assert view.status == "FAILED"
    assert "project" in view.status_reason.lower()
    assert "http" not in view.status_reason
    assert cloud_engine.delete(stack).status == "COMPLETE"
    assert _leftovers(admin, prefix) == []
