"""Prepare the loopback cloud for a heat-tempest-plugin run against thermik-api, idempotently.

Run by tools/tempest-run.sh with the project's Python (openstacksdk), as the cloud's admin
(``THERMIK_CLOUD_ADMIN`` of ``THERMIK_CLOUD_CONFIG``). What it makes carries the run's name
``TEMPEST_NAME`` so that it never touches what others made on the shared cloud:

- the service user TEMPEST_NAME (admin and service in project ``service``) thermik-api checks
  tokens and takes trusts as, with the password TEMPEST_PASSWORD (set again each run);
- the roles heat-tempest-plugin's users expect (``heat_stack_owner``, ``heat_stack_user``);
- the ``orchestration`` service TEMPEST_NAME with its endpoints on TEMPEST_URL, so that the
  plugin's clients find thermik-api in the catalog;
- in the demo project a network, subnet and router to the public network (the plugin's
  ``fixed_network_name``), and quotas that fit its servers and ports.

``prepare.py up`` prints the shell assignments tools/tempest-run.sh writes tempest.conf with;
``prepare.py down`` removes the service, its endpoints, the router, subnet, network and user.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import openstack
import openstack.config

ROLES = ("admin", "service", "member", "heat_stack_owner", "heat_stack_user")
SUBNET_RANGE = "10.0.5.0/24"


def admin_connection() -> Any:
    # openstacksdk reads the clouds.yaml that OS_CLIENT_CONFIG_FILE names.
    os.environ["OS_CLIENT_CONFIG_FILE"] = os.environ["THERMIK_CLOUD_CONFIG"]
    return openstack.connect(cloud=os.environ["THERMIK_CLOUD_ADMIN"])


def demo_auth() -> dict[str, Any]:
    """The demo user's auth section of the clouds.yaml (user, password, project)."""
    loader = openstack.config.OpenStackConfig(
        config_files=[os.environ["THERMIK_CLOUD_CONFIG"]], load_envvars=False
    )
    return dict(loader.get_one(cloud=os.environ["THERMIK_CLOUD"]).config["auth"])


def admin_auth() -> dict[str, Any]:
    loader = openstack.config.OpenStackConfig(
        config_files=[os.environ["THERMIK_CLOUD_CONFIG"]], load_envvars=False
    )
    return dict(loader.get_one(cloud=os.environ["THERMIK_CLOUD_ADMIN"]).config["auth"])


def ensure_service_user(idc: Any, name: str) -> Any:
    roles = {role: idc.find_role(role) or idc.create_role(name=role) for role in ROLES}
    service = idc.find_project("service", domain_id="default")
    password = os.environ["TEMPEST_PASSWORD"]
    user = idc.find_user(name, domain_id="default")
    if user is None:
        user = idc.create_user(
            name=name, password=password, domain_id="default", default_project_id=service.id
        )
    else:
        user = idc.update_user(user, password=password)
    for role in ("admin", "service"):
        idc.assign_project_role_to_user(service, user, roles[role])
    return roles


def ensure_catalog(idc: Any, name: str, url: str) -> None:
    """The orchestration service ``name`` with public, internal and admin endpoints at ``url``."""
    service = next(iter(idc.services(name=name)), None) or idc.create_service(
        name=name, type="orchestration", description="thermik-api under heat-tempest-plugin"
    )
    for endpoint in idc.endpoints(service_id=service.id):
        idc.delete_endpoint(endpoint)
    for interface in ("public", "internal", "admin"):
        idc.create_endpoint(
            service_id=service.id, interface=interface, url=url, region_id="RegionOne"
        )


def ensure_network(conn: Any, name: str, project_id: str) -> None:
    """The demo project's network ``name``, its subnet and a router to the public network."""
    net = conn.network.find_network(name, project_id=project_id) or conn.network.create_network(
        name=name, project_id=project_id
    )
    subnet = conn.network.find_subnet(name, network_id=net.id) or conn.network.create_subnet(
        name=name,
        network_id=net.id,
        project_id=project_id,
        ip_version=4,
        cidr=SUBNET_RANGE,
        dns_nameservers=["192.0.2.53"],
    )
    router = conn.network.find_router(name, project_id=project_id)
    if router is None:
        public = conn.network.find_network(os.environ["THERMIK_CLOUD_PUBLIC_NETWORK"])
        router = conn.network.create_router(
            name=name, project_id=project_id, external_gateway_info={"network_id": public.id}
        )
        conn.network.add_interface_to_router(router, subnet_id=subnet.id)


def raise_quotas(conn: Any, project_id: str) -> None:
    conn.set_compute_quotas(project_id, instances=100, cores=200, ram=204800)
    conn.set_network_quotas(
        project_id, network=100, subnet=100, port=500, router=50, floatingip=100
    )
    conn.set_volume_quotas(project_id, volumes=100, gigabytes=1000)


def up() -> None:
    name = os.environ["TEMPEST_NAME"]
    conn = admin_connection()
    idc = conn.identity
    roles = ensure_service_user(idc, name)
    demo, admin = demo_auth(), admin_auth()
    project = idc.find_project(demo["project_name"], domain_id="default")
    user = idc.find_user(demo["username"], domain_id="default")
    idc.assign_project_role_to_user(project, user, roles["heat_stack_owner"])
    ensure_catalog(idc, name, os.environ["TEMPEST_URL"])
    ensure_network(conn, name, project.id)
    for each in (project, idc.find_project(admin["project_name"], domain_id="default")):
        raise_quotas(conn, each.id)
    image = conn.image.find_image(os.environ["THERMIK_CLOUD_IMAGE"])
    flavor = conn.compute.find_flavor(os.environ["THERMIK_CLOUD_FLAVOR"])
    public = conn.network.find_network(os.environ["THERMIK_CLOUD_PUBLIC_NETWORK"])
    values = {
        "DEMO_USER": demo["username"],
        "DEMO_PASSWORD": demo["password"],
        "DEMO_PROJECT": demo["project_name"],
        "ADMIN_USER": admin["username"],
        "ADMIN_PASSWORD": admin["password"],
        "ADMIN_PROJECT": admin["project_name"],
        "IMAGE_ID": image.id,
        "IMAGE_NAME": image.name,
        "FLAVOR_ID": flavor.id,
        "FLAVOR_NAME": flavor.name,
        "PUBLIC_ID": public.id,
        "PUBLIC_NAME": public.name,
    }
    for key, value in values.items():
        print(f"{key}={value!s}")


def down() -> None:
    name = os.environ["TEMPEST_NAME"]
    conn = admin_connection()
    idc = conn.identity
    for service in idc.services(name=name):
        for endpoint in idc.endpoints(service_id=service.id):
            idc.delete_endpoint(endpoint)
        idc.delete_service(service)
    for router in conn.network.routers(name=name):
        for port in conn.network.ports(
            device_id=router.id, device_owner="network:router_interface"
        ):
            for ip in port.fixed_ips:
                conn.network.remove_interface_from_router(router, subnet_id=ip["subnet_id"])
        conn.network.delete_router(router)
    for net in conn.network.networks(name=name):
        conn.network.delete_network(net)
    user = idc.find_user(name, domain_id="default")
    if user is not None:
        idc.delete_user(user)


if __name__ == "__main__":
    {"up": up, "down": down}[sys.argv[1]]()
