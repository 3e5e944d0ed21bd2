"""Register what the loopback cloud's users and services need, idempotently, in one process.

Run with .venv-keystone's Python by tools/cloud-up.sh: ``register.py identity`` once Keystone
answers (service users, the catalog, the demo project and user), ``register.py resources`` once
Glance, Nova and Neutron answer (the image, the flavors, the public network, the demo quotas).
Settings come from the environment: CLOUD_AUTH_URL, CLOUD_PASSWORD and CLOUD_PORT_<SERVICE>.
One SDK process instead of dozens of CLI calls, each of which costs seconds of start-up here.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import openstack  # type: ignore[import-not-found]

REGION = "RegionOne"
# thermik: the service user of a Thermik service, which users' stack trusts delegate to.
SERVICE_USERS = ("glance", "placement", "nova", "neutron", "cinder", "thermik")
# heat_stack_owner: Heat's role of stack creators; heat_stack_user: of the users inside stacks.
ROLES = ("admin", "service", "member", "reader", "heat_stack_owner", "heat_stack_user")
IMAGE = "thermik-tiny"
FLAVORS = {"m1.tiny": (1, 64, 1), "m1.small": (1, 512, 10)}  # vcpus, MiB, GiB
PUBLIC_CIDR = "198.51.100.0/24"
# Room for the benchmarks' tens of servers, each with a port and a floating IP.
COMPUTE_QUOTAS = {"instances": 100, "cores": 200, "ram": 204800}
NETWORK_QUOTAS = {"ports": 500, "floating_ips": 200, "networks": 50, "subnets": 50}


def catalog(port: dict[str, str]) -> list[tuple[str, str, str]]:
    """(name, type, URL) of every service endpoint."""
    base = "http://127.0.0.1:"
    volume = f"{base}{port['CINDER']}/v3/$(project_id)s"
    return [
        ("keystone", "identity", f"{base}{port['KEYSTONE']}/v3"),
        ("glance", "image", f"{base}{port['GLANCE']}"),
        ("placement", "placement", f"{base}{port['PLACEMENT']}"),
        ("nova", "compute", f"{base}{port['NOVA']}/v2.1"),
        ("neutron", "network", f"{base}{port['NEUTRON']}"),
        ("cinderv3", "volumev3", volume),
        ("cinder", "block-storage", volume),
    ]


def connect() -> Any:
    return openstack.connect(
        auth_url=os.environ["CLOUD_AUTH_URL"],
        username="admin",
        password=os.environ["CLOUD_PASSWORD"],
        project_name="admin",
        user_domain_name="Default",
        project_domain_name="Default",
        region_name=REGION,
    )


def ensure_user(idc: Any, name: str, project: Any, roles: list[Any]) -> None:
    user = idc.find_user(name, domain_id="default")
    if user is None:
        user = idc.create_user(
            name=name,
            password=os.environ["CLOUD_PASSWORD"],
            domain_id="default",
            default_project_id=project.id,
        )
    for role in roles:
        idc.assign_project_role_to_user(project, user, role)


def ensure_project(idc: Any, name: str) -> Any:
    return idc.find_project(name, domain_id="default") or idc.create_project(
        name=name, domain_id="default"
    )


def ensure_endpoints(idc: Any, name: str, kind: str, url: str) -> None:
    """The service of type ``kind`` with public, internal and admin endpoints at ``url``."""
    service = next((s for s in idc.services() if s.type == kind), None)
    if service is None:
        service = idc.create_service(name=name, type=kind, is_enabled=True)
    have = {e.interface: e for e in idc.endpoints(service_id=service.id)}
    for interface in ("public", "internal", "admin"):
        if interface not in have:
            idc.create_endpoint(
                service_id=service.id,
                interface=interface,
                url=url,
                region_id=REGION,
                is_enabled=True,
            )
        elif have[interface].url != url:
            idc.update_endpoint(have[interface], url=url)


def identity(conn: Any) -> None:
    idc = conn.identity
    roles = {name: idc.find_role(name) or idc.create_role(name=name) for name in ROLES}
    service = ensure_project(idc, "service")
    for name in SERVICE_USERS:
        ensure_user(idc, name, service, [roles["admin"], roles["service"]])
    ensure_user(idc, "demo", ensure_project(idc, "demo"), [roles["member"]])
    ports = {k.removeprefix("CLOUD_PORT_"): v for k, v in os.environ.items() if "_PORT_" in k}
    for name, kind, url in catalog(ports):
        ensure_endpoints(idc, name, kind, url)


def public_network(conn: Any) -> None:
    """The shared external network ``public`` (flat) and its subnet, for floating IPs."""
    net = conn.network.find_network("public")
    if net is None:
        net = conn.network.create_network(
            name="public",
            is_router_external=True,
            is_shared=True,
            provider_network_type="flat",
            provider_physical_network="public",
        )
    if conn.network.find_subnet("public-subnet") is None:
        conn.network.create_subnet(
            name="public-subnet",
            network_id=net.id,
            ip_version=4,
            cidr=PUBLIC_CIDR,
            gateway_ip="198.51.100.1",
            is_dhcp_enabled=False,
        )


def resources(conn: Any) -> None:
    if conn.image.find_image(IMAGE) is None:
        conn.create_image(
            IMAGE,
            data=b"\0" * 4096,
            disk_format="raw",
            container_format="bare",
            visibility="public",
            wait=True,
        )
    for name, (vcpus, ram, disk) in FLAVORS.items():
        if conn.compute.find_flavor(name) is None:
            conn.compute.create_flavor(name=name, vcpus=vcpus, ram=ram, disk=disk)
    public_network(conn)
    demo = conn.identity.find_project("demo", domain_id="default")
    conn.set_compute_quotas(demo.id, **COMPUTE_QUOTAS)
    conn.set_network_quotas(demo.id, **NETWORK_QUOTAS)


def main(argv: list[str]) -> None:
    steps = {"identity": identity, "resources": resources}
    if len(argv) != 2 or argv[1] not in steps:
        sys.exit(f"usage: {argv[0]} {'|'.join(steps)}")
    steps[argv[1]](connect())


if __name__ == "__main__":
    main(sys.argv)
