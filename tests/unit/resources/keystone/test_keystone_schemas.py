"""The Keystone types' own checks and Heat's update rules, before any cloud is asked."""

from __future__ import annotations

import pytest

from thermik.clients.keystone_grants import grant_path
from thermik.errors import PropertyError
from thermik.resources.context import ValidationContext
from thermik.resources.keystone.endpoint import Endpoint
from thermik.resources.keystone.group import Group
from thermik.resources.keystone.project import Project
from thermik.resources.keystone.region import Region
from thermik.resources.keystone.role import Role
from thermik.resources.keystone.role_assignments import GroupRoleAssignment, UserRoleAssignment
from thermik.resources.keystone.user import User
from thermik.resources.schema import update_allowed_names


@pytest.mark.parametrize("plugin", [User, Group, UserRoleAssignment, GroupRoleAssignment])
def test_each_grant_names_a_project_or_a_domain_not_both(plugin: type[User]) -> None:
    actor = {"user": "u"} if plugin is UserRoleAssignment else {}
    actor = {"group": "g"} if plugin is GroupRoleAssignment else actor
    both = plugin.check_properties(
        {
            **actor,
            "roles": [{"role": "r", "project": "p"}, {"role": "r", "project": "p", "domain": "d"}],
        }
    )
    with pytest.raises(PropertyError, match="project, domain") as error:
        plugin().validate(both, ValidationContext())
    assert error.value.path == ("properties", "roles", 1)
    neither = plugin.check_properties({**actor, "roles": [{"role": "admin"}]})
    with pytest.raises(
        PropertyError, match="Either project or domain must be specified for role admin"
    ):
        plugin().validate(neither, ValidationContext())
    plugin().validate(
        plugin.check_properties({**actor, "roles": [{"role": "r", "domain": "d"}]}),
        ValidationContext(),
    )


def test_heats_defaults_and_what_replaces() -> None:
    project = Project.check_properties({})
    assert (project["domain"], project["description"], project["enabled"], project["tags"]) == (
        "default",
        "",
        True,
        [],
    )
    assert "parent" not in update_allowed_names(Project.properties_schema)
    assert "domain" not in update_allowed_names(Role.properties_schema)
    assert "id" not in update_allowed_names(Region.properties_schema)
    assert User.properties_schema["password"].secret
    with pytest.raises(PropertyError, match="interface"):
        Endpoint.check_properties({"service": "s", "interface": "private", "url": "http://x"})
    with pytest.raises(PropertyError, match="user"):
        UserRoleAssignment.check_properties({"roles": []})


def test_a_grant_is_keystones_path() -> None:
    assert grant_path("user", "u1", "r1", "project", "p1") == "/projects/p1/users/u1/roles/r1"
    assert grant_path("group", "g1", "r1", "domain", "d1") == "/domains/d1/groups/g1/roles/r1"
    with pytest.raises(ValueError, match="system"):
        grant_path("user", "u1", "r1", "system", "all")
