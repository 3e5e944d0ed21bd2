"""OS::Glance::WebImage on the real Glance: the image's data served by the test on 127.0.0.1,
imported by Glance's web-download; active, its attributes, updated in place, deleted; and an
import Glance cannot make fails the resource with Glance's reason."""

from __future__ import annotations

import hashlib
import http.server
import threading
import uuid
from collections.abc import Iterator

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine

pytestmark = pytest.mark.functional

DATA = b"thermik-web-image\n" * 512

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  location: {type: string}
  name: {type: string}
  tags: {type: comma_delimited_list, default: [first]}
  extra: {type: json, default: {"color": "blue", "size_hint": "tiny"}}
resources:
  image:
    type: OS::Glance::WebImage
    properties:
      name: {get_param: name}
      location: {get_param: location}
      disk_format: raw
      container_format: bare
      min_ram: 16
      tags: {get_param: tags}
      extra_properties: {get_param: extra}
outputs:
  id: {value: {get_resource: image}}
  status: {value: {get_attr: [image, show, status]}}
  checksum: {value: {get_attr: [image, show, checksum]}}
"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/image.raw":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(DATA)))
        self.end_headers()
        self.wfile.write(DATA)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served() -> Iterator[str]:
    """The URL of a loopback HTTP server: ``/image.raw`` is :data:`DATA`, the rest 404."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_image_is_imported_from_a_url_updated_in_place_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv, served: str
) -> None:
    conn = cloud_env.connect()
    name = f"glance-img-{uuid.uuid4().hex[:6]}"
    stack = cloud_engine.create(name, TEMPLATE, name=name, location=f"{served}/image.raw")
    try:
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        out = cloud_engine.outputs(stack)
        assert out["status"] == "active"
        assert out["checksum"] == hashlib.md5(DATA).hexdigest()
        image = conn.image.get_image(out["id"])
        assert (image.name, image.min_ram, image.disk_format) == (name, 16, "raw")
        assert image.properties["color"] == "blue"
        assert "first" in image.tags
        assert any(t.startswith("thermik-") for t in image.tags), "the creation tag"

        cloud_engine.update(stack, tags="second", extra={"color": "red"})
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        image = conn.image.get_image(out["id"])
        assert image.properties["color"] == "red"
        assert "size_hint" not in image.properties
        assert "second" in image.tags
        assert "first" not in image.tags
        assert any(t.startswith("thermik-") for t in image.tags), "the creation tag stays"

        assert cloud_engine.check(stack).status == "COMPLETE"
    finally:
        view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not list(conn.image.images(name=name))


def test_an_import_glance_cannot_make_fails_with_glances_reason(
    cloud_engine: CloudEngine, cloud_env: CloudEnv, served: str
) -> None:
    name = f"glance-img-{uuid.uuid4().hex[:6]}"
    stack = cloud_engine.create(name, TEMPLATE, name=name, location=f"{served}/missing.raw")
    try:
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("CREATE", "FAILED")
        # Glance's own words for a download that got a 404.
        assert "did not import the image from its location" in view.status_reason
        assert "Task failed" in view.status_reason, view.status_reason
        assert "127.0.0.1" not in view.status_reason
    finally:
        view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not list(cloud_env.connect().image.images(name=name))
