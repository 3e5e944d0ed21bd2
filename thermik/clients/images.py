"""Glance calls openstacksdk's proxy does not make as Heat needs them.

The image proxy's ``create_image`` is an uploader: it looks for a same-named image first and
adds checksum properties of its own. An image record with exactly the template's fields (which
the web-download import then fills) is made here, from the SDK's image resource.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openstack import exceptions
from openstack.connection import Connection
from openstack.image.v2.image import Image


def create_image_record(conn: Connection, fields: Mapping[str, Any]) -> Any:
    """A new image with ``fields`` (Glance's names; unknown keys are image properties) and
    no data yet: status ``queued``, one request."""
    return Image.new(**fields).create(conn.image)


def remove_image_properties(conn: Connection, image_id: str, names: list[str]) -> None:
    """Remove the custom properties ``names`` of an image (one JSON-patch request)."""
    patch = [{"op": "remove", "path": f"/{name}"} for name in names]
    response = conn.image.patch(
        f"/images/{image_id}",
        json=patch,
        headers={"Content-Type": "application/openstack-images-v2.1-json-patch"},
    )
    exceptions.raise_from_response(response)
