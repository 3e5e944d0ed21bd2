"""No orphans after a crash for the Keystone types and Zaqar subscriptions: a create run again with
the same resource data (the engine died between the cloud call and the database write) finds
what its first run made instead of making another, and the delete of a version that never
learnt its physical id deletes what its create made."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection
from openstack.exceptions import NotFoundException

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.services import unavailable
from tests.unit.resources.harness import Context
from thermik.clients.access import StackCloud
from thermik.clients.messaging import delete_queue, put_queue, subscriptions
from thermik.resources.keystone.domain import Domain
from thermik.resources.keystone.endpoint import Endpoint
from thermik.resources.keystone.group import Group
from thermik.resources.keystone.project import Project
from thermik.resources.keystone.region import Region
from thermik.resources.keystone.role import Role
from thermik.resources.keystone.service import Service
from thermik.resources.keystone.user import User
from thermik.resources.plugin import ResourcePlugin
from thermik.resources.zaqar.subscription import Subscription

pytestmark = pytest.mark.functional


@dataclasses.dataclass
class CloudContext(Context):
    """The harness's context, with the cloud access a traversal gives a plugin."""

    cloud: Any = None


def _access(engine: CloudEngine) -> StackCloud:
    assert engine.engine.cloud is not None
    accesses = engine.engine.cloud
    return StackCloud(accesses.pool, lambda: accesses.source.of_stack(None))


def created_twice(
    plugin: type[ResourcePlugin], props: dict[str, Any], cloud: StackCloud, name: str
) -> CloudContext:
    """Create, then create again with the same data and no physical id: one object."""
    checked = plugin.check_properties(props)
    first = CloudContext(resource_name=name, resource_type="OS::X", cloud=cloud)
    plugin().create(first, checked)
    again = CloudContext(resource_name=name, resource_type="OS::X", cloud=cloud, data=first.data)
    plugin().create(again, checked)
    assert first.physical_id is not None
    assert again.physical_id == first.physical_id, f"{plugin.__name__} made a second one"
    return again


def orphan_deleted(plugin: type[ResourcePlugin], ctx: CloudContext, props: dict[str, Any]) -> str:
    """Delete the version as one that never recorded its physical id; the id it had."""
    physical_id = ctx.physical_id
    assert physical_id is not None
    lost = dataclasses.replace(ctx, physical_id=None)
    plugin().delete(lost, plugin.check_properties(props))
    return physical_id


def _found(get: Any, physical_id: str) -> Any:
    """What ``get`` finds by id, or ``None`` when the cloud says it is gone."""
    try:
        return get(physical_id)
    except NotFoundException:
        return None


@pytest.fixture
def admin(cloud_env: CloudEnv) -> Iterator[Connection]:
    conn = cloud_env.connect(admin=True)
    try:
        yield conn
    finally:
        conn.close()


def test_keystone_creates_run_again_find_what_the_first_run_made(
    admin_engine: CloudEngine, admin: Connection
) -> None:
    prefix = f"ksr-{uuid.uuid4().hex[:8]}"
    cloud = _access(admin_engine)
    idc = admin.identity
    service_props = {"type": f"{prefix}-type"}
    cases: list[tuple[type[ResourcePlugin], dict[str, Any], Any]] = [
        (Project, {}, idc.find_project),
        (User, {"password": prefix}, idc.find_user),
        (Group, {}, idc.find_group),
        (Role, {}, lambda i: _found(idc.get_role, i)),
        (Domain, {}, idc.find_domain),
        (Region, {"id": f"{prefix}-region"}, idc.find_region),
        (Service, service_props, idc.find_service),
    ]
    made: list[tuple[type[ResourcePlugin], CloudContext, dict[str, Any], Any]] = []
    try:
        for plugin, props, lookup in cases:
            ctx = created_twice(plugin, props, cloud, f"{prefix}-{plugin.__name__.lower()}")
            made.append((plugin, ctx, props, lookup))
        service_id = made[-1][1].physical_id
        endpoint = {"service": service_id, "interface": "internal", "url": "http://127.0.0.1:9"}
        ctx = created_twice(Endpoint, endpoint, cloud, f"{prefix}-endpoint")
        assert len(list(idc.endpoints(service_id=service_id))) == 1
        made.append((Endpoint, ctx, endpoint, idc.find_endpoint))
    finally:
        for plugin, ctx, props, lookup in reversed(made):
            gone = orphan_deleted(plugin, ctx, props)
            assert lookup(gone) is None, f"{plugin.__name__} {gone} left behind"


def test_a_zaqar_subscription_run_again_finds_its_first_one(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    try:
        conn.message.get_endpoint()
    except Exception as error:  # no endpoint: keystoneauth's or openstacksdk's error
        unavailable(f"the cloud's catalog has no messaging (tools/zaqar-keystone-up.sh): {error}")
    queue = f"zqr-{uuid.uuid4().hex[:8]}"
    props = {"queue_name": queue, "subscriber": "http://127.0.0.1:9/resumed"}
    put_queue(conn, queue, {})
    try:
        ctx = created_twice(Subscription, props, _access(cloud_engine), queue)
        assert [s["id"] for s in subscriptions(conn, queue)] == [ctx.physical_id]
        orphan_deleted(Subscription, ctx, props)
        assert subscriptions(conn, queue) == []
    finally:
        delete_queue(conn, queue)
        conn.close()
