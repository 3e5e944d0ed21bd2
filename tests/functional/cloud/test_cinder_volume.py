"""OS::Cinder::Volume on the real Cinder (fake driver): create with its creation tag and
Heat's attributes, update in place (name, metadata, extend, read-only), replacement, check, a
volume deleted out of band, a refusal by quota, and delete leaving nothing."""

from __future__ import annotations

import json
import uuid

import pymysql
import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.leftovers import leftovers
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  size: {type: number, default: 1}
  metadata: {type: json, default: {tier: gold}}
  read_only: {type: boolean, default: false}
  hints: {type: json, default: {}}
resources:
  volume:
    type: OS::Cinder::Volume
    properties:
      name: {get_param: name}
      size: {get_param: size}
      metadata: {get_param: metadata}
      read_only: {get_param: read_only}
      availability_zone: nova
      scheduler_hints: {get_param: hints}
  copy:
    type: OS::Cinder::Volume
    properties:
      source_volid: {get_resource: volume}
outputs:
  id: {value: {get_resource: volume}}
  copy: {value: {get_resource: copy}}
  size: {value: {get_attr: [volume, size]}}
  status: {value: {get_attr: [volume, status]}}
  name: {value: {get_attr: [volume, display_name]}}
  metadata: {value: {get_attr: [volume, metadata]}}
  metadata_values: {value: {get_attr: [volume, metadata_values]}}
  bootable: {value: {get_attr: [volume, bootable]}}
  attachments: {value: {get_attr: [volume, attachments_list]}}
  copy_source: {value: {get_attr: [copy, source_volid]}}
  copy_size: {value: {get_attr: [copy, size]}}
"""


def test_a_volume_is_created_updated_in_place_replaced_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"vol-{uuid.uuid4().hex[:8]}"
    stack = cloud_engine.create(name, TEMPLATE, name=name)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = cloud_engine.outputs(stack)
    volume = conn.block_storage.get_volume(out["id"])
    assert (volume.name, volume.size, volume.status) == (name, 1, "available")
    assert volume.metadata["thermik_creation_tag"].startswith("thermik-"), "the creation tag"
    assert out["size"] == "1"
    assert out["status"] == "available"
    assert out["name"] == name
    # As in Heat, Cinder's read-only flag shows in the metadata; the creation tag does not.
    assert json.loads(out["metadata"]) == {"tier": "gold", "readonly": "False"}
    assert out["metadata_values"] == {"tier": "gold", "readonly": "False"}
    assert out["bootable"] == "false"
    assert out["attachments"] == []
    assert (out["copy_source"], out["copy_size"]) == (out["id"], "1")

    # In place: a new name, other metadata, a bigger size and the read-only flag.
    cloud_engine.update(
        stack, name=f"{name}-2", size=2, metadata={"tier": "silver", "n": 1}, read_only=True
    )
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    after = cloud_engine.outputs(stack)
    assert after["id"] == out["id"], "updated in place"
    volume = conn.block_storage.get_volume(out["id"])
    assert (volume.name, volume.size) == (f"{name}-2", 2)
    assert volume.metadata["tier"] == "silver"
    assert volume.metadata["n"] == "1"
    assert volume.metadata["readonly"] == "True"
    assert volume.metadata["thermik_creation_tag"].startswith("thermik-"), "the tag stays"
    assert after["size"] == "2"

    # Shrinking is refused, naming the sizes; the volume stays.
    cloud_engine.update(stack, name=f"{name}-2", size=1, read_only=True)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "FAILED")
    assert "Shrinking volume is not supported" in view.status_reason
    assert conn.block_storage.get_volume(out["id"]).size == 2

    # As in Heat, the volume of a failed update is kept: the next update goes in place.
    cloud_engine.update(stack, name=f"{name}-3", size=2, read_only=False)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert cloud_engine.outputs(stack)["id"] == out["id"]
    assert conn.block_storage.get_volume(out["id"]).metadata["readonly"] == "False"

    # Scheduler hints cannot change in place: a replacement, and a new copy of it.
    cloud_engine.update(stack, name=f"{name}-3", size=2, hints={"thermik_test": "1"})
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    replaced = cloud_engine.outputs(stack)
    assert replaced["id"] != out["id"]
    assert replaced["copy_source"] == replaced["id"]
    assert [v.id for v in conn.block_storage.volumes() if v.name == f"{name}-3"] == [
        replaced["id"]
    ]
    assert out["id"] not in {v.id for v in conn.block_storage.volumes()}

    assert cloud_engine.check(stack).status == "COMPLETE"
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert leftovers(conn, stack.id) == []


def test_a_volume_beyond_the_quota_fails_with_cinders_answer(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  volume: {type: OS::Cinder::Volume, properties: {size: 100000}}
"""
    conn = cloud_env.connect()
    stack = cloud_engine.create(f"vol-{uuid.uuid4().hex[:8]}", template)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    assert "exceeds allowed gigabytes quota" in view.status_reason, view.status_reason
    assert "http" not in view.status_reason
    assert cloud_engine.delete(stack).status == "COMPLETE"
    assert leftovers(conn, stack.id) == []


@pytest.mark.parametrize(
    ("properties", "where", "answer"),
    [
        ("{}", "properties.size", 'If neither "backup_id" nor "size" is provided'),
        (
            "{size: 1, volume_type: no-such-type}",
            "properties.volume_type",
            "The VolumeType (no-such-type) could not be found.",
        ),
        (
            "{source_volid: no-such-volume}",
            "properties.source_volid",
            "The Volume (no-such-volume) could not be found.",
        ),
        (
            "{snapshot_id: no-such-snapshot}",
            "properties.snapshot_id",
            "The VolumeSnapshot (no-such-snapshot) could not be found.",
        ),
        (
            "{backup_id: no-such-backup}",
            "properties.backup_id",
            "The Volume backup (no-such-backup) could not be found.",
        ),
    ],
)
def test_bad_volume_properties_fail_validation_naming_them(
    cloud_engine: CloudEngine, properties: str, where: str, answer: str
) -> None:
    template = f"""
heat_template_version: 2018-08-31
resources:
  volume: {{type: OS::Cinder::Volume, properties: {properties}}}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"vol-{uuid.uuid4().hex[:8]}", template)
    assert f"resources.volume.{where}" in str(raised.value)
    assert answer in str(raised.value)


SNAPSHOT = """
heat_template_version: 2018-08-31
resources:
  volume:
    type: OS::Cinder::Volume
    deletion_policy: Snapshot
    properties: {size: 1}
outputs:
  id: {value: {get_resource: volume}}
"""


def _forget_backup(env: CloudEnv, backup_id: str) -> None:
    """Mark a backup deleted in Cinder's database: without a backup service (none runs on
    loopback) Cinder cannot delete even a backup in error, and the test leaves nothing.
    tools/cloud-up.sh keeps cinder.conf beside the cloud's clouds.yaml."""
    conf = (env.config_file.parent / "etc" / "cinder" / "cinder.conf").read_text()
    lines = conf.splitlines()
    url = next(line.split("=", 1)[1].strip() for line in lines if line.startswith("connection"))
    database = url.rsplit("/", 1)[1].split("?")[0]
    conn = pymysql.connect(host="127.0.0.1", user="root", database=database)
    try:
        with conn.cursor() as cursor:
            cursor.execute(
                "UPDATE backups SET deleted = 1, status = 'deleted', deleted_at = NOW() "
                "WHERE id = %s",
                (backup_id,),
            )
        conn.commit()
    finally:
        conn.close()


def test_the_snapshot_policy_backs_the_volume_up_first_and_keeps_it_when_that_fails(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    stack = cloud_engine.create(f"vol-{uuid.uuid4().hex[:8]}", SNAPSHOT)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    volume_id = cloud_engine.outputs(stack)["id"]
    backups = []
    try:
        view = cloud_engine.delete(stack)
        backups = [b for b in conn.block_storage.backups() if b.volume_id == volume_id]
        # No backup service runs on loopback: Cinder fails the backup, the volume is kept.
        assert (view.action, view.status) == ("DELETE", "FAILED")
        assert "Volume backup failed" in view.status_reason, view.status_reason
        assert "Service not found for creating backup" in view.status_reason
        assert "the volume is kept" in view.status_reason
        assert conn.block_storage.get_volume(volume_id).status == "available"
        assert [b.status for b in backups] == ["error"]

        # As in Heat, the stack cannot be updated any more; once the volume is gone (here
        # deleted out of band), the delete has nothing left to back up and completes.
        conn.block_storage.delete_volume(volume_id)
        conn.block_storage.wait_for_delete(conn.block_storage.get_volume(volume_id))
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert leftovers(conn, stack.id) == []
        assert [b.id for b in conn.block_storage.backups() if b.volume_id == volume_id] == [
            b.id for b in backups
        ], "no second backup"
    finally:
        for backup in backups:
            _forget_backup(cloud_env, backup.id)
