"""Name-or-id look-ups of cloud things, by the custom constraint name Heat gives them.

One look-up answers both questions a template raises about a value such as ``image: cirros``:
is it valid (the ``glance.image`` custom constraint at validate time) and what is its id (what a
plugin sends the cloud). Each costs one request: an id-shaped value is fetched by id, anything
else is listed by name (Nova's flavors, which cannot be filtered by name, are listed whole).
Failures read as Heat words them: ``The Image (cirros) could not be found.``
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from openstack import exceptions as sdk
from openstack.connection import Connection

from thermik.clients.messaging import queue_names
from thermik.errors import CloudFault, CloudGone

#: What a look-up is: ``(connection, value) -> id``.
Lookup = Callable[[Connection, str], str]

_UUID = re.compile(r"[0-9a-fA-F]{8}-?(?:[0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}")


def looks_like_id(value: str) -> bool:
    """Whether ``value`` has the shape of a UUID (with or without dashes)."""
    return _UUID.fullmatch(value) is not None


def _one(label: str, value: str, found: Iterable[Any]) -> str:
    matches = list(found)
    if not matches:
        raise CloudGone(f"The {label} ({value}) could not be found.")
    if len(matches) > 1:
        raise CloudFault(
            f"Multiple physical resources were found with name ({value}).", status=409
        )
    return str(matches[0].id)


def _id_or_name(
    label: str,
    get: Callable[[Connection, str], Any],
    by_name: Callable[[Connection, str], Iterable[Any]],
) -> Lookup:
    def lookup(conn: Connection, value: str) -> str:
        if looks_like_id(value):
            try:
                return str(get(conn, value).id)
            except sdk.NotFoundException:
                pass  # a name may look like an id too
        try:
            return _one(label, value, by_name(conn, value))
        except sdk.NotFoundException:
            # The service lacks the extension (Neutron without QoS): nothing has that name.
            raise CloudGone(f"The {label} ({value}) could not be found.") from None

    return lookup


def _flavor(conn: Connection, value: str) -> str:
    flavors = list(conn.compute.flavors(details=False))
    by_id = [f for f in flavors if f.id == value]
    return _one("Flavor", value, by_id or [f for f in flavors if f.name == value])


def _identity(conn: Connection) -> Any:
    """Keystone's v3 proxy (openstacksdk types it as either version's)."""
    return conn.identity


def _domain(conn: Connection, value: str) -> str:
    # Domain ids need not look like UUIDs (Keystone's own is "default"): ask by id first.
    try:
        return str(_identity(conn).get_domain(value).id)
    except sdk.NotFoundException:
        return _one("Domain", value, _identity(conn).domains(name=value))


def _region(conn: Connection, value: str) -> str:
    # Regions have ids chosen by their creator and no names.
    try:
        return str(_identity(conn).get_region(value).id)
    except sdk.NotFoundException:
        raise CloudGone(f"The Region ({value}) could not be found.") from None


def _queue(conn: Connection, value: str) -> str:
    # Zaqar makes queues lazily and answers for any name: only its listing tells.
    if value not in queue_names(conn):
        raise CloudGone(f"The Queue ({value}) could not be found.")
    return value


def _host(conn: Connection, value: str) -> str:
    # Heat's nova.host: a hypervisor whose host name contains the value (Nova's search).
    found = [h for h in conn.compute.hypervisors(hypervisor_hostname_pattern=value)]
    if not found:
        raise CloudGone(f"The Host ({value}) could not be found.")
    return str(found[0].name)


def _keypair(conn: Connection, value: str) -> str:
    try:
        return str(conn.compute.get_keypair(value).name)
    except sdk.NotFoundException:
        raise CloudGone(f"The Key ({value}) could not be found.") from None


def _named(found: Iterable[Any], name: str) -> Iterable[Any]:
    # Cinder refuses a name filter unless its operator allows one (resource_query_filters).
    return (thing for thing in found if thing.name == name)


def _volume_type(conn: Connection, value: str) -> str:
    # As Heat: the types the user may see, matched by name or id (one list, no id GET).
    types = list(conn.block_storage.types())
    by_id = [t for t in types if t.id == value]
    return _one("VolumeType", value, by_id or [t for t in types if t.name == value])


LOOKUPS: Mapping[str, tuple[str, Lookup]] = {
    "glance.image": (
        "glance",
        _id_or_name(
            "Image",
            lambda c, v: c.image.get_image(v),
            lambda c, v: c.image.images(name=v),
        ),
    ),
    "nova.flavor": ("nova", _flavor),
    "nova.keypair": ("nova", _keypair),
    "nova.host": ("nova", _host),
    "nova.server": (
        "nova",
        _id_or_name(
            "Server",
            lambda c, v: c.compute.get_server(v),
            lambda c, v: (s for s in c.compute.servers(name=f"^{re.escape(v)}$")),
        ),
    ),
    "keystone.project": (
        "keystone",
        _id_or_name(
            "Project",
            lambda c, v: _identity(c).get_project(v),
            lambda c, v: _identity(c).projects(name=v),
        ),
    ),
    "keystone.user": (
        "keystone",
        _id_or_name(
            "User",
            lambda c, v: _identity(c).get_user(v),
            lambda c, v: _identity(c).users(name=v),
        ),
    ),
    "keystone.group": (
        "keystone",
        _id_or_name(
            "Group",
            lambda c, v: _identity(c).get_group(v),
            lambda c, v: _identity(c).groups(name=v),
        ),
    ),
    "keystone.role": (
        "keystone",
        _id_or_name(
            "Role",
            lambda c, v: _identity(c).get_role(v),
            lambda c, v: _identity(c).roles(name=v),
        ),
    ),
    "keystone.service": (
        "keystone",
        _id_or_name(
            "Service",
            lambda c, v: _identity(c).get_service(v),
            lambda c, v: (s for s in _identity(c).services() if s.name == v),
        ),
    ),
    "keystone.domain": ("keystone", _domain),
    "keystone.region": ("keystone", _region),
    "zaqar.queue": ("zaqar", _queue),
    "nova.server_group": (
        "nova",
        _id_or_name(
            "Server Group",
            lambda c, v: c.compute.get_server_group(v),
            lambda c, v: (g for g in c.compute.server_groups() if g.name == v),
        ),
    ),
    "neutron.network": (
        "neutron",
        _id_or_name(
            "Network",
            lambda c, v: c.network.get_network(v),
            lambda c, v: c.network.networks(name=v),
        ),
    ),
    "neutron.subnet": (
        "neutron",
        _id_or_name(
            "Subnet",
            lambda c, v: c.network.get_subnet(v),
            lambda c, v: c.network.subnets(name=v),
        ),
    ),
    "neutron.port": (
        "neutron",
        _id_or_name(
            "Port",
            lambda c, v: c.network.get_port(v),
            lambda c, v: c.network.ports(name=v),
        ),
    ),
    "neutron.router": (
        "neutron",
        _id_or_name(
            "Router",
            lambda c, v: c.network.get_router(v),
            lambda c, v: c.network.routers(name=v),
        ),
    ),
    "neutron.security_group": (
        "neutron",
        _id_or_name(
            "Security Group",
            lambda c, v: c.network.get_security_group(v),
            lambda c, v: c.network.security_groups(name=v, project_id=c.current_project_id),
        ),
    ),
    "neutron.qos_policy": (
        "neutron",
        _id_or_name(
            "QoS Policy",
            lambda c, v: c.network.get_qos_policy(v),
            lambda c, v: c.network.qos_policies(name=v),
        ),
    ),
    "neutron.subnetpool": (
        "neutron",
        _id_or_name(
            "Subnet Pool",
            lambda c, v: c.network.get_subnet_pool(v),
            lambda c, v: c.network.subnet_pools(name=v),
        ),
    ),
    "neutron.address_scope": (
        "neutron",
        _id_or_name(
            "Address Scope",
            lambda c, v: c.network.get_address_scope(v),
            lambda c, v: c.network.address_scopes(name=v),
        ),
    ),
    "neutron.segment": (
        "neutron",
        _id_or_name(
            "Segment",
            lambda c, v: c.network.get_segment(v),
            lambda c, v: c.network.segments(name=v),
        ),
    ),
    "neutron.floating_ip": (
        "neutron",
        _id_or_name(
            "Floating IP",
            lambda c, v: c.network.get_ip(v),
            lambda c, v: c.network.ips(floating_ip_address=v),
        ),
    ),
    "cinder.volume": (
        "cinder",
        _id_or_name(
            "Volume",
            lambda c, v: c.block_storage.get_volume(v),
            lambda c, v: _named(c.block_storage.volumes(), v),
        ),
    ),
    "cinder.snapshot": (
        "cinder",
        _id_or_name(
            "VolumeSnapshot",
            lambda c, v: c.block_storage.get_snapshot(v),
            lambda c, v: _named(c.block_storage.snapshots(), v),
        ),
    ),
    "cinder.backup": (
        "cinder",
        _id_or_name(
            "Volume backup",
            lambda c, v: c.block_storage.get_backup(v),
            lambda c, v: _named(c.block_storage.backups(), v),
        ),
    ),
    "cinder.vtype": ("cinder", _volume_type),
    "cinder.qos_specs": (
        "cinder",
        _id_or_name(
            "QoS Specs",
            lambda c, v: c.block_storage.get_qos_spec(v),  # type: ignore[arg-type]  # an id too
            lambda c, v: (q for q in c.block_storage.qos_specs() if q.name == v),
        ),
    ),
}


def lookup_of(kind: str) -> tuple[str, Lookup]:
    """The service and look-up of custom constraint ``kind``.

    Raises:
        KeyError: no look-up has that name.
    """
    return LOOKUPS[kind]
