"""A change of a server's ``networks`` in place: detach what went, attach what came.

Heat's matching: each old entry is first completed with what its interface really is (its
port, network, subnet and fixed IP, the interface taken by the port the server made for it or,
else, the one agreeing with most of its keys); a new entry then keeps the old entry whose
completed keys it is a part of (its port, fixed IP, or else most keys agreeing) when the other
keys (floating IP, port extra properties, ``allocate_network``) are the same. So swapping an
entry's ``network`` for its ``subnet`` or its port, adding the subnet or fixed IP it already
has, or reordering entries keeps the interfaces. A removed entry's interface is detached (the
port the server made for it is deleted once Nova let it go, the user's ports are left, a
floating IP it associated is released); an added one is attached, after every detach, as a
create would (a port the server makes for a subnet entry, a given port, or a port Nova makes on
the network). A change from or to Nova's default networks, or ``allocate_network``, replaces
the server instead (:func:`in_place`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from thermik.errors import CloudGone, PropertyError
from thermik.resources.cloud_access import cloud_access, find
from thermik.resources.context import ResourceContext
from thermik.resources.nova.networks import (
    INTERNAL_PORTS_KEY,
    associate_floating_ip,
    internal_port,
    stored_ports,
)

Entry = Mapping[str, Any]

#: The keys an interface tells (Heat's "interface managed" keys).
_IFACE_KEYS = ("port", "network", "fixed_ip", "subnet")
#: The other keys that must stay the same for an entry to keep its interface (``tag`` is left
#: out: Nova cannot change it, so its updates are ignored).
_OTHER_KEYS = ("port_extra_properties", "floating_ip", "allocate_network")


def in_place(old: Sequence[Entry] | None, new: Sequence[Entry] | None) -> bool:
    """Whether the change can be made by attaching and detaching interfaces."""
    if not old or not new:
        return False
    return not any(e.get("allocate_network") for e in [*old, *new])


def _resolved(ctx: ResourceContext, entry: Entry, gone_ok: bool = False) -> dict[str, Any]:
    """The entry's interface keys that are set, as IDs (``uuid`` counts as ``network``;
    ``gone_ok``: a name no longer found stays as it is, as an old entry's may)."""
    out: dict[str, Any] = {}
    named = {
        "port": ("neutron.port", entry.get("port")),
        "network": ("neutron.network", entry.get("network") or entry.get("uuid")),
        "subnet": ("neutron.subnet", entry.get("subnet")),
    }
    for key, (kind, value) in named.items():
        if not value:
            continue
        try:
            out[key] = find(ctx, kind, str(value))
        except (CloudGone, PropertyError):
            if not gone_ok:
                raise
            out[key] = str(value)
    if entry.get("fixed_ip"):
        out["fixed_ip"] = str(entry["fixed_ip"])
    return out


def _precision(entry: Entry) -> int:
    return 0 if entry.get("port") else 1 if entry.get("fixed_ip") else 2


def _others(entry: Entry) -> dict[str, Any]:
    return {k: entry.get(k) or None for k in _OTHER_KEYS}


def _iface_props(iface: Any) -> dict[str, Any]:
    fixed = list(iface.fixed_ips or [])
    first = fixed[0] if fixed else {}
    return {
        "port": str(iface.port_id),
        "network": str(iface.net_id),
        "fixed_ip": first.get("ip_address"),
        "subnet": first.get("subnet_id"),
    }


def _subset(part: Mapping[str, Any], whole: Mapping[str, Any]) -> bool:
    return all(k in whole and whole[k] == v for k, v in part.items())


def _best(candidates: Sequence[Mapping[str, Any]], wanted: Mapping[str, Any]) -> int | None:
    """Heat's match of ``wanted`` among ``candidates`` (an index): the first one whose keys
    hold every key of ``wanted`` (Heat's "most keys agreeing" ties them all)."""
    return next((i for i, c in enumerate(candidates) if _subset(wanted, c)), None)


def _completed(
    ctx: ResourceContext,
    old: Sequence[Entry],
    internal: Mapping[str, str],
    interfaces: Sequence[Any],
) -> list[dict[str, Any]]:
    """The old entries completed with their interfaces' keys (``port`` None: none found)."""
    free = [_iface_props(i) for i in interfaces]
    out: list[dict[str, Any] | None] = [None] * len(old)
    # The entries whose port the server made take their interfaces first.
    for i in range(len(old)):
        port = internal.get(str(i))
        j = next((k for k, f in enumerate(free) if f["port"] == port), None)
        if port is not None and j is not None:
            out[i] = {**_resolved(ctx, old[i]), **free.pop(j)}
    # Then those of a port, those of a fixed IP, the rest: the most precise first, so that an
    # entry of a network only takes an interface none of them is on.
    for i in sorted(range(len(old)), key=lambda i: _precision(old[i])):
        if out[i] is not None:
            continue
        wanted = _resolved(ctx, old[i], gone_ok=True)
        if "port" not in wanted and "network" not in wanted and "subnet" in wanted:
            wanted["network"] = _network_of_subnet(ctx, wanted["subnet"])
        j = _best(free, wanted)
        out[i] = {**wanted, **free.pop(j)} if j is not None else {"port": None, **wanted}
    return [{**e, **_others(old[i])} for i, e in enumerate(out) if e is not None]


def _network_of_subnet(ctx: ResourceContext, subnet: str) -> str:
    client = cloud_access(ctx).client("neutron")
    return str(client.call(lambda c: c.network.get_subnet(subnet)).network_id)


def _match(
    ctx: ResourceContext, new: Sequence[Entry], completed: Sequence[Mapping[str, Any]]
) -> tuple[dict[int, int], list[int], list[int]]:
    """Kept entries (old index to new index), removed old indexes, added new indexes."""
    left = dict(enumerate(completed))
    kept: dict[int, int] = {}
    added: list[int] = []
    for j, entry in enumerate(new):
        wanted = {**_resolved(ctx, entry), **_others(entry)}
        order = list(left)
        at = _best([left[i] for i in order], wanted)
        if at is None:
            added.append(j)
            continue
        kept[order[at]] = j
        del left[order[at]]
    return kept, sorted(left), added


def _interfaces(ctx: ResourceContext, server_id: str) -> list[Any]:
    client = cloud_access(ctx).client("nova")
    return client.call(lambda c: list(c.compute.server_interfaces(server_id)))


def steps_for(
    ctx: ResourceContext,
    server_id: str,
    old: Sequence[Entry],
    new: Sequence[Entry],
    security_groups: Sequence[str],
) -> list[tuple[str, Mapping[str, Any]]]:
    """The detach and attach steps of the change, making the ports it needs on the way (the
    internal ports are re-indexed to the new list; the detaches come first, so that an
    address or port given up is free again for the attaches)."""
    internal = stored_ports(ctx)
    interfaces = _interfaces(ctx, server_id)
    owned = {str(i.port_id) for i in interfaces}
    completed = _completed(ctx, old, internal, interfaces)
    kept, removed, added = _match(ctx, new, completed)
    todo: list[tuple[str, Mapping[str, Any]]] = []
    for i in removed:
        port = completed[i].get("port")
        if port is not None and port in owned:
            drop = internal.get(str(i)) == port
            todo.append(("detach", {"port": port, "delete": drop}))
        if old[i].get("floating_ip"):
            todo.append(("release", {"floating_ip": str(old[i]["floating_ip"])}))
    reindexed = {str(kept[int(i)]): p for i, p in internal.items() if int(i) in kept}
    ctx.data.set(INTERNAL_PORTS_KEY, json.dumps(reindexed))
    going = {p for i, p in internal.items() if int(i) not in kept}
    for j in added:
        todo.append(("attach", _attach_args(ctx, j, new[j], security_groups, going)))
    return todo


def _attach_args(
    ctx: ResourceContext,
    index: int,
    entry: Entry,
    security_groups: Sequence[str],
    going: Collection[str],
) -> dict[str, Any]:
    """What to attach for an added entry (``going``: the server's own ports being deleted,
    never to be taken for a new one)."""
    if entry.get("port"):
        args: dict[str, Any] = {"port": find(ctx, "neutron.port", str(entry["port"]))}
    elif entry.get("subnet") or entry.get("port_extra_properties"):
        args = {"port": internal_port(ctx, index, entry, security_groups, avoid=going)}
    else:
        network = str(entry.get("network") or entry["uuid"])
        args = {"net": find(ctx, "neutron.network", network)}
        if entry.get("fixed_ip"):
            args["fixed_ip"] = entry["fixed_ip"]
    if entry.get("floating_ip") and args.get("port"):
        associate_floating_ip(ctx, entry, str(args["port"]))
    return args
