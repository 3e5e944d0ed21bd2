"""A Cinder create run again after an engine crash (between Cinder's answer and the database
write) finds what its first run made instead of making another, and a delete of a version
whose physical id was never recorded finds its volume by the creation tag: the plugins are
driven as the next engine would drive them, on the real Cinder."""

from __future__ import annotations

import dataclasses
import time
import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.unit.resources.harness import Context
from thermik.clients.access import StackCloud
from thermik.resources.cinder.volume import Volume
from thermik.resources.cinder.volume_type import VolumeType
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.plugin import Progress

pytestmark = pytest.mark.functional


@dataclasses.dataclass
class CloudContext(Context):
    """The harness's context, with the cloud access a traversal gives a plugin."""

    cloud: Any = None


def _cloud(engine: CloudEngine) -> StackCloud:
    assert engine.engine.cloud is not None
    accesses = engine.engine.cloud
    return StackCloud(accesses.pool, lambda: accesses.source.of_stack(None))


def _created_twice(
    plugin: type[CloudResource], props: dict[str, Any], cloud: StackCloud
) -> CloudContext:
    """Create, then create again with the same data and no physical id; one resource."""
    checked = plugin.check_properties(props)
    first = CloudContext(resource_type="OS::Cinder::X", version_id=7, cloud=cloud)
    _finish(plugin, first, checked, plugin().create(first, checked))
    again = CloudContext(resource_type="OS::Cinder::X", version_id=7, cloud=cloud, data=first.data)
    _finish(plugin, again, checked, plugin().create(again, checked))
    assert first.physical_id is not None
    assert again.physical_id == first.physical_id, f"{plugin.__name__} made a second one"
    return again


def _finish(
    plugin: type[CloudResource], ctx: CloudContext, props: Any, progress: Progress | None
) -> None:
    for _ in range(60):
        result = plugin().check_create_complete(ctx, props, progress)
        if result is True:
            return
        time.sleep(0.5)
    raise AssertionError(f"{plugin.__name__} not created in 30 s")


def _deleted(plugin: type[CloudResource], ctx: CloudContext, props: dict[str, Any]) -> None:
    checked = plugin.check_properties(props)
    progress = plugin().delete(ctx, checked)
    for _ in range(60):
        if progress is None or plugin().check_delete_complete(ctx, checked, progress) is True:
            return
        time.sleep(0.5)
    raise AssertionError(f"{plugin.__name__} not deleted in 30 s")


def test_a_volume_created_twice_is_one_and_its_orphan_is_deleted_by_its_tag(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"vol-resumed-{uuid.uuid4().hex[:8]}"
    props = {"name": name, "size": 1}
    try:
        ctx = _created_twice(Volume, props, _cloud(cloud_engine))
        assert [v.name for v in conn.block_storage.volumes()].count(name) == 1
        # The engine died before recording the physical id: the delete finds it by its tag.
        orphan = dataclasses.replace(ctx, physical_id=None)
        _deleted(Volume, orphan, props)
        assert name not in [v.name for v in conn.block_storage.volumes()]
    finally:
        for volume in [v for v in conn.block_storage.volumes() if v.name == name]:
            conn.block_storage.delete_volume(volume)


def test_a_volume_type_created_twice_is_one(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    name = f"vt-resumed-{uuid.uuid4().hex[:8]}"
    props = {"name": name, "metadata": {"thermik:tier": "gold"}}
    try:
        ctx = _created_twice(VolumeType, props, _cloud(admin_engine))
        assert [t.name for t in admin.block_storage.types()].count(name) == 1
        _deleted(VolumeType, dataclasses.replace(ctx, physical_id=None), props)
        assert name not in [t.name for t in admin.block_storage.types()]
    finally:
        for vtype in [t for t in admin.block_storage.types() if t.name == name]:
            admin.block_storage.delete_type(vtype)
