"""What the modules that talk to Keystone itself share: its v3 URL and its v3 API."""

from __future__ import annotations

from typing import cast

from openstack.connection import Connection
from openstack.identity.v3._proxy import Proxy as IdentityV3


def v3_url(uri: str) -> str:
    """Keystone's v3 URL for ``uri``, versioned (``…/v3``) or not (``…:5000``)."""
    base = uri.rstrip("/")
    return base if base.endswith("/v3") else f"{base}/v3"


def identity(conn: Connection) -> IdentityV3:
    """The identity v3 API of ``conn`` (Thermik speaks to Keystone v3 only)."""
    return cast("IdentityV3", conn.identity)
