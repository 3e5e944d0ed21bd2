"""The client layer under faults, on the real cloud: a Neutron answering 503 for a while is
waited for and the create goes on (one network made, not two); a Neutron that stays down fails
the resource at the stack's timeout with the cloud's answer; an exceeded Nova quota fails the
resource with Nova's message. Neutron is never stopped (the cloud is shared): the engine
reaches it through a proxy that fails on purpose (tests/functional/cloud/faults.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CTX, CloudEngine
from tests.functional.cloud.faults import FaultyProxy, clouds_yaml_via
from thermik.api.boundary import StackRequest
from thermik.template.loader import load_document

pytestmark = pytest.mark.functional

NET = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
"""


@pytest.fixture
def neutron_proxy(cloud_env: CloudEnv) -> Iterator[FaultyProxy]:
    proxy = FaultyProxy(str(cloud_env.connect().endpoint_for("network")))
    try:
        yield proxy
    finally:
        proxy.close()


@pytest.fixture
def proxied_engine(
    cloud_env: CloudEnv, neutron_proxy: FaultyProxy, tmp_path: Path
) -> Iterator[CloudEngine]:
    config = clouds_yaml_via(
        cloud_env.config_file, cloud_env.cloud, "network", neutron_proxy.url,
        tmp_path / "clouds.yaml",
    )  # fmt: skip
    engine = CloudEngine(tmp_path / "state", cloud_env, config_file=config)
    try:
        yield engine
    finally:
        engine.close()


def test_a_neutron_answering_503_for_a_while_is_waited_for(
    proxied_engine: CloudEngine, neutron_proxy: FaultyProxy, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"glance-fault-{uuid.uuid4().hex[:6]}"
    # More failed calls than the client's own retries (retry_limit 2: three tries) absorb.
    neutron_proxy.fail_first = 5
    stack = proxied_engine.create(name, NET, name=name)
    try:
        view = proxied_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        assert neutron_proxy.failed == 5
        assert len(list(conn.network.networks(name=name))) == 1, "made once"
    finally:
        view = proxied_engine.delete(stack)
    assert view.status == "COMPLETE", view.status_reason
    assert not list(conn.network.networks(name=name))


def test_a_create_whose_answer_never_came_is_found_by_its_tag_not_made_twice(
    cloud_env: CloudEnv, neutron_proxy: FaultyProxy, tmp_path: Path
) -> None:
    conn = cloud_env.connect()
    name = f"late-create-{uuid.uuid4().hex[:6]}"
    # Neutron makes the network 6 s after the request, when the engine stopped waiting for
    # the answer 4 s before: its first look-up by the tag finds nothing yet.
    neutron_proxy.hold_posts, neutron_proxy.hold_for = 1, 6.0
    config = clouds_yaml_via(
        cloud_env.config_file, cloud_env.cloud, "network", neutron_proxy.url,
        tmp_path / "clouds.yaml",
    )  # fmt: skip
    engine = CloudEngine(tmp_path / "state", cloud_env, config_file=config, client_timeout=2)
    try:
        stack = engine.create(name, NET, name=name)
        try:
            view = engine.wait(stack)
            assert view.status == "COMPLETE", view.status_reason
            assert neutron_proxy.held == 1
            assert len(list(conn.network.networks(name=name))) == 1, "made once"
        finally:
            view = engine.delete(stack)
        assert view.status == "COMPLETE", view.status_reason
    finally:
        engine.close()
        for net in conn.network.networks(name=name):
            conn.network.delete_network(net)
    assert not list(conn.network.networks(name=name))


def test_a_neutron_that_stays_down_fails_the_create_at_the_stacks_timeout(
    proxied_engine: CloudEngine, neutron_proxy: FaultyProxy, cloud_env: CloudEnv
) -> None:
    name = f"glance-down-{uuid.uuid4().hex[:6]}"
    neutron_proxy.down = True
    request = StackRequest(
        name=name, template=load_document(NET), parameters={"name": name}, timeout_mins=1
    )
    stack = proxied_engine.service.create_stack(CTX, request)
    view = proxied_engine.wait(stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    net = proxied_engine.resource(stack, "net")
    assert "Timed out" in net.status_reason
    assert "waiting for the cloud: ServiceUnavailable" in net.status_reason
    assert "Service Unavailable" in net.status_reason
    assert "127.0.0.1" not in net.status_reason
    assert neutron_proxy.failed > 3, "retried until the timeout"
    assert not list(cloud_env.connect().network.networks(name=name))
    neutron_proxy.recover()
    assert proxied_engine.delete(stack).status == "COMPLETE"


@pytest.fixture
def no_server_groups(cloud_env: CloudEnv, tmp_path: Path) -> Iterator[Path]:
    """A clouds.yaml whose demo cloud is a member of a project of its own that may have no
    server groups."""
    admin = cloud_env.connect(admin=True)
    name = f"glance-quota-{uuid.uuid4().hex[:6]}"
    password = uuid.uuid4().hex
    identity = admin.identity
    project = identity.create_project(name=name, domain_id="default")  # type: ignore[union-attr]
    user = identity.create_user(
        name=name, password=password, domain_id="default", default_project_id=project.id
    )
    identity.assign_project_role_to_user(project, user, identity.find_role("member"))  # type: ignore[union-attr,arg-type]
    admin.set_compute_quotas(project.id, server_groups=0)
    document = yaml.safe_load(cloud_env.config_file.read_text())
    auth = document["clouds"][cloud_env.cloud]["auth"]
    auth.update(username=name, password=password, project_name=name)
    config = tmp_path / "clouds.yaml"
    config.write_text(yaml.safe_dump(document))
    try:
        yield config
    finally:
        identity.delete_user(user)  # type: ignore[arg-type]
        identity.delete_project(project)  # type: ignore[union-attr]


def test_an_exceeded_nova_quota_fails_with_novas_message(
    cloud_env: CloudEnv, no_server_groups: Path, tmp_path: Path
) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  group: {type: OS::Nova::ServerGroup}
"""
    engine = CloudEngine(tmp_path / "quota", cloud_env, config_file=no_server_groups)
    try:
        stack = engine.create(f"glance-quota-{uuid.uuid4().hex[:6]}", template)
        view = engine.wait(stack)
        assert (view.action, view.status) == ("CREATE", "FAILED")
        reason = engine.resource(stack, "group").status_reason
        assert reason.startswith("OverQuota: "), reason
        assert "Quota exceeded" in reason
        assert "server group" in reason.lower()
        assert engine.delete(stack).status == "COMPLETE"
    finally:
        engine.close()
