"""What Neutron tests left behind under a name prefix, and its removal when a test fails."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine


def leftovers(conn: Any, prefix: str) -> list[str]:
    """The Neutron objects of the demo project whose name starts with ``prefix``."""
    kinds = ("routers", "ports", "subnets", "networks", "security_groups")
    return [
        f"{kind}:{item.name}"
        for kind in kinds
        for item in getattr(conn.network, kind)(project_id=conn.current_project_id)
        if (item.name or "").startswith(prefix)
    ]


def remove_leftovers(conn: Any, prefix: str) -> None:
    """Delete what :func:`leftovers` lists (interfaces and floating IPs first)."""

    def mine(item: Any) -> bool:
        return bool((item.name or "").startswith(prefix))

    ports = {p.id for p in conn.network.ports() if mine(p)}
    for fip in conn.network.ips():
        if fip.port_id in ports:
            conn.network.delete_ip(fip, ignore_missing=True)
    routers = [r for r in conn.network.routers() if mine(r)]
    for router in routers:
        for port in conn.network.ports(device_id=router.id):
            for ip in port.fixed_ips:
                with contextlib.suppress(Exception):
                    conn.network.remove_interface_from_router(router, subnet=ip["subnet_id"])
    for router in routers:
        conn.network.delete_router(router, ignore_missing=True)
    for kind in ("port", "subnet", "network", "security_group"):
        for item in list(getattr(conn.network, f"{kind}s")()):
            if mine(item):
                getattr(conn.network, f"delete_{kind}")(item, ignore_missing=True)


@contextlib.contextmanager
def cleaned(engine: CloudEngine, env: CloudEnv, prefix: str) -> Iterator[Any]:
    """A demo-user connection; whatever fails inside, nothing named ``prefix...`` stays."""
    conn = env.connect()
    try:
        yield conn
    finally:
        left = leftovers(conn, prefix)
        if left:
            remove_leftovers(conn, prefix)
