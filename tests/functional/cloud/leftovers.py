"""What a stack left in the cloud: everything that carries one of its creation tags."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from openstack.connection import Connection

from thermik.resources.cinder.common import TAG_KEY as VOLUME_TAG_KEY
from thermik.resources.cloud_access import TAG_PREFIX


def _tagged(found: Iterable[Any], prefix: str, kind: str) -> list[str]:
    out = []
    for thing in found:
        marks = [getattr(thing, "description", None) or "", *(getattr(thing, "tags", None) or [])]
        if any(mark.startswith(prefix) for mark in marks):
            out.append(f"{kind} {thing.id} {getattr(thing, 'name', '')}")
    return out


def _tagged_volumes(conn: Connection, prefix: str) -> list[str]:
    """The volumes whose metadata carries a creation tag starting with ``prefix``."""
    return [
        f"volume {v.id} {v.name}"
        for v in conn.block_storage.volumes()
        if str((v.metadata or {}).get(VOLUME_TAG_KEY, "")).startswith(prefix)
    ]


def leftovers(conn: Connection, stack_id: str) -> list[str]:
    """Every network, subnet, port, router, security group, floating IP, server and volume
    of the project that carries a creation tag of stack ``stack_id``."""
    prefix = f"{TAG_PREFIX}{stack_id}-"
    network = conn.network
    return [
        *_tagged(network.networks(), prefix, "network"),
        *_tagged(network.subnets(), prefix, "subnet"),
        *_tagged(network.ports(), prefix, "port"),
        *_tagged(network.routers(), prefix, "router"),
        *_tagged(network.security_groups(), prefix, "security group"),
        *_tagged(network.ips(), prefix, "floating IP"),
        *_tagged(network.subnet_pools(), prefix, "subnet pool"),
        *_tagged(conn.compute.servers(), prefix, "server"),
        *_tagged_volumes(conn, prefix),
    ]
