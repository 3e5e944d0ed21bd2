"""A server's networks: the ``networks`` property, what Nova is asked for, and the address
attributes.

Each entry of ``networks`` becomes one of Nova's networks in the create request:

* ``network`` (with an optional ``fixed_ip``): Nova creates the port, and deletes it with the
  server;
* ``port``: the user's port, attached as it is and left alone on delete;
* ``subnet`` or ``port_extra_properties``: Nova cannot ask for those, so the server creates
  the port itself first (Heat's "internal port"), named ``<resource>-port-<index>`` with the
  server's creation tag as its description (this Neutron drops the tags of a port's create),
  and deletes it once the server is gone;
* ``allocate_network`` ``none`` or ``auto``: no network, or one Nova picks (alone in the list).

``floating_ip`` associates an existing floating IP with the entry's port (a given or an
internal one: the port Nova makes is unknown before the server exists, which Heat refuses too).
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from thermik.clients.calls import CloudClient
from thermik.errors import CloudFault, CloudGone, PropertyError
from thermik.resources.cloud_access import cloud_access, creation_tag, find
from thermik.resources.constraints import AllowedValues, CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.neutron.common import resolve
from thermik.resources.schema import PropertySchema, SupportLevel, SupportStatus, Type

#: Resource data keys: the ports the server made (JSON list of ids, by entry index), and the
#: creation tag of a port creation that started (a resumed create looks for its ports).
INTERNAL_PORTS_KEY = "internal_ports"
PORTS_STARTED_KEY = "internal_ports_tag"

NONE, AUTO = "none", "auto"

NETWORKS = PropertySchema(
    Type.LIST,
    "The server's network interfaces, in order.",
    update_allowed=True,
    schema=PropertySchema(
        Type.MAP,
        schema={
            "uuid": PropertySchema(
                Type.STRING,
                "ID of the network to create a port on (use network).",
                constraints=(CustomConstraint("neutron.network"),),
                support_status=SupportStatus(
                    SupportLevel.HIDDEN,
                    version="5.0.0",
                    previous=SupportStatus(
                        SupportLevel.DEPRECATED,
                        version="2014.1",
                        message="Use property network.",
                    ),
                ),
            ),
            "network": PropertySchema(
                Type.STRING,
                "Name or ID of the network to create a port on.",
                constraints=(CustomConstraint("neutron.network"),),
            ),
            "allocate_network": PropertySchema(
                Type.STRING,
                "none: no network at all; auto: a network of the project, or one Nova "
                "allocates. Alone in its entry and in the list.",
                constraints=(AllowedValues((NONE, AUTO)),),
                update_allowed=True,
                support_status=SupportStatus(version="9.0.0"),
            ),
            "fixed_ip": PropertySchema(
                Type.STRING,
                "Fixed IP address of the port created on the network.",
                constraints=(CustomConstraint("ip_addr"),),
            ),
            "port": PropertySchema(
                Type.STRING,
                "Name or ID of an existing port to attach.",
                constraints=(CustomConstraint("neutron.port"),),
            ),
            "port_extra_properties": PropertySchema(
                Type.MAP,
                "Extra properties (as OS::Neutron::Port takes them) of the port the server "
                "creates.",
                update_allowed=True,
                support_status=SupportStatus(version="6.0.0"),
            ),
            "subnet": PropertySchema(
                Type.STRING,
                "Name or ID of the subnet of the port's address; the network may then be left "
                "out.",
                constraints=(CustomConstraint("neutron.subnet"),),
                support_status=SupportStatus(version="5.0.0"),
            ),
            "floating_ip": PropertySchema(
                Type.STRING,
                "ID (or address) of an existing floating IP to associate with the port.",
                support_status=SupportStatus(version="6.0.0"),
            ),
            "tag": PropertySchema(
                Type.STRING,
                "Tag of the interface (updates are ignored: Nova cannot change it).",
                support_status=SupportStatus(version="9.0.0"),
            ),
        },
    ),
)


def _error(message: str, *path: str | int) -> PropertyError:
    return PropertyError(message, path=("properties", "networks", *path))


def _set(net: Mapping[str, Any]) -> list[str]:
    return sorted(k for k, v in net.items() if v not in (None, "", {}))


def validate_networks(networks: Sequence[Mapping[str, Any]], security_groups: Any) -> None:
    """Heat's checks of the networks list.

    Raises:
        PropertyError: an entry names nothing to connect to, mixes ``allocate_network`` with
            other keys (or other entries), gives a port and a fixed IP, a floating IP that
            cannot be associated; or a port comes with ``security_groups``.
    """
    for index, net in enumerate(networks):
        keys = _set(net)
        if not {"network", "uuid", "port", "subnet", "allocate_network"} & set(keys):
            raise _error(
                'one of "network", "port", "allocate_network" or "subnet" must be set', index
            )
        if net.get("allocate_network"):
            if len(keys) != 1:
                raise _error(
                    '"allocate_network" may not be given with other keys of the network',
                    index,
                    "allocate_network",
                )
            if len(networks) != 1:
                raise _error(
                    '"allocate_network" may not be given with other networks',
                    index,
                    "allocate_network",
                )
        if net.get("fixed_ip") and net.get("port"):
            raise _error('"fixed_ip" and "port" may not both be given', index, "fixed_ip")
        if net.get("floating_ip") and not (
            net.get("port") or net.get("subnet") or net.get("port_extra_properties")
        ):
            raise _error(
                '"floating_ip" needs "port", "subnet" or "port_extra_properties": the port '
                "Nova creates for a network is not known before the server exists",
                index,
                "floating_ip",
            )
    if security_groups and any(net.get("port") for net in networks):
        raise PropertyError(
            '"security_groups" may not be given with ports in "networks": set the security '
            "groups of the ports instead",
            path=("properties", "security_groups"),
        )


def _neutron(ctx: ResourceContext) -> CloudClient:
    return cloud_access(ctx).client("neutron")


def stored_ports(ctx: ResourceContext) -> dict[str, str]:
    """The internal ports made so far: entry index (as text) to port id."""
    text = ctx.data.get(INTERNAL_PORTS_KEY)
    loaded = json.loads(text) if text else {}
    return dict(loaded) if isinstance(loaded, dict) else {}


def _port_body(
    ctx: ResourceContext, net: Mapping[str, Any], security_groups: Sequence[str]
) -> dict[str, Any]:
    body: dict[str, Any] = {}
    extra = dict(net.get("port_extra_properties") or {})
    body.update(extra.pop("value_specs", None) or {})
    if extra.pop("no_fixed_ips", False):
        body["fixed_ips"] = []
    if extra.get("qos_policy"):
        body["qos_policy_id"] = find(ctx, "neutron.qos_policy", extra.pop("qos_policy"))
    body.update({k: v for k, v in extra.items() if v is not None})
    subnet = find(ctx, "neutron.subnet", net["subnet"]) if net.get("subnet") else None
    fixed = {"subnet_id": subnet} if subnet else {}
    if net.get("fixed_ip"):
        fixed["ip_address"] = net["fixed_ip"]
    if fixed and "fixed_ips" not in body:
        body["fixed_ips"] = [fixed]
    network = net.get("network") or net.get("uuid")
    if network:
        body["network_id"] = find(ctx, "neutron.network", network)
    elif subnet:
        body["network_id"] = _neutron(ctx).call(lambda c: c.network.get_subnet(subnet)).network_id
    if security_groups:
        body["security_groups"] = [find(ctx, "neutron.security_group", g) for g in security_groups]
    return body


def internal_port(
    ctx: ResourceContext,
    index: int,
    net: Mapping[str, Any],
    security_groups: Sequence[str],
    avoid: Collection[str] = (),
) -> str:
    """The port of entry ``index`` the server makes itself, made once (see the module);
    ``avoid``: ports of the server's own that an update gives up (of the same name and tag),
    never taken for this one."""
    ports = stored_ports(ctx)
    if str(index) in ports:
        return ports[str(index)]
    tag, name = creation_tag(ctx), f"{ctx.resource_name}-port-{index}"
    client = _neutron(ctx)
    port_id: str | None = None
    if ctx.data.get(PORTS_STARTED_KEY) == tag:
        found = client.call(lambda c: list(c.network.ports(description=tag, name=name)))
        mine = [str(p.id) for p in found if str(p.id) not in avoid]
        port_id = mine[0] if mine else None
    else:
        ctx.data.set(PORTS_STARTED_KEY, tag)
    if port_id is None:
        body = _port_body(ctx, net, security_groups)
        port = client.call(
            lambda c: c.network.create_port(name=name, description=tag, **body),
            idempotent=False,
        )
        port_id = str(port.id)
    ports[str(index)] = port_id
    ctx.data.set(INTERNAL_PORTS_KEY, json.dumps(ports))
    return port_id


def associate_floating_ip(ctx: ResourceContext, net: Mapping[str, Any], port_id: str) -> None:
    fip = find(ctx, "neutron.floating_ip", net["floating_ip"])
    fields: dict[str, Any] = {"port_id": port_id}
    if net.get("fixed_ip"):
        fields["fixed_ip_address"] = net["fixed_ip"]
    _neutron(ctx).call(lambda c: c.network.update_ip(fip, **fields))


def nova_networks(
    ctx: ResourceContext, networks: Sequence[Mapping[str, Any]] | None, security_groups: Any
) -> list[dict[str, Any]] | str:
    """The ``networks`` of Nova's create request, making the internal ports and associating
    the floating IPs on the way."""
    if not networks:
        # From microversion 2.37 on Nova requires the field (Heat 27 fails such a server:
        # "nics are required after microversion 2.36"); "auto" asks for what 2.1 gave, the
        # project's only network.
        return "auto"
    if networks[0].get("allocate_network"):
        return str(networks[0]["allocate_network"])
    out: list[dict[str, Any]] = []
    for index, net in enumerate(networks):
        nic: dict[str, Any] = {}
        if net.get("port"):
            nic["port"] = resolve(ctx, "neutron.port", net["port"])
        elif net.get("subnet") or net.get("port_extra_properties"):
            nic["port"] = internal_port(ctx, index, net, security_groups or [])
        else:
            nic["uuid"] = resolve(ctx, "neutron.network", net.get("network") or net["uuid"])
            if net.get("fixed_ip"):
                nic["fixed_ip"] = net["fixed_ip"]
        if net.get("floating_ip"):
            associate_floating_ip(ctx, net, nic["port"])
        if net.get("tag"):
            nic["tag"] = net["tag"]
        out.append(nic)
    return out


def _delete_port(port_id: str, conn: Any) -> None:
    conn.network.delete_port(port_id, ignore_missing=False)


def delete_internal_ports(ctx: ResourceContext) -> None:
    """Delete the ports the server made (once the server is gone)."""
    ports = stored_ports(ctx)
    if not ports:
        return
    client = _neutron(ctx)
    for port_id in ports.values():
        with contextlib.suppress(CloudGone):
            client.call(functools.partial(_delete_port, port_id))
    ctx.data.delete(INTERNAL_PORTS_KEY)


# -- attributes ------------------------------------------------------------------------------


def _ips(server: Any) -> dict[str, list[dict[str, Any]]]:
    addresses = getattr(server, "addresses", None) or {}
    return {str(k): list(v or []) for k, v in addresses.items()}


def first_address(server: Any) -> str:
    """Heat's ``first_address``: the first address of the last network by name, or ``''``."""
    ips = _ips(server)
    for label in sorted(ips, reverse=True):
        if ips[label]:
            return str(ips[label][0].get("addr") or "")
    return ""


def _by_id_too(ctx: ResourceContext, by_label: dict[str, Any]) -> dict[str, Any]:
    """The map keyed by network name, with the same values under each network's id too."""
    out = dict(by_label)
    for label, value in by_label.items():
        try:
            out[find(ctx, "neutron.network", label)] = value
        except (CloudGone, PropertyError):
            continue
        except CloudFault:
            # Several networks of that name (Heat too then keys the addresses by name only).
            continue
    return out


def networks_attribute(ctx: ResourceContext, server: Any) -> dict[str, Any]:
    """Heat's ``networks``: each network's addresses (fixed first), by name and by id."""
    ips = _ips(server)
    by_label = {
        label: [a.get("addr") for a in entries if a.get("OS-EXT-IPS:type") != "floating"]
        + [a.get("addr") for a in entries if a.get("OS-EXT-IPS:type") == "floating"]
        for label, entries in ips.items()
    }
    return _by_id_too(ctx, by_label)


def _version(address: str | None) -> int | None:
    try:
        return ipaddress.ip_address(address or "").version
    except ValueError:
        return None


def addresses_attribute(ctx: ResourceContext, server: Any) -> dict[str, Any]:
    """Heat's ``addresses``: per network name (and id), each address of the server's ports
    with its port id, MAC, subnets and network, and the floating IPs on them (four Neutron
    requests whatever the number of ports)."""
    client = _neutron(ctx)
    ports = client.call(lambda c: list(c.network.ports(device_id=server.id)))
    if not ports:
        return {}
    net_ids = sorted({p.network_id for p in ports})
    nets = {n.id: n for n in client.call(lambda c: list(c.network.networks(id=net_ids)))}
    sub_ids = sorted({ip["subnet_id"] for p in ports for ip in p.fixed_ips or []})
    subs = {s.id: s for s in client.call(lambda c: list(c.network.subnets(id=sub_ids)))}
    port_ids = {p.id for p in ports}
    fips = [f for f in client.call(lambda c: list(c.network.ips())) if f.port_id in port_ids]
    out: dict[str, list[dict[str, Any]]] = {}
    ids: dict[str, str] = {}
    for port in ports:
        network = nets.get(port.network_id)
        label = network.name if network is not None else port.network_id
        ids[label] = port.network_id
        entries = out.setdefault(label, [])
        subnets = [
            subs[i["subnet_id"]].to_dict(computed=False, original_names=True)
            for i in port.fixed_ips or []
            if i["subnet_id"] in subs
        ]
        for fixed in port.fixed_ips or []:
            addr = fixed.get("ip_address")
            entries.append(
                {
                    "addr": addr,
                    "version": _version(addr),
                    "OS-EXT-IPS-MAC:mac_addr": port.mac_address,
                    "OS-EXT-IPS:type": "fixed",
                    "port": port.id,
                    "subnets": subnets,
                    "network": _raw(network),
                }
            )
            for fip in fips:
                if fip.port_id == port.id and fip.fixed_ip_address == addr:
                    entries.append(
                        {
                            "addr": fip.floating_ip_address,
                            "version": _version(fip.floating_ip_address),
                            "OS-EXT-IPS-MAC:mac_addr": port.mac_address,
                            "OS-EXT-IPS:type": "floating",
                            "port": None,
                        }
                    )
    return {**out, **{ids[label]: entries for label, entries in out.items()}}


def _raw(found: Any) -> dict[str, Any] | None:
    """A Neutron resource as Neutron's API names its fields."""
    return None if found is None else dict(found.to_dict(computed=False, original_names=True))
