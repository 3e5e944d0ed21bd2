"""Types whose objects carry no creation tag are found again by their name (OS::Nova::KeyPair,
OS::Nova::ServerGroup, OS::Cinder::VolumeType): a create the cloud refused made nothing, and
the delete of that stack must then leave alone the object of the same name another made."""

from __future__ import annotations

import uuid

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine

pytestmark = pytest.mark.functional


def _named(type_name: str) -> str:
    """A template of one ``type_name`` resource named by the ``name`` parameter."""
    return f"""
heat_template_version: 2018-08-31
parameters:
  name: {{type: string}}
resources:
  it:
    type: {type_name}
    properties: {{name: {{get_param: name}}}}
"""


KEYPAIR = _named("OS::Nova::KeyPair")

GROUP = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
resources:
  group:
    type: OS::Nova::ServerGroup
    properties:
      name: {get_param: name}
      policies: [affinity]
      rules: {max_server_per_host: 2}
"""

VOLUME_TYPE = _named("OS::Cinder::VolumeType")


def _refused_then_deleted(engine: CloudEngine, template: str, name: str) -> str:
    """Create a stack the cloud refuses, then delete it; the create's reason."""
    stack = engine.create(name, template, name=name)
    view = engine.wait(stack)
    assert (view.action, view.status) == ("CREATE", "FAILED"), view.status_reason
    reason = view.status_reason
    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    return reason


def test_a_refused_key_pair_leaves_the_pair_of_its_name(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"refused-kp-{uuid.uuid4().hex[:6]}"
    theirs = conn.compute.create_keypair(name=name)
    try:
        reason = _refused_then_deleted(cloud_engine, KEYPAIR, name)
        assert "409" in reason or "already exists" in reason, reason
        assert conn.compute.get_keypair(name).public_key == theirs.public_key
    finally:
        conn.compute.delete_keypair(name, ignore_missing=True)


def test_a_refused_server_group_leaves_the_group_of_its_name(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"refused-sg-{uuid.uuid4().hex[:6]}"
    theirs = conn.compute.create_server_group(name=name, policy="anti-affinity")
    try:
        # Nova takes rules with the anti-affinity policy only: it refuses this create.
        reason = _refused_then_deleted(cloud_engine, GROUP, name)
        assert "400" in reason or "rules" in reason.lower(), reason
        assert conn.compute.get_server_group(theirs.id).name == name
    finally:
        conn.compute.delete_server_group(theirs.id, ignore_missing=True)


def test_a_refused_volume_type_leaves_the_type_of_its_name(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    name = f"refused-vt-{uuid.uuid4().hex[:6]}"
    theirs = admin.block_storage.create_type(name=name)
    try:
        reason = _refused_then_deleted(admin_engine, VOLUME_TYPE, name)
        assert "409" in reason or "exists" in reason, reason
        assert admin.block_storage.get_type(theirs.id).name == name
    finally:
        admin.block_storage.delete_type(theirs.id, ignore_missing=True)
