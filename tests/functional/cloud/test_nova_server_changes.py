"""OS::Nova::Server on the real Nova: resize, rebuild, replacement, NoValidHost, an unknown
image refused at validation, and a server deleted out of band."""

from __future__ import annotations

import uuid

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  name: {type: string}
  key: {type: string, default: one}
  image_policy: {type: string, default: REBUILD}
resources:
  server:
    type: OS::Nova::Server
    properties:
      name: {get_param: name}
      image: {get_param: image}
      flavor: {get_param: flavor}
      image_update_policy: {get_param: image_policy}
      availability_zone: nova
      networks: [{allocate_network: none}]
      user_data_format: RAW
      user_data: {get_param: key}
      user_data_update_policy: REPLACE
outputs:
  id: {value: {get_resource: server}}
"""


def _gone(env: CloudEnv, name: str) -> bool:
    return not [s for s in env.connect().compute.servers() if str(s.name).startswith(name)]


def _image(env: CloudEnv, name: str) -> str:
    """A second image (a copy of the cloud's tiny one) for rebuilds; the caller deletes it."""
    conn = env.connect()
    source = conn.image.find_image(env.image, ignore_missing=False)
    data = conn.image.download_image(source.id).content
    made = conn.image.create_image(
        name=name, data=data, disk_format=source.disk_format, container_format="bare"
    )
    return str(made.id)


def test_rebuild_replacement_and_a_server_deleted_out_of_band(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"nova-{uuid.uuid4().hex[:8]}"
    other = _image(cloud_env, f"{name}-image")
    try:
        stack = cloud_engine.create(
            name, TEMPLATE, image=cloud_env.image, flavor=cloud_env.flavor, name=name
        )
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        first = cloud_engine.outputs(stack)["id"]

        cloud_engine.update(stack, image=other)
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        assert cloud_engine.outputs(stack)["id"] == first, "rebuilt in place"
        assert conn.compute.get_server(first).image.id == other

        cloud_engine.update(stack, key="two")
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        second = cloud_engine.outputs(stack)["id"]
        assert second != first, "new user_data replaces the server"
        assert conn.compute.find_server(first, ignore_missing=True) is None

        conn.compute.delete_server(second)
        conn.compute.wait_for_delete(conn.compute.get_server(second), interval=0.5)
        view = cloud_engine.check(stack)
        assert (view.action, view.status) == ("CHECK", "FAILED")
        assert "could not be found" in view.status_reason, view.status_reason

        cloud_engine.update(stack, key="two")
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        third = cloud_engine.outputs(stack)["id"]
        assert third != second
        assert conn.compute.get_server(third).status == "ACTIVE"

        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert _gone(cloud_env, name)
    finally:
        conn.image.delete_image(other, ignore_missing=True)


def test_resize_to_another_flavor(cloud_engine: CloudEngine, cloud_env: CloudEnv) -> None:
    conn = cloud_env.connect()
    name = f"nova-{uuid.uuid4().hex[:8]}"
    bigger = next(f.name for f in conn.compute.flavors() if f.name != cloud_env.flavor)
    stack = cloud_engine.create(
        name, TEMPLATE, image=cloud_env.image, flavor=cloud_env.flavor, name=name
    )
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    first = cloud_engine.outputs(stack)["id"]
    try:
        cloud_engine.update(stack, flavor=bigger)
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        server = conn.compute.get_server(first)
        assert server.flavor.original_name == bigger
        assert server.status == "ACTIVE"
    finally:
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert _gone(cloud_env, name)


def test_no_valid_host_fails_with_novas_reason(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    name = f"nova-{uuid.uuid4().hex[:8]}"
    # A disk larger than the fake host's (Nova has no quota on disk: NoValidHost, not OverQuota).
    huge = admin.compute.create_flavor(name=name, ram=64, vcpus=1, disk=700000)
    try:
        stack = cloud_engine.create(
            name, TEMPLATE, image=cloud_env.image, flavor=huge.id, name=name
        )
        try:
            view = cloud_engine.wait(stack)
            assert (view.action, view.status) == ("CREATE", "FAILED")
            assert "No valid host was found" in view.status_reason, view.status_reason
            assert "Went to status ERROR" in view.status_reason
        finally:
            view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert _gone(cloud_env, name)
    finally:
        admin.compute.delete_flavor(huge.id)


def test_an_unknown_image_is_refused_at_validation(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(
            f"nova-{uuid.uuid4().hex[:8]}",
            TEMPLATE,
            image="no-such-image",
            flavor=cloud_env.flavor,
            name="never",
        )
    assert "image" in str(raised.value)
    assert "The Image (no-such-image) could not be found." in str(raised.value)


def test_software_config_user_data_is_refused_for_now(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"nova-{uuid.uuid4().hex[:8]}"
    template = TEMPLATE.replace("user_data_format: RAW", "user_data_format: SOFTWARE_CONFIG")
    stack = cloud_engine.create(
        name, template, image=cloud_env.image, flavor=cloud_env.flavor, name=name
    )
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    assert "SOFTWARE_CONFIG is not supported yet" in view.status_reason, view.status_reason
    assert _gone(cloud_env, name)
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
