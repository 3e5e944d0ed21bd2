"""Register real Heat's users in the loopback cloud's Keystone, idempotently, in one process.

Run with .venv-heat's Python by tools/heat-up.sh. What ``heat-keystone-setup-domain`` and
devstack set up, under names of this Heat's own (so that Heats of several work trees, and the
cloud's own users, never collide): the service user HEAT_USER (admin and service in project
``service``), the stack-user domain HEAT_DOMAIN with its admin HEAT_DOMAIN_ADMIN, and Heat's
roles ``heat_stack_owner`` and ``heat_stack_user``. Passwords are set to HEAT_PASSWORD each run,
so a wiped state dir finds its users again. The cloud is the admin cloud HEAT_ADMIN_CLOUD of
OS_CLIENT_CONFIG_FILE. No catalog entry: clients are given heat-api's URL (the cloud's
``orchestration`` type is left to Thermik). ``register.py --remove`` deletes them again.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import openstack  # type: ignore[import-not-found]

ROLES = ("admin", "service", "heat_stack_owner", "heat_stack_user")


def ensure_user(idc: Any, name: str, domain_id: str, **extra: Any) -> Any:
    """The user ``name`` of the domain, with HEAT_PASSWORD."""
    password = os.environ["HEAT_PASSWORD"]
    user = idc.find_user(name, domain_id=domain_id)
    if user is None:
        return idc.create_user(name=name, password=password, domain_id=domain_id, **extra)
    return idc.update_user(user, password=password)


def remove(idc: Any) -> None:
    """Delete the users and the domain (with what Heat's stacks left in it)."""
    heat = idc.find_user(os.environ["HEAT_USER"], domain_id="default")
    if heat is not None:
        idc.delete_user(heat)
    domain = idc.find_domain(os.environ["HEAT_DOMAIN"])
    if domain is not None:
        idc.update_domain(domain, is_enabled=False)
        idc.delete_domain(domain)
    print(f"removed {os.environ['HEAT_USER']} and the domain {os.environ['HEAT_DOMAIN']}")


def main() -> None:
    conn = openstack.connect(cloud=os.environ["HEAT_ADMIN_CLOUD"])
    idc = conn.identity
    if sys.argv[1:] == ["--remove"]:
        remove(idc)
        return
    roles = {name: idc.find_role(name) or idc.create_role(name=name) for name in ROLES}
    service = idc.find_project("service", domain_id="default")
    heat = ensure_user(idc, os.environ["HEAT_USER"], "default", default_project_id=service.id)
    for role in ("admin", "service"):
        idc.assign_project_role_to_user(service, heat, roles[role])
    name = os.environ["HEAT_DOMAIN"]
    domain = idc.find_domain(name) or idc.create_domain(
        name=name, description="Users and projects of real Heat's stacks (tools/heat-up.sh)"
    )
    admin = ensure_user(idc, os.environ["HEAT_DOMAIN_ADMIN"], domain.id)
    idc.assign_domain_role_to_user(domain, admin, roles["admin"])
    print(f"registered {heat.name} and the domain {name} ({domain.id})")


if __name__ == "__main__":
    main()
