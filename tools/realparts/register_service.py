"""Put a Keystone-authenticated service in the loopback cloud's catalog, idempotently.

Run by tools/swift-keystone-up.sh and tools/zaqar-keystone-up.sh with their venv's Python
(keystoneauth1 comes with keystonemiddleware). As the cloud's admin it makes the service user
USER (roles admin and service in project service, with the password given) and the service
NAME of TYPE with public, internal and admin endpoints at URL.
Usage: register_service.py AUTH_URL ADMIN_PASSWORD USER PASSWORD NAME TYPE URL
"""

from __future__ import annotations

import sys
from typing import Any

from keystoneauth1 import session as ks_session  # type: ignore[import-not-found]
from keystoneauth1.identity import v3  # type: ignore[import-not-found]

REGION = "RegionOne"


def one(sess: Any, path: str, key: str, **query: str) -> dict[str, Any] | None:
    found = sess.get(path, params=query).json()[key]
    return found[0] if found else None


def ensure(sess: Any, path: str, key: str, body: dict[str, Any], **query: str) -> dict[str, Any]:
    found = one(sess, path, f"{key}s", **query)
    return found or sess.post(path, json={key: body}).json()[key]


def main(
    auth_url: str,
    admin_password: str,
    user_name: str,
    password: str,
    name: str,
    kind: str,
    url: str,
) -> None:
    auth = v3.Password(
        auth_url=auth_url,
        username="admin",
        password=admin_password,
        project_name="admin",
        user_domain_name="Default",
        project_domain_name="Default",
    )
    sess = ks_session.Session(auth=auth)
    base = auth_url.rstrip("/")
    service_project = one(sess, f"{base}/projects", "projects", name="service")
    assert service_project is not None, "the cloud has no project service"
    user = one(sess, f"{base}/users", "users", name=user_name, domain_id="default")
    if user is None:
        body = {"name": user_name, "password": password, "domain_id": "default"}
        user = sess.post(f"{base}/users", json={"user": body}).json()["user"]
    else:
        sess.patch(f"{base}/users/{user['id']}", json={"user": {"password": password}})
    for role_name in ("admin", "service"):
        role = one(sess, f"{base}/roles", "roles", name=role_name)
        assert role is not None, f"the cloud has no role {role_name}"
        sess.put(f"{base}/projects/{service_project['id']}/users/{user['id']}/roles/{role['id']}")
    service = ensure(
        sess,
        f"{base}/services",
        "service",
        {"name": name, "type": kind, "enabled": True},
        type=kind,
    )
    have = {
        e["interface"]: e
        for e in sess.get(f"{base}/endpoints", params={"service_id": service["id"]}).json()[
            "endpoints"
        ]
    }
    for interface in ("public", "internal", "admin"):
        body = {
            "service_id": service["id"],
            "interface": interface,
            "url": url,
            "region_id": REGION,
            "enabled": True,
        }
        if interface not in have:
            sess.post(f"{base}/endpoints", json={"endpoint": body})
        elif have[interface]["url"] != url:
            sess.patch(
                f"{base}/endpoints/{have[interface]['id']}", json={"endpoint": {"url": url}}
            )


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    main(*sys.argv[1:])
