"""OS::Nova::Flavor (as admin), OS::Nova::KeyPair and OS::Nova::ServerGroup on the real Nova:
create, attributes, update in place or by replacement, check, and delete leaving nothing."""

from __future__ import annotations

import logging
import sqlite3
import uuid

import pytest
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine

pytestmark = pytest.mark.functional

FLAVOR = """
heat_template_version: 2018-08-31
parameters:
  specs: {type: json, default: {"hw:cpu_policy": "shared"}}
  tenants: {type: comma_delimited_list, default: [demo]}
resources:
  public:
    type: OS::Nova::Flavor
    properties: {ram: 64, vcpus: 1, disk: 1, extra_specs: {get_param: specs}}
  private:
    type: OS::Nova::Flavor
    properties: {ram: 32, vcpus: 1, is_public: false, tenants: {get_param: tenants}}
outputs:
  public: {value: {get_resource: public}}
  private: {value: {get_resource: private}}
  specs: {value: {get_attr: [public, extra_specs]}}
  is_public: {value: {get_attr: [private, is_public]}}
"""


def test_flavors_are_made_by_admin_with_specs_and_access_updated_and_deleted(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    stack = admin_engine.create(f"glance-flv-{uuid.uuid4().hex[:6]}", FLAVOR)
    view = admin_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = admin_engine.outputs(stack)
    assert out["specs"] == {"hw:cpu_policy": "shared"}
    assert out["is_public"] is False
    public = admin.compute.get_flavor(out["public"])
    assert (public.ram, public.vcpus, public.disk) == (64, 1, 1)
    assert public.description.startswith("thermik-"), "the creation tag"
    demo = admin.identity.find_project("demo", ignore_missing=False)
    access = [a["tenant_id"] for a in admin.compute.get_flavor_access(out["private"])]
    assert access == [demo.id]

    admin_engine.update(stack, specs={"hw:mem_page_size": "small"}, tenants="admin")
    view = admin_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert admin_engine.outputs(stack)["public"] == out["public"], "updated in place"
    specs = admin.compute.fetch_flavor_extra_specs(out["public"]).extra_specs
    assert specs == {"hw:mem_page_size": "small"}
    project = admin.identity.find_project("admin", ignore_missing=False)
    access = [a["tenant_id"] for a in admin.compute.get_flavor_access(out["private"])]
    assert access == [project.id]

    assert admin_engine.check(stack).status == "COMPLETE"
    view = admin_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    ids = {f.id for f in admin.compute.flavors(is_public=None)}
    assert not {out["public"], out["private"]} & ids


def test_a_flavor_as_demo_fails_with_novas_refusal(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  flavor: {type: OS::Nova::Flavor, properties: {ram: 64, vcpus: 1}}
"""
    stack = cloud_engine.create(f"glance-flv-{uuid.uuid4().hex[:6]}", template)
    view = cloud_engine.wait(stack)
    assert view.status == "FAILED"
    assert "flavor" in view.status_reason.lower()
    assert "Policy doesn't allow" in view.status_reason or "403" in view.status_reason
    assert "http" not in view.status_reason
    assert cloud_engine.delete(stack).status == "COMPLETE"


KEYPAIRS = """
heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  public_key: {type: string}
resources:
  given:
    type: OS::Nova::KeyPair
    properties:
      name: {list_join: ["-", [{get_param: prefix}, given]]}
      public_key: {get_param: public_key}
  generated:
    type: OS::Nova::KeyPair
    properties:
      name: {list_join: ["-", [{get_param: prefix}, generated]]}
      save_private_key: true
  group:
    type: OS::Nova::ServerGroup
    properties: {policies: [soft-anti-affinity]}
outputs:
  given: {value: {get_resource: given}}
  given_public: {value: {get_attr: [given, public_key]}}
  generated_public: {value: {get_attr: [generated, public_key]}}
  private: {value: {get_attr: [generated, private_key]}}
  given_private: {value: {get_attr: [given, private_key]}}
  group: {value: {get_resource: group}}
"""


def test_keypairs_given_and_generated_and_a_server_group(
    cloud_engine: CloudEngine, cloud_env: CloudEnv, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="keystoneauth")
    conn = cloud_env.connect()
    prefix = f"glance-kp-{uuid.uuid4().hex[:6]}"
    try:
        _keypairs_and_group(cloud_engine, conn, prefix, caplog)
    finally:
        for key in [k for k in conn.compute.keypairs() if k.name.startswith(prefix)]:
            conn.compute.delete_keypair(key)
        for group in [g for g in conn.compute.server_groups() if g.name.startswith(prefix)]:
            conn.compute.delete_server_group(group)


def _keypairs_and_group(
    cloud_engine: CloudEngine, conn: Connection, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    seed = conn.compute.create_keypair(name=f"{prefix}-seed")
    conn.compute.delete_keypair(seed)
    stack = cloud_engine.create(prefix, KEYPAIRS, prefix=prefix, public_key=seed.public_key)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = cloud_engine.outputs(stack)
    assert out["given"] == f"{prefix}-given"
    assert out["given_public"] == seed.public_key
    assert out["given_private"] == ""
    private = out["private"]
    assert private.startswith("-----BEGIN")
    assert "PRIVATE KEY" in private
    assert conn.compute.get_keypair(f"{prefix}-generated").public_key == out["generated_public"]
    group = conn.compute.get_server_group(out["group"])
    assert group.policy == "soft-anti-affinity"
    assert group.name.startswith(f"{prefix}-group-")

    _assert_never_in_clear(cloud_engine, private)
    assert "RESP" in caplog.text, "keystoneauth logged the calls"
    assert private.splitlines()[1] not in caplog.text, "but not the bodies"

    # A new public key under the same name: the pair is made again in place.
    other = conn.compute.create_keypair(name=f"{prefix}-other")
    conn.compute.delete_keypair(other)
    cloud_engine.update(stack, prefix=prefix, public_key=other.public_key)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert conn.compute.get_keypair(f"{prefix}-given").public_key == other.public_key
    assert cloud_engine.outputs(stack)["private"] == private, "the generated pair stays"

    assert cloud_engine.check(stack).status == "COMPLETE"
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not [k for k in conn.compute.keypairs() if k.name.startswith(prefix)]
    assert out["group"] not in {g.id for g in conn.compute.server_groups()}


def _assert_never_in_clear(engine: CloudEngine, secret: str) -> None:
    """No cell of the engine's database holds the private key (a line of it) in clear."""
    needle = secret.splitlines()[1]
    conn = sqlite3.connect(engine.settings.state_dir / "thermik.sqlite")
    try:
        tables = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for cell in row:
                    text = cell.decode(errors="replace") if isinstance(cell, bytes) else str(cell)
                    assert needle not in text, f"the private key in clear in {table}"
    finally:
        conn.close()
