"""The Cinder types Cinder keeps to administrators, on the real Cinder: OS::Cinder::VolumeType
(extra specs, project access, updates in place), a volume retyped between two of them,
OS::Cinder::EncryptedVolumeType, a volume whose type no backend takes (Cinder's own reason in
the failure), and OS::Cinder::Quota on a project of the test's own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.leftovers import leftovers
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TYPES = """
heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  specs: {type: json, default: {"thermik:tier": "gold"}}
  projects: {type: comma_delimited_list, default: [demo]}
  which: {type: string, default: gold}
  cipher: {type: string, default: aes-xts-plain64}
  encrypted: {type: string, default: secret}
resources:
  gold:
    type: OS::Cinder::VolumeType
    properties:
      name: {list_join: ["-", [{get_param: prefix}, gold]]}
      description: the gold tier
  private:
    type: OS::Cinder::VolumeType
    properties:
      name: {list_join: ["-", [{get_param: prefix}, private]]}
      is_public: false
      projects: {get_param: projects}
  secret:
    type: OS::Cinder::VolumeType
    properties:
      name: {list_join: ["-", [{get_param: prefix}, secret]]}
      # Cinder changes the extra specs only of a type no volume has.
      metadata: {get_param: specs}
  spare:
    type: OS::Cinder::VolumeType
    properties:
      name: {list_join: ["-", [{get_param: prefix}, spare]]}
  encryption:
    type: OS::Cinder::EncryptedVolumeType
    properties:
      volume_type: {get_resource: {get_param: encrypted}}
      provider: luks
      cipher: {get_param: cipher}
      key_size: 256
  volume:
    type: OS::Cinder::Volume
    properties:
      size: 1
      volume_type: {get_resource: {get_param: which}}
outputs:
  gold: {value: {get_resource: gold}}
  private: {value: {get_resource: private}}
  secret: {value: {get_resource: secret}}
  spare: {value: {get_resource: spare}}
  encryption: {value: {get_resource: encryption}}
  volume: {value: {get_resource: volume}}
  volume_type: {value: {get_attr: [volume, volume_type]}}
"""


def test_volume_types_encryption_and_a_retype(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    prefix = f"vt-{uuid.uuid4().hex[:6]}"
    stack = admin_engine.create(prefix, TYPES, prefix=prefix)
    view = admin_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = admin_engine.outputs(stack)
    gold = admin.block_storage.get_type(out["gold"])
    assert (gold.name, gold.description) == (f"{prefix}-gold", "the gold tier")
    assert admin.block_storage.get_type(out["secret"]).extra_specs == {"thermik:tier": "gold"}
    demo = admin.identity.find_project("demo", ignore_missing=False)
    access = [a["project_id"] for a in admin.block_storage.get_type_access(out["private"])]
    assert access == [demo.id]
    encryption = admin.block_storage.get_type_encryption(out["secret"])
    assert (encryption.provider, encryption.cipher, encryption.key_size) == (
        "luks",
        "aes-xts-plain64",
        256,
    )
    assert out["encryption"] == out["secret"]
    assert out["volume_type"] == f"{prefix}-gold"

    admin_engine.update(
        stack,
        prefix=prefix,
        specs={"thermik:tier": "silver", "thermik:n": "2"},
        projects="admin",
        which="private",
        cipher="aes-cbc-essiv",
    )
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    after = admin_engine.outputs(stack)
    assert after["volume"] == out["volume"], "retyped in place"
    volume = admin.block_storage.get_volume(out["volume"])
    assert volume.volume_type == f"{prefix}-private"
    assert after["volume_type"] == f"{prefix}-private"
    specs = admin.block_storage.get_type(out["secret"]).extra_specs
    assert specs == {"thermik:tier": "silver", "thermik:n": "2"}
    project = admin.identity.find_project("admin", ignore_missing=False)
    access = [a["project_id"] for a in admin.block_storage.get_type_access(out["private"])]
    assert access == [project.id]
    assert admin.block_storage.get_type_encryption(out["secret"]).cipher == "aes-cbc-essiv"

    # The encryption of another type: a replacement, and the first type is plain again.
    admin_engine.update(
        stack,
        prefix=prefix,
        specs={"thermik:tier": "silver", "thermik:n": "2"},
        projects="admin",
        which="private",
        cipher="aes-cbc-essiv",
        encrypted="spare",
    )
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin_engine.outputs(stack)["encryption"] == out["spare"]
    assert admin.block_storage.get_type_encryption(out["spare"]).provider == "luks"
    assert not admin.block_storage.get_type_encryption(out["secret"]).encryption_id

    assert admin_engine.check(stack).status == "COMPLETE"
    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    names = {t.name for t in admin.block_storage.types()}
    assert not {f"{prefix}-{n}" for n in ("gold", "private", "secret", "spare")} & names
    assert leftovers(admin, stack.id) == []


def test_a_volume_no_backend_takes_fails_with_cinders_reason(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    template = """
heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
resources:
  nowhere:
    type: OS::Cinder::VolumeType
    properties:
      name: {list_join: ["-", [{get_param: prefix}, nowhere]]}
      metadata: {volume_backend_name: no-such-backend}
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1, volume_type: {get_resource: nowhere}}
"""
    admin = cloud_env.connect(admin=True)
    prefix = f"vt-{uuid.uuid4().hex[:6]}"
    stack = admin_engine.create(prefix, template, prefix=prefix)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    assert "Went to status error due to" in view.status_reason, view.status_reason
    assert "schedule allocate volume" in view.status_reason, "Cinder's user message"
    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert leftovers(admin, stack.id) == []
    assert f"{prefix}-nowhere" not in {t.name for t in admin.block_storage.types()}


@pytest.fixture
def projects(cloud_env: CloudEnv) -> Iterator[list[str]]:
    """Two projects of the test's own, so that its quotas touch no other test."""
    admin = cloud_env.connect(admin=True)
    made = [
        admin.identity.create_project(name=f"quota-{uuid.uuid4().hex[:8]}", domain_id="default")
        for _ in range(2)
    ]
    try:
        yield [str(p.name) for p in made]
    finally:
        for project in made:
            admin.identity.delete_project(project.id)


QUOTA = """
heat_template_version: 2018-08-31
parameters:
  project: {type: string}
  volumes: {type: number, default: 5}
resources:
  quota:
    type: OS::Cinder::Quota
    properties:
      project: {get_param: project}
      volumes: {get_param: volumes}
      gigabytes: 50
      snapshots: -1
"""


def test_a_projects_quotas_are_set_updated_replaced_checked_and_reverted(
    admin_engine: CloudEngine, cloud_env: CloudEnv, projects: list[str]
) -> None:
    admin = cloud_env.connect(admin=True)
    first, second = (admin.identity.find_project(p, ignore_missing=False).id for p in projects)
    defaults = admin.block_storage.get_quota_set(first)
    stack = admin_engine.create(f"quota-{uuid.uuid4().hex[:6]}", QUOTA, project=projects[0])
    view = admin_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    quotas = admin.block_storage.get_quota_set(first)
    assert (quotas.volumes, quotas.gigabytes, quotas.snapshots) == (5, 50, -1)

    admin_engine.update(stack, project=projects[0], volumes=7)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin.block_storage.get_quota_set(first).volumes == 7

    # Another project: a replacement sets its quotas, and the first project's are reverted.
    admin_engine.update(stack, project=projects[1], volumes=7)
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin.block_storage.get_quota_set(second).volumes == 7
    assert admin.block_storage.get_quota_set(first).volumes == defaults.volumes

    assert admin_engine.check(stack).status == "COMPLETE"
    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    reverted = admin.block_storage.get_quota_set(second)
    assert (reverted.volumes, reverted.gigabytes) == (defaults.volumes, defaults.gigabytes)


def test_a_quota_without_quotas_and_a_public_type_with_projects_are_refused(
    admin_engine: CloudEngine,
) -> None:
    quota = """
heat_template_version: 2018-08-31
resources:
  quota: {type: OS::Cinder::Quota, properties: {project: demo}}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"quota-{uuid.uuid4().hex[:6]}", quota)
    assert "At least one of the following properties must be specified" in str(raised.value)
    public = """
heat_template_version: 2018-08-31
resources:
  vtype: {type: OS::Cinder::VolumeType, properties: {name: x, projects: [demo]}}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"vt-{uuid.uuid4().hex[:6]}", public)
    assert "resources.vtype.properties.projects" in str(raised.value)
