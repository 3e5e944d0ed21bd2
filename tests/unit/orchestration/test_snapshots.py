"""Snapshots and restore through the service: plugins get their snapshot data back."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

from tests.unit.orchestration.conftest import CTX, create, settle
from thermik.api import formatting
from thermik.api.boundary import StackIdentity, StackRequest, StackUpdate
from thermik.conf.settings import Settings
from thermik.orchestration import Orchestrator

#: A random string a change of ``salt`` replaces, and a resource and an output that use it.
SALTED: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {"salt": {"type": "string", "default": "first"}},
    "resources": {
        "password": {
            "type": "OS::Heat::RandomString",
            "properties": {"salt": {"get_param": "salt"}},
        },
        "user": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["password", "value"]}},
        },
    },
    "outputs": {
        "password": {"value": {"get_attr": ["password", "value"]}},
        "used": {"value": {"get_attr": ["user", "output"]}},
    },
}


def outputs(service: Orchestrator, stack: StackIdentity) -> dict[str, Any]:
    """The stack's outputs, once its operation ended."""
    view = settle(service, stack)
    assert view.status == "COMPLETE", view.status_reason
    return {output.key: output.value for output in view.outputs or ()}


def snapshot(service: Orchestrator, stack: StackIdentity) -> str:
    """Take a snapshot and wait for it; its id."""
    taken = service.create_snapshot(CTX, stack, "snap")
    settle(service, stack)
    assert service.show_snapshot(CTX, stack, taken.id).status == "COMPLETE"
    return taken.id


def test_restore_gives_a_replaced_random_string_its_snapshot_value(
    service: Orchestrator,
) -> None:
    stack = create(service, template=SALTED)
    before = outputs(service, stack)
    assert before["password"] == before["used"]
    taken = snapshot(service, stack)
    update = StackRequest(template=SALTED, parameters={"salt": "second"})
    service.update_stack(CTX, stack, StackUpdate(update))
    replaced = outputs(service, stack)
    assert replaced["password"] != before["password"]

    service.restore_snapshot(CTX, stack, taken)
    restored = outputs(service, stack)

    assert restored == before
    shown = service.show_resource(CTX, stack, "password", with_attr=("value",))
    assert shown.attributes is not None
    assert shown.attributes["value"] == before["password"]
    assert shown.physical_resource_id is not None


def test_restore_without_a_change_keeps_the_value(service: Orchestrator) -> None:
    stack = create(service, template=SALTED)
    before = outputs(service, stack)
    taken = snapshot(service, stack)
    service.restore_snapshot(CTX, stack, taken)
    assert outputs(service, stack) == before


#: A hidden parameter an output shows, and a redacted random string.
HIDDEN: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {"secret": {"type": "string", "hidden": True}},
    "resources": {"password": {"type": "OS::Heat::RandomString"}},
    "outputs": {"secret": {"value": {"get_param": "secret"}}},
}


def stored_snapshots(settings: Settings) -> str:
    """The snapshot table as the database holds it."""
    with contextlib.closing(sqlite3.connect(settings.state_dir / "thermik.sqlite")) as db:
        return " ".join(str(row) for row in db.execute("SELECT * FROM snapshot"))


def test_snapshots_keep_secrets_encrypted_and_restore_them(
    service: Orchestrator, settings: Settings
) -> None:
    stack = create(service, template=HIDDEN, parameters={"secret": "t0p-s3cret"})
    password = service.show_resource(CTX, stack, "password", with_attr=("value",)).attributes
    assert password is not None
    taken = snapshot(service, stack)

    stored = stored_snapshots(settings)
    assert "t0p-s3cret" not in stored
    assert str(password["value"]) not in stored
    shown = service.show_snapshot(CTX, stack, taken)
    assert shown.data is not None
    assert shown.data["environment"]["parameters"]["secret"] == "t0p-s3cret"
    document = formatting.snapshot(shown)["data"]
    assert document["environment"]["parameters"]["secret"] == formatting.MASK
    assert document["resources"]["password"]["resource_data"]["value"] == formatting.MASK

    update = StackRequest(template=HIDDEN, parameters={"secret": "changed"})
    service.update_stack(CTX, stack, StackUpdate(update))
    assert outputs(service, stack) == {"secret": "changed"}
    service.restore_snapshot(CTX, stack, taken)
    assert outputs(service, stack) == {"secret": "t0p-s3cret"}
    assert settle(service, stack).parameters["secret"] == "t0p-s3cret"
