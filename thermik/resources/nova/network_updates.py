"""A change of a server's ``networks`` in place: detach what went, attach what came.

Entries are matched as wholes (an entry whose keys all stay the same keeps its interface, even
when it moved in the list); an entry that changed counts as one removed and one added. A
removed entry's interface is detached (the ports the server made for it are deleted after, the
user's ports are left, a floating IP it associated is released); an added one is attached as a
create would (a port the server makes for a subnet entry, a given port, or a port Nova makes on
the network). A change from or to Nova's default networks, or ``allocate_network``, replaces
the server instead (:func:`in_place`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.resources.cloud_access import cloud_access, find
from thermik.resources.context import ResourceContext
from thermik.resources.nova.networks import (
    INTERNAL_PORTS_KEY,
    associate_floating_ip,
    internal_port,
    stored_ports,
)

Entry = Mapping[str, Any]


def _norm(entry: Entry) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if v not in (None, "", {}) and k != "tag"}


def _without_subnet(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != "subnet"}


def in_place(old: Sequence[Entry] | None, new: Sequence[Entry] | None) -> bool:
    """Whether the change can be made by attaching and detaching interfaces."""
    if not old or not new:
        return False
    return not any(e.get("allocate_network") for e in [*old, *new])


def _match(
    old: Sequence[Entry], new: Sequence[Entry]
) -> tuple[dict[int, int], list[int], list[int]]:
    """Kept entries (old index to new index), removed old indexes, added new indexes."""
    free = {j: _norm(e) for j, e in enumerate(new)}
    kept: dict[int, int] = {}
    for i, entry in enumerate(old):
        wanted = _norm(entry)
        j = next((j for j, e in free.items() if e == wanted), None)
        if j is not None:
            kept[i] = j
            del free[j]
    # As in Heat, an entry of a network that only gains the subnet its interface is on keeps
    # the interface.
    for i, entry in enumerate(old):
        wanted = _norm(entry)
        if i in kept or "subnet" in wanted or "network" not in wanted:
            continue
        j = next((j for j, e in free.items() if _without_subnet(e) == wanted), None)
        if j is not None:
            kept[i] = j
            del free[j]
    removed = [i for i in range(len(old)) if i not in kept]
    return kept, removed, sorted(free)


def _interfaces(ctx: ResourceContext, server_id: str) -> list[Any]:
    client = cloud_access(ctx).client("nova")
    return client.call(lambda c: list(c.compute.server_interfaces(server_id)))


def _port_of(
    ctx: ResourceContext,
    index: int,
    entry: Entry,
    internal: Mapping[str, str],
    free: list[Any],
) -> str | None:
    """The port of an old entry: given, made by the server, or one Nova made on its network
    (taken from ``free``, the interfaces not claimed yet)."""
    if entry.get("port"):
        return find(ctx, "neutron.port", str(entry["port"]))
    if str(index) in internal:
        return internal[str(index)]
    network = find(ctx, "neutron.network", str(entry.get("network") or entry.get("uuid")))
    for iface in free:
        ips = [ip.get("ip_address") for ip in iface.fixed_ips or []]
        if iface.net_id == network and (not entry.get("fixed_ip") or entry["fixed_ip"] in ips):
            free.remove(iface)
            return str(iface.port_id)
    return None


def steps_for(
    ctx: ResourceContext,
    server_id: str,
    old: Sequence[Entry],
    new: Sequence[Entry],
    security_groups: Sequence[str],
) -> list[tuple[str, Mapping[str, Any]]]:
    """The detach and attach steps of the change, making the ports it needs on the way (the
    internal ports are re-indexed to the new list)."""
    kept, removed, added = _match(old, new)
    internal = stored_ports(ctx)
    free = list(_interfaces(ctx, server_id))
    owned = {str(i.port_id) for i in free}
    for i in sorted(kept):  # claim the kept entries' interfaces first
        _port_of(ctx, i, old[i], internal, free)
    todo: list[tuple[str, Mapping[str, Any]]] = []
    for i in removed:
        port = _port_of(ctx, i, old[i], internal, free)
        if port is not None and port in owned:
            drop = str(i) in internal
            todo.append(("detach", {"port": port, "delete": drop}))
        if old[i].get("floating_ip"):
            todo.append(("release", {"floating_ip": str(old[i]["floating_ip"])}))
    reindexed = {str(kept[int(i)]): p for i, p in internal.items() if int(i) in kept}
    ctx.data.set(INTERNAL_PORTS_KEY, json.dumps(reindexed))
    for j in added:
        entry = new[j]
        if entry.get("port"):
            args: dict[str, Any] = {"port": find(ctx, "neutron.port", str(entry["port"]))}
        elif entry.get("subnet") or entry.get("port_extra_properties"):
            args = {"port": internal_port(ctx, j, entry, security_groups)}
        else:
            network = str(entry.get("network") or entry["uuid"])
            args = {"net": find(ctx, "neutron.network", network)}
            if entry.get("fixed_ip"):
                args["fixed_ip"] = entry["fixed_ip"]
        if entry.get("floating_ip") and args.get("port"):
            associate_floating_ip(ctx, entry, str(args["port"]))
        todo.append(("attach", args))
    return todo
