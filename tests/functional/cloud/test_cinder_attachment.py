"""OS::Cinder::VolumeAttachment on the real Nova (fake virt driver) and Cinder (fake volume
driver): a volume attached to a server, moved to another volume by an update, checked, and
detached on delete; and a server booted from a volume of the same stack."""

from __future__ import annotations

import uuid

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.leftovers import leftovers

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  which: {type: string, default: first}
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{allocate_network: none}]
  first: {type: OS::Cinder::Volume, properties: {size: 1}}
  second: {type: OS::Cinder::Volume, properties: {size: 1}}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: server}
      volume_id: {get_resource: {get_param: which}}
      mountpoint: /dev/vdb
outputs:
  server: {value: {get_resource: server}}
  first: {value: {get_resource: first}}
  second: {value: {get_resource: second}}
  attachment: {value: {get_resource: attachment}}
"""


def test_a_volume_is_attached_moved_to_another_checked_and_detached(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    params = {"image": cloud_env.image, "flavor": cloud_env.flavor}
    stack = cloud_engine.create(f"att-{uuid.uuid4().hex[:8]}", TEMPLATE, **params)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = cloud_engine.outputs(stack)
    assert out["attachment"] == out["first"], "Nova names an attachment by its volume"
    first = conn.block_storage.get_volume(out["first"])
    assert first.status == "in-use"
    assert [a["server_id"] for a in first.attachments] == [out["server"]]
    attached = conn.compute.get_volume_attachment(out["server"], out["first"])
    # The mountpoint is a wish: Nova's fake driver names the device itself (/dev/sdb).
    assert attached.device.startswith("/dev/")

    cloud_engine.update(stack, which="second", **params)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert cloud_engine.outputs(stack)["attachment"] == out["second"]
    assert conn.block_storage.get_volume(out["first"]).status == "available"
    second = conn.block_storage.get_volume(out["second"])
    assert second.status == "in-use"
    assert [a["server_id"] for a in second.attachments] == [out["server"]]

    assert cloud_engine.check(stack).status == "COMPLETE"
    conn.compute.delete_volume_attachment(out["server"], out["second"])
    view = cloud_engine.check(stack)
    assert (view.action, view.status) == ("CHECK", "FAILED"), "detached out of band"

    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert leftovers(conn, stack.id) == []


BOOT = """
heat_template_version: 2018-08-31
parameters:
  flavor: {type: string}
  boot: {type: boolean, default: false}
conditions:
  boot: {get_param: boot}
resources:
  root:
    type: OS::Cinder::Volume
    properties: {size: 1}
  server:
    type: OS::Nova::Server
    condition: boot
    properties:
      flavor: {get_param: flavor}
      networks: [{allocate_network: none}]
      block_device_mapping_v2: [{volume_id: {get_resource: root}, boot_index: 0}]
outputs:
  root: {value: {get_resource: root}}
  server: {value: {if: [boot, {get_resource: server}, null]}}
  bootable: {value: {get_attr: [root, bootable]}}
"""


def test_a_server_boots_from_a_volume_of_the_same_stack(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    """Cinder on loopback cannot fill a volume from an image (its volume service runs
    ``qemu-img`` through sudo, which the machine lacks), so the volume is made empty and
    marked bootable out of band before the update that adds the server."""
    conn = cloud_env.connect()
    stack = cloud_engine.create(f"bfv-{uuid.uuid4().hex[:8]}", BOOT, flavor=cloud_env.flavor)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    root_id = cloud_engine.outputs(stack)["root"]
    conn.block_storage.set_volume_bootable_status(root_id, True)

    cloud_engine.update(stack, flavor=cloud_env.flavor, boot=True)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    out = cloud_engine.outputs(stack)
    assert out["root"] == root_id
    assert out["bootable"] == "true"
    root = conn.block_storage.get_volume(root_id)
    assert root.status == "in-use"
    assert [a["server_id"] for a in root.attachments] == [out["server"]]
    server = conn.compute.get_server(out["server"])
    assert server.status == "ACTIVE"
    assert [v["id"] for v in server.attached_volumes] == [root_id]

    # The server goes first (it uses the volume), and leaves it available to be deleted.
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert leftovers(conn, stack.id) == []
