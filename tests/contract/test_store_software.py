"""The Store contract, part 2: software configs and deployments, metadata generations,
snapshots, credentials, the engine registry and stack leases. Runs on every backend."""

from __future__ import annotations

import datetime

import pytest

from tests.contract.conftest import FakeClock
from tests.contract.test_store import make_stack, raw_text
from thermik.errors import (
    Conflict,
    DuplicateName,
    GenerationConflict,
    InvalidInput,
    LeaseConflict,
    NotFound,
    StackNotFound,
)
from thermik.persistence.software_values import DeploymentChanges, NewSoftwareDeployment
from thermik.persistence.sql.store import SqlStore
from thermik.persistence.values import NewLease, UserCreds

CONFIG = {"config": "#!/bin/sh\necho hi", "inputs": [{"name": "x"}], "outputs": [], "options": {}}


def test_software_config_round_trip_and_tenancy(store: SqlStore) -> None:
    config = store.create_software_config("boot", "script", CONFIG, "t1")
    assert store.get_software_config(config.id) == config
    assert store.get_software_config(config.id, tenant="t1") == config
    with pytest.raises(NotFound):
        store.get_software_config(config.id, tenant="t2")
    assert store.list_software_configs("t2") == []


def test_software_configs_page(store: SqlStore, clock: FakeClock) -> None:
    configs = []
    for i in range(4):
        clock.advance(1)
        configs.append(store.create_software_config(f"c{i}", "script", CONFIG, "t1"))
    assert store.list_software_configs("t1", limit=2) == configs[:2]
    assert store.list_software_configs("t1", marker=configs[1].id) == configs[2:]
    assert store.list_software_configs(None) == configs


def test_config_in_use_cannot_be_deleted(store: SqlStore) -> None:
    config = store.create_software_config("boot", "script", CONFIG, "t1")
    deployment = store.create_software_deployment(NewSoftwareDeployment(config.id, "srv-1", "t1"))
    with pytest.raises(Conflict, match="used by a deployment"):
        store.delete_software_config(config.id)
    store.delete_software_deployment(deployment.id)
    store.delete_software_config(config.id)
    with pytest.raises(NotFound):
        store.delete_software_config(config.id)


def test_deployments_by_server_and_updates(store: SqlStore, clock: FakeClock) -> None:
    config = store.create_software_config("boot", "script", CONFIG, "t1")
    first = store.create_software_deployment(
        NewSoftwareDeployment(config.id, "srv-1", "t1", {"deploy_action": "CREATE"})
    )
    clock.advance(1)
    second = store.create_software_deployment(NewSoftwareDeployment(config.id, "srv-1", "t1"))
    store.create_software_deployment(NewSoftwareDeployment(config.id, "srv-2", "t2"))
    assert store.list_software_deployments(server_id="srv-1") == [first, second]
    assert [d.server_id for d in store.list_software_deployments(tenant="t2")] == ["srv-2"]
    clock.advance(1)
    changes = DeploymentChanges(
        status="COMPLETE", status_reason="Outputs received", output_values={"deploy_stdout": "ok"}
    )
    updated = store.update_software_deployment(first.id, changes)
    assert (updated.status, updated.output_values, updated.updated_at) == (
        "COMPLETE",
        {"deploy_stdout": "ok"},
        clock.now,
    )
    assert updated.input_values == {"deploy_action": "CREATE"}
    assert store.get_software_deployment(first.id, tenant="t1") == updated
    with pytest.raises(NotFound):
        store.get_software_deployment(first.id, tenant="t2")
    with pytest.raises(NotFound):
        store.update_software_deployment("nope", changes)
    with pytest.raises(NotFound, match="software config nope"):
        store.update_software_deployment(first.id, DeploymentChanges(config_id="nope"))
    with pytest.raises(NotFound, match="software config nope"):
        store.create_software_deployment(NewSoftwareDeployment("nope", "srv-1", "t1"))


def test_metadata_generation_compare_and_swap(store: SqlStore) -> None:
    assert store.get_metadata_generation("srv-1") == 0
    assert store.bump_metadata_generation("srv-1", 0) == 1
    assert store.bump_metadata_generation("srv-1", 1) == 2
    with pytest.raises(
        GenerationConflict, match="server srv-1: metadata generation is 2, expected 1"
    ):
        store.bump_metadata_generation("srv-1", 1)
    with pytest.raises(GenerationConflict, match="generation is 0, expected 3"):
        store.bump_metadata_generation("srv-2", 3)
    assert store.get_metadata_generation("srv-1") == 2


def test_snapshots(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store)
    snapshot = store.create_snapshot(stack.id, "t1", "before-upgrade")
    assert (snapshot.action, snapshot.status, snapshot.data) == ("CREATE", "IN_PROGRESS", None)
    clock.advance(1)
    done = store.update_snapshot(snapshot.id, status="COMPLETE", data={"resources": {"a": {}}})
    assert (done.status, done.data, done.updated_at) == (
        "COMPLETE",
        {"resources": {"a": {}}},
        clock.now,
    )
    assert store.list_snapshots(stack.id) == [done]
    assert store.get_snapshot(snapshot.id, tenant="t1") == done
    with pytest.raises(NotFound):
        store.get_snapshot(snapshot.id, tenant="t2")
    store.delete_snapshot(snapshot.id)
    with pytest.raises(NotFound):
        store.update_snapshot(snapshot.id, status="FAILED")
    with pytest.raises(StackNotFound):
        store.create_snapshot("nope", "t1", None)


def test_snapshot_secrets_are_encrypted_at_rest(store: SqlStore) -> None:
    stack = make_stack(store)
    snapshot = store.create_snapshot(stack.id, "t1", None)
    data = {
        "environment": {"parameters": {"pw": "snap-s3cret-pw", "size": 3}},
        "resources": {"r": {"resource_data": {"value": "r4ndom-value", "plain": "seen"}}},
    }
    secrets = [
        ("environment", "parameters", "pw"),
        ("environment", "parameter_defaults", "pw"),
        ("resources", "r", "resource_data", "value"),
    ]
    done = store.update_snapshot(snapshot.id, status="COMPLETE", data=data, secrets=secrets)
    stored = raw_text(store, "SELECT data FROM snapshot")
    assert "snap-s3cret-pw" not in stored
    assert "r4ndom-value" not in stored
    # With a key the whole document is sealed too.
    assert "seen" not in stored
    # Read back decrypted, with the paths of the secrets that were there.
    assert done.data == data
    assert done.secrets == (secrets[0], secrets[2])
    assert store.get_snapshot(snapshot.id) == done
    assert store.list_snapshots(stack.id) == [done]
    # A status change keeps the stored data as it is.
    failed = store.update_snapshot(snapshot.id, status="FAILED")
    assert (failed.data, failed.secrets) == (data, done.secrets)


def test_user_creds_are_encrypted_at_rest(store: SqlStore) -> None:
    creds = UserCreds(
        id=0,
        username="alice",
        password="pw-very-secret",
        tenant_id="p1",
        auth_url="http://keystone/v3",
        trust_id="trust-abc123",
    )
    creds_id = store.store_user_creds(creds)
    stored = raw_text(store, "SELECT password, trust_id FROM user_creds")
    assert "pw-very-secret" not in stored
    assert "trust-abc123" not in stored
    got = store.get_user_creds(creds_id)
    assert got == UserCreds(
        creds_id,
        "alice",
        "pw-very-secret",
        "trust-abc123",
        None,
        None,
        "p1",
        "http://keystone/v3",
        None,
    )
    store.delete_user_creds(creds_id)
    with pytest.raises(NotFound):
        store.get_user_creds(creds_id)


def test_the_credentials_of_a_deleted_stack_can_be_deleted(store: SqlStore) -> None:
    creds_id = store.store_user_creds(UserCreds(0, username="loopback"))
    stack = make_stack(store, user_creds_id=creds_id)
    store.delete_user_creds(creds_id)
    assert store.get_stack(stack.id).user_creds_id is None
    with pytest.raises(NotFound):
        store.get_user_creds(creds_id)


def test_engine_registry_heartbeats(store: SqlStore, clock: FakeClock) -> None:
    record = store.register_engine("e1", "host-a", "thermik-engine", "engine", 10)
    assert record.last_heartbeat == clock.now
    clock.advance(10)
    store.heartbeat("e1")
    assert store.list_engines()[0].last_heartbeat == clock.now
    store.register_engine("e1", "host-b", "thermik-engine", "engine", 10)
    assert [e.host for e in store.list_engines()] == ["host-b"]
    store.deregister_engine("e1")
    with pytest.raises(NotFound, match="engine e1 is not registered"):
        store.heartbeat("e1")


def test_lease_acquire_renew_release(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store)
    lease = store.acquire_lease(stack.id, "e1", 60)
    assert (lease.engine_id, lease.epoch) == ("e1", 1)
    with pytest.raises(LeaseConflict, match="held by engine e1"):
        store.acquire_lease(stack.id, "e2", 60)
    clock.advance(30)
    renewed = store.renew_lease(stack.id, "e1", 60)
    assert renewed.expires_at == clock.now + datetime.timedelta(seconds=60)
    assert store.get_lease(stack.id) == renewed
    with pytest.raises(LeaseConflict):
        store.renew_lease(stack.id, "e2", 60)
    store.release_lease(stack.id, "e1")
    assert store.get_lease(stack.id) is None
    with pytest.raises(LeaseConflict, match="holds no lease"):
        store.renew_lease(stack.id, "e1", 60)
    again = store.acquire_lease(stack.id, "e2", 60)
    assert (again.engine_id, again.epoch) == ("e2", 2)


def test_expired_lease_is_taken_over_not_acquired(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store)
    store.acquire_lease(stack.id, "e1", 60)
    with pytest.raises(LeaseConflict):
        store.take_over_lease(stack.id, "e2", 60)
    assert store.list_expired_leases() == []
    clock.advance(61)
    assert [lease.engine_id for lease in store.list_expired_leases()] == ["e1"]
    with pytest.raises(LeaseConflict, match="expired but still recorded"):
        store.acquire_lease(stack.id, "e2", 60)
    taken = store.take_over_lease(stack.id, "e2", 60)
    assert (taken.engine_id, taken.epoch, taken.acquired_at) == ("e2", 2, clock.now)
    with pytest.raises(LeaseConflict):
        store.renew_lease(stack.id, "e1", 60)


def test_lease_bad_input(store: SqlStore) -> None:
    with pytest.raises(StackNotFound):
        store.acquire_lease("nope", "e1", 60)
    stack = make_stack(store)
    with pytest.raises(InvalidInput, match="positive"):
        store.acquire_lease(stack.id, "e1", 0)


def test_a_stack_stored_started_comes_with_its_lease(store: SqlStore, clock: FakeClock) -> None:
    record = {"operation": "CREATE", "previous_template_id": None}
    started = {"action": "CREATE", "status": "IN_PROGRESS", "current_traversal": "t-1"}
    lease = NewLease("e1", 60)
    stack = make_stack(store, current_deps=record, lease=lease, **started)
    assert (stack.action, stack.status, stack.current_traversal) == (
        "CREATE",
        "IN_PROGRESS",
        "t-1",
    )
    assert (stack.current_deps, stack.traversal_started_at) == (record, clock.now)
    held = store.get_lease(stack.id)
    assert held is not None
    assert (held.engine_id, held.epoch, held.expires_at) == (
        "e1",
        1,
        clock.now + datetime.timedelta(seconds=60),
    )
    # A refused insert stores neither the row nor a lease.
    with pytest.raises(DuplicateName):
        make_stack(store, id="other", lease=lease)
    with pytest.raises(StackNotFound):
        store.get_stack("other")
    assert store.get_lease("other") is None
    clock.advance(61)
    assert [lease.stack_id for lease in store.list_expired_leases()] == [stack.id]
