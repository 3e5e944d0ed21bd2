"""The client layer against the real loopback cloud: what Nova and Neutron answer comes out as
Thermik's errors with their own messages, quotas are told apart from conflicts, one connection
serves every thread of a credential, and every request is counted by service."""

from __future__ import annotations

import concurrent.futures
import uuid
from collections.abc import Iterator

import pytest
import tenacity
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv
from thermik.clients import ClientPool, Credential
from thermik.conf.settings import ClientSettings
from thermik.errors import CloudConflict, CloudFault, CloudGone, CloudQuotaExceeded

pytestmark = pytest.mark.functional


@pytest.fixture
def pool() -> Iterator[ClientPool]:
    clients = ClientPool(ClientSettings(retry_limit=2))
    yield clients
    clients.close()


@pytest.fixture
def demo(cloud_env: CloudEnv) -> Credential:
    return Credential.from_cloud(cloud_env.cloud, str(cloud_env.config_file))


@pytest.fixture
def quota_user(cloud_env: CloudEnv) -> Iterator[Credential]:
    """A member of a project of its own, allowed no networks and no servers."""
    admin = cloud_env.connect(admin=True)
    name = f"quota-{uuid.uuid4().hex[:8]}"
    password = uuid.uuid4().hex
    project = admin.identity.create_project(name=name, domain_id="default")
    user = admin.identity.create_user(
        name=name, password=password, domain_id="default", default_project_id=project.id
    )
    admin.identity.assign_project_role_to_user(project, user, admin.identity.find_role("member"))
    admin.set_network_quotas(project.id, networks=0)
    admin.set_compute_quotas(project.id, instances=0)
    try:
        yield Credential.from_auth(
            auth_url=cloud_env.auth_url,
            username=name,
            password=password,
            project_name=name,
            user_domain_name="Default",
            project_domain_name="Default",
        )
    finally:
        admin.identity.delete_user(user)
        admin.identity.delete_project(project)


def test_a_missing_server_is_gone_with_novas_message(pool: ClientPool, demo: Credential) -> None:
    missing = str(uuid.uuid4())
    with pytest.raises(CloudGone) as caught:
        pool.client(demo, "nova").call(lambda c: c.compute.get_server(missing))
    error = caught.value
    assert (error.status, error.service) == (404, "compute")
    assert missing in error.message
    assert "http" not in error.message
    assert str(error) == error.message


def test_an_exceeded_quota_is_quota_on_neutron_and_nova(
    pool: ClientPool, quota_user: Credential, cloud_env: CloudEnv
) -> None:
    with pytest.raises(CloudQuotaExceeded) as neutron:
        pool.client(quota_user, "neutron").call(
            lambda c: c.network.create_network(name="over"), idempotent=False
        )
    assert (neutron.value.status, neutron.value.service) == (409, "network")
    assert "Quota exceeded" in neutron.value.message

    def boot(c: Connection) -> object:
        image = c.image.find_image(cloud_env.image, ignore_missing=False)
        flavor = c.compute.find_flavor(cloud_env.flavor, ignore_missing=False)
        return c.compute.create_server(
            name="over", image_id=image.id, flavor_id=flavor.id, networks="none"
        )

    with pytest.raises(CloudQuotaExceeded) as nova:
        pool.client(quota_user, "nova").call(boot, idempotent=False)
    assert (nova.value.status, nova.value.service) == (403, "compute")
    assert "Quota exceeded for instances" in nova.value.message


def test_an_address_in_use_is_a_conflict_retried_then_raised(
    pool: ClientPool, demo: Credential
) -> None:
    neutron = pool.client(demo, "neutron")
    conn = neutron.connection
    net = conn.network.create_network(name=f"conflict-{uuid.uuid4().hex[:8]}")
    try:
        subnet = conn.network.create_subnet(network_id=net.id, cidr="10.98.0.0/24", ip_version=4)
        fixed = [{"subnet_id": subnet.id, "ip_address": "10.98.0.10"}]
        conn.network.create_port(network_id=net.id, fixed_ips=fixed)
        before = pool.counter.snapshot().get(("network", "POST"), 0)
        neutron.backoff = tenacity.wait_none()
        with pytest.raises(CloudConflict) as caught:
            neutron.call(lambda c: c.network.create_port(network_id=net.id, fixed_ips=fixed))
        assert caught.value.status == 409
        assert "10.98.0.10" in caught.value.message
        # One try and two retries (retry_limit=2), each one request.
        assert pool.counter.snapshot()[("network", "POST")] - before == 3
    finally:
        for port in conn.network.ports(network_id=net.id):
            conn.network.delete_port(port)
        conn.network.delete_network(net)


def test_one_connection_per_credential_shared_by_threads(
    pool: ClientPool, demo: Credential, cloud_env: CloudEnv
) -> None:
    def flavors(_: int) -> tuple[int, list[str]]:
        nova = pool.client(demo, "nova")
        return id(nova.connection), nova.call(lambda c: [f.name for f in c.compute.flavors()])

    with concurrent.futures.ThreadPoolExecutor(4) as executor:
        results = list(executor.map(flavors, range(8)))
    assert len({connection for connection, _ in results}) == 1
    assert all(cloud_env.flavor in names for _, names in results)
    again = Credential.from_cloud(cloud_env.cloud, str(cloud_env.config_file))
    assert pool.connection(again) is pool.connection(demo)
    admin = Credential.from_cloud(cloud_env.admin_cloud, str(cloud_env.config_file))
    assert pool.connection(admin) is not pool.connection(demo)


def test_requests_are_counted_by_service_and_method(pool: ClientPool, demo: Credential) -> None:
    pool.client(demo, "nova").call(lambda c: list(c.compute.flavors()))
    pool.client(demo, "glance").call(lambda c: list(c.image.images()))
    counts = pool.counter.snapshot()
    assert counts[("identity", "POST")] == 1  # the one token, shared by both clients
    assert counts[("compute", "GET")] >= 1
    assert counts[("image", "GET")] >= 1
    assert pool.counter.total() == sum(counts.values())


def test_a_region_the_cloud_lacks_is_a_fault_naming_neither_url_nor_host(
    demo: Credential, cloud_env: CloudEnv
) -> None:
    pool = ClientPool(ClientSettings(region_name="Nowhere", retry_limit=0))
    explicit = Credential.from_auth(
        auth_url=cloud_env.auth_url,
        username="demo",
        password=str(cloud_env.connect().auth["password"]),
        project_name="demo",
        user_domain_name="Default",
        project_domain_name="Default",
    )
    try:
        # The clouds.yaml lists the cloud's regions: the connection is refused up front.
        with pytest.raises(CloudFault) as listed:
            pool.client(demo, "nova").call(lambda c: list(c.compute.flavors()))
        assert "Nowhere" in listed.value.message
        # Without a list, the catalog has no compute endpoint in that region.
        with pytest.raises(CloudFault) as unlisted:
            pool.client(explicit, "nova").call(lambda c: list(c.compute.flavors()))
        assert "compute service in Nowhere region not found" in unlisted.value.message
        for error in (listed.value, unlisted.value):
            assert "127.0.0.1" not in error.message
    finally:
        pool.close()
