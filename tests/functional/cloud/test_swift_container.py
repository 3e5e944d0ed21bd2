"""OS::Swift::Container on the real Swift, reached through the loopback cloud's catalog with
the demo user's own Keystone credentials (tools/swift-keystone-up.sh): create with ACLs and
metadata, attributes, replacement (the old container purged), check, a refused delete of a
container that holds objects, and delete leaving nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv, wait_for_cloud_job
from tests.functional.cloud.engine import CloudEngine
from tests.functional.services import unavailable
from thermik.clients.object_store import delete_container, delete_object, object_names

pytestmark = pytest.mark.functional

CONTAINER = """
heat_template_version: 2018-08-31
parameters:
  colour: {type: string, default: blue}
  purge: {type: boolean, default: true}
resources:
  box:
    type: OS::Swift::Container
    properties:
      X-Container-Read: ".r:*"
      X-Container-Meta: {colour: {get_param: colour}}
      PurgeOnDelete: {get_param: purge}
outputs:
  name: {value: {get_resource: box}}
  url: {value: {get_attr: [box, WebsiteURL]}}
  root: {value: {get_attr: [box, RootURL]}}
  host: {value: {get_attr: [box, DomainName]}}
  count: {value: {get_attr: [box, ObjectCount]}}
  bytes: {value: {get_attr: [box, BytesUsed]}}
  head: {value: {get_attr: [box, HeadContainer]}}
"""


@pytest.fixture
def demo(cloud_env: CloudEnv) -> Iterator[Connection]:
    """The demo user's connection, once the catalog has an object-store."""
    wait_for_cloud_job()
    conn = cloud_env.connect()
    try:
        if not conn.object_store.get_endpoint():
            raise LookupError("no endpoint")
    except Exception as error:  # no endpoint: keystoneauth's or openstacksdk's error
        conn.close()
        unavailable(
            f"the cloud's catalog has no object-store (tools/swift-keystone-up.sh): {error}"
        )
    try:
        yield conn
    finally:
        conn.close()


def _containers(conn: Connection, prefix: str) -> list[str]:
    return [str(c.name) for c in conn.object_store.containers() if c.name.startswith(prefix)]


def _purge(conn: Connection, prefix: str) -> None:
    for name in _containers(conn, prefix):
        for obj in object_names(conn, name):
            delete_object(conn, name, obj)
        delete_container(conn, name)


def test_a_container_is_made_read_replaced_checked_and_deleted(
    cloud_engine: CloudEngine, demo: Connection
) -> None:
    prefix = f"swc-{uuid.uuid4().hex[:8]}"
    try:
        _container_lifecycle(cloud_engine, demo, prefix)
    finally:
        _purge(demo, prefix)


def _container_lifecycle(engine: CloudEngine, conn: Connection, prefix: str) -> None:
    stack = engine.create(prefix, CONTAINER)
    view = engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = engine.outputs(stack)
    name = out["name"]
    assert name.startswith(f"{prefix}-box-")
    root = str(conn.object_store.get_endpoint()).rstrip("/")
    assert (out["root"], out["url"], out["host"]) == (root, f"{root}/{name}", "127.0.0.1")
    assert (out["count"], out["bytes"]) == (0, 0)
    assert out["head"]["x-container-meta-colour"] == "blue"
    assert out["head"]["x-container-read"] == ".r:*"
    conn.object_store.upload_object(container=name, name="hello", data=b"hello")
    assert engine.check(stack).status == "COMPLETE"

    # Every property replaces the container; the old one is purged with its object.
    engine.update(stack, colour="red")
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    now = engine.outputs(stack)
    assert now["name"] != name
    assert now["head"]["x-container-meta-colour"] == "red"
    assert _containers(conn, prefix) == [now["name"]]

    # Gone behind the stack's back: check fails with Swift's answer.
    delete_container(conn, now["name"])
    view = engine.check(stack)
    assert (view.action, view.status) == ("CHECK", "FAILED")
    assert "http" not in view.status_reason
    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert _containers(conn, prefix) == []


def test_a_container_holding_objects_is_kept_unless_purged(
    cloud_engine: CloudEngine, demo: Connection
) -> None:
    prefix = f"swc-{uuid.uuid4().hex[:8]}"
    try:
        stack = cloud_engine.create(prefix, CONTAINER, purge=False)
        assert cloud_engine.wait(stack).status == "COMPLETE"
        name = cloud_engine.outputs(stack)["name"]
        demo.object_store.upload_object(container=name, name="keep", data=b"keep")
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "FAILED")
        assert f"Deleting non-empty container ({name}) when PurgeOnDelete is False" in (
            view.status_reason
        )
        assert _containers(demo, prefix) == [name]
        delete_object(demo, name, "keep")
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert _containers(demo, prefix) == []
    finally:
        _purge(demo, prefix)
