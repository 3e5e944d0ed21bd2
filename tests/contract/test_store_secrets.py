"""Secrets at rest: with a key, no document computed from template values is stored in clear.

Each test writes a value through the Store, reads every row of every table raw (SQLAlchemy
Core, bypassing the Store) to check the plaintext is nowhere, and reads the value back through
the Store. Rows written in clear by older versions still read back as they were.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import insert, select, update

from tests.contract.conftest import START
from tests.contract.test_store import make_stack, new_resource
from thermik.errors import SecretKeyError
from thermik.persistence import models
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.resource_values import (
    DataWrite,
    EventQuery,
    JoinArrival,
    NewEvent,
    ResourceChanges,
)
from thermik.persistence.software_values import DeploymentChanges, NewSoftwareDeployment
from thermik.persistence.sql.store import SqlStore
from thermik.persistence.sql.tables import (
    EVENT,
    JOIN_ARRIVAL,
    PROPERTIES_DATA,
    RESOURCE,
    RESOURCE_DATA,
    SOFTWARE_CONFIG,
    SOFTWARE_DEPLOYMENT,
    STACK,
)
from thermik.persistence.values import StackChanges

SECRET = "hunter2-s3cret-value"
DONE = ResourceChanges(action="CREATE", status="COMPLETE", physical_resource_id="p1")


def stored_text(store: SqlStore) -> str:
    """Every value of every row of every table, as text."""
    tables = models.Base.metadata.sorted_tables

    def work(conn: Any) -> str:
        return " ".join(
            str(value)
            for table in tables
            for row in conn.execute(select(table)).all()
            for value in row
        )

    return store._db.read(work)


def test_resource_documents_are_sealed(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    event = NewEvent(
        stack.id, "server", "CREATE", "IN_PROGRESS", resource_properties={"pw": SECRET}
    )
    key = store.lock_resource(resource.id, "e1", 0, DONE, event=event, properties={"pw": SECRET})
    arrival = JoinArrival("T1", "1:update", "1:update", {"attrs": [["pw", SECRET]]})
    store.unlock_resource(resource.id, "e1", key, attributes={"pw": SECRET}, arrival=arrival)
    other = store.create_resource(new_resource(stack, "other"))
    store.record_action(
        other.id,
        0,
        DONE,
        events=[event],
        data=[DataWrite("output", SECRET)],
        properties={"pw": SECRET},
        attributes={"pw": SECRET},
        arrival=JoinArrival("T1", "2:update", "2:update", {"pw": SECRET}),
    )
    store.append_arrivals(stack.id, [JoinArrival("T1", "3:update", "3:update", {"pw": SECRET})])
    store.set_resource_data(resource.id, "plain", SECRET)

    assert SECRET not in stored_text(store)
    for row in (resource, other):
        assert store.get_resource_properties(row.id) == {"pw": SECRET}
        assert store.get_resource_attributes(row.id) == {"pw": SECRET}
    assert store.list_resource_properties(stack.id) == {
        resource.id: {"pw": SECRET},
        other.id: {"pw": SECRET},
    }
    events = store.list_events(EventQuery(stack.id))
    assert [e.resource_properties for e in events] == [{"pw": SECRET}] * 2
    assert [a.payload for a in store.list_traversal_arrivals("T1")] == [
        {"attrs": [["pw", SECRET]]},
        {"pw": SECRET},
        {"pw": SECRET},
    ]
    assert store.get_resource_data(resource.id) == {"plain": SECRET}
    assert store.get_resource_data(other.id) == {"output": SECRET}
    # Only keys a plugin redacts are secrets (masked in snapshots); the rest are just sealed.
    assert store.redacted_resource_data_keys(resource.id) == frozenset()


def test_software_documents_are_sealed(store: SqlStore) -> None:
    config = store.create_software_config(
        "c", "script", {"config": f"echo {SECRET}", "inputs": []}, "t1"
    )
    deployment = store.create_software_deployment(
        NewSoftwareDeployment(config.id, "srv", "t1", input_values={"pw": SECRET})
    )
    store.update_software_deployment(
        deployment.id,
        DeploymentChanges(input_values={"pw": SECRET, "n": 1}, output_values={"out": SECRET}),
    )
    assert SECRET not in stored_text(store)
    assert store.get_software_config(config.id).config == {
        "config": f"echo {SECRET}",
        "inputs": [],
    }
    [listed] = store.list_software_configs("t1")
    assert listed.config["config"] == f"echo {SECRET}"
    got = store.get_software_deployment(deployment.id)
    assert (got.input_values, got.output_values) == ({"pw": SECRET, "n": 1}, {"out": SECRET})
    [listed_deployment] = store.list_software_deployments(server_id="srv")
    assert listed_deployment.input_values == {"pw": SECRET, "n": 1}


def test_parameter_values_files_and_the_traversal_record_are_sealed(store: SqlStore) -> None:
    # A nested stack's parameters are its parent's properties: sealed whether hidden or not.
    env = {"parameters": {"pw": SECRET}, "parameter_defaults": {"other": SECRET}}
    files = {"env.yaml": f"parameter_defaults: {{pw: {SECRET}}}"}
    template_id = store.store_raw_template({"heat_template_version": "2018-08-31"}, env, files)
    again = store.store_raw_template({"heat_template_version": "2018-08-31"}, env, files)
    stack = make_stack(store)
    record = {"operation": "ADOPT", "adopt_data": {"resources": {"r": {"pw": SECRET}}}}
    store.swap_traversal(stack.id, "", "T1", StackChanges(current_deps=record))
    snapshot = store.create_snapshot(stack.id, "t1", "snap")
    store.update_snapshot(snapshot.id, data={"resources": {"r": {"data": {"out": SECRET}}}})

    assert SECRET not in stored_text(store)
    assert store.get_raw_template(template_id).environment == env
    assert store.get_raw_template(template_id).files == files
    assert store.get_raw_template(again).files == files
    assert store.get_raw_template(template_id).hidden_parameters == frozenset()
    assert store.get_stack(stack.id).current_deps == record
    assert store.list_stack_tree(stack.id)[0].current_deps == record
    assert store.get_snapshot(snapshot.id).data == {"resources": {"r": {"data": {"out": SECRET}}}}


def test_rows_stored_in_clear_by_older_versions_read_back(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    config = store.create_software_config("c", "script", {"config": "x"}, "t1")
    deployment = store.create_software_deployment(
        NewSoftwareDeployment(config.id, "srv", "t1", input_values={"a": 1})
    )
    record = {"operation": "CREATE", "previous_template_id": None}

    def older_version_writes(conn: Any) -> None:
        blob = conn.execute(
            insert(PROPERTIES_DATA).values(data='{"pw":"old"}', encrypted=False, created_at=START)
        ).inserted_primary_key[0]
        conn.execute(
            update(RESOURCE).where(RESOURCE.c.id == resource.id).values(properties_data_id=blob)
        )
        conn.execute(
            insert(RESOURCE_DATA).values(
                resource_id=resource.id, key="k", value="old", redact=False, decrypt_method=None
            )
        )
        event = store_event_row(stack.id, {"pw": "old"})
        conn.execute(insert(EVENT).values(**event))
        conn.execute(
            insert(JOIN_ARRIVAL).values(
                stack_id=stack.id,
                traversal_id="T0",
                node="1:update",
                sender="1:update",
                payload={"pw": "old"},
                created_at=event["created_at"],
            )
        )
        conn.execute(
            update(SOFTWARE_CONFIG)
            .where(SOFTWARE_CONFIG.c.id == config.id)
            .values(config={"config": "old"})
        )
        conn.execute(
            update(SOFTWARE_DEPLOYMENT)
            .where(SOFTWARE_DEPLOYMENT.c.id == deployment.id)
            .values(input_values={"pw": "old"}, output_values={"out": "old"})
        )
        conn.execute(update(STACK).where(STACK.c.id == stack.id).values(current_deps=record))

    store._db.write(older_version_writes)
    assert store.get_resource_properties(resource.id) == {"pw": "old"}
    assert store.get_resource_data(resource.id) == {"k": "old"}
    [event] = store.list_events(EventQuery(stack.id))
    assert event.resource_properties == {"pw": "old"}
    assert [a.payload for a in store.list_traversal_arrivals("T0")] == [{"pw": "old"}]
    assert store.get_software_config(config.id).config == {"config": "old"}
    got = store.get_software_deployment(deployment.id)
    assert (got.input_values, got.output_values) == ({"pw": "old"}, {"out": "old"})
    assert store.get_stack(stack.id).current_deps == record


def store_event_row(stack_id: str, properties: dict[str, Any]) -> dict[str, Any]:
    """An event row as older versions wrote it: properties in clear."""
    return {
        "uuid": "e0",
        "stack_id": stack_id,
        "resource_name": "server",
        "resource_action": "CREATE",
        "resource_status": "COMPLETE",
        "resource_status_reason": "",
        "resource_type": "",
        "physical_resource_id": None,
        "resource_properties": properties,
        "created_at": START,
    }


def test_without_a_key_documents_stay_in_clear_and_secrets_are_refused(
    store: SqlStore, database: Database
) -> None:
    stack = make_stack(store)
    sealed = store.create_resource(new_resource(stack))
    store.lock_resource(sealed.id, "e1", 0, properties={"pw": SECRET})
    keyless = SqlStore(database, SecretBox(None))
    with pytest.raises(SecretKeyError, match="auth_encryption_key is not configured"):
        keyless.get_resource_properties(sealed.id)
    with pytest.raises(
        SecretKeyError,
        match=r"^resources\.r\.attributes\.value: cannot store a secret: "
        "auth_encryption_key is not configured$",
    ):
        keyless.require_encryption("resources", "r", "attributes", "value")
    with pytest.raises(SecretKeyError, match="not configured"):
        keyless.set_resource_data(sealed.id, "k", SECRET, redact=True)
    plain = keyless.create_resource(new_resource(stack, "plain"))
    keyless.lock_resource(plain.id, "e1", 0, properties={"value": "visible"})
    assert keyless.get_resource_properties(plain.id) == {"value": "visible"}
    assert "visible" in stored_text(store)
