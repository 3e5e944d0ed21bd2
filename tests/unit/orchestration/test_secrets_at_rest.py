"""Hidden parameters and generated secrets are never stored in clear, and stacks still work.

Every cell of every table of the embedded database is read raw (``sqlite3``, bypassing the
Store) and searched for the plaintext: resolved properties, cached attributes, events, derived
software configs and deployment input values all hold values derived from the secrets.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from tests.unit.orchestration.conftest import CTX, settle
from thermik.api.boundary import ResourceQuery, StackIdentity, StackRequest, StackUpdate
from thermik.conf.settings import Settings
from thermik.orchestration import Orchestrator

PASSWORD = "pa55-W0RD-hidden"
NEW_PASSWORD = "n3w-pa55-W0RD-hidden"

#: A hidden parameter and a RandomString feeding properties, outputs, a software config and
#: a deployment's input values.
TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "password": {"type": "string", "hidden": True},
        "fail": {"type": "boolean", "default": False},
    },
    "resources": {
        "random": {"type": "OS::Heat::RandomString"},
        "copy": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": {"get_param": "password"},
                "fail": {"get_param": "fail"},
            },
        },
        "echo": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"get_attr": ["random", "value"]}},
        },
        "config": {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {
                "group": "script",
                "config": {"list_join": [" ", ["echo", {"get_param": "password"}]]},
                "inputs": [{"name": "pw"}, {"name": "generated"}],
            },
        },
        "server": {
            "type": "OS::Heat::DeployedServer",
            "properties": {"software_config_transport": "POLL_TEMP_URL"},
        },
        "deployment": {
            "type": "OS::Heat::SoftwareDeployment",
            "properties": {
                "config": {"get_resource": "config"},
                "server": {"get_resource": "server"},
                "signal_transport": "NO_SIGNAL",
                "input_values": {
                    "pw": {"get_param": "password"},
                    "generated": {"get_attr": ["random", "value"]},
                },
            },
        },
    },
    "outputs": {
        "password": {"value": {"get_attr": ["copy", "output"]}},
        "generated": {"value": {"get_attr": ["echo", "value"]}},
    },
}


def stored_cells(settings: Settings) -> Iterable[tuple[str, str, str]]:
    """(table, column, text) of every non-null cell of the embedded database, read raw."""
    conn = sqlite3.connect(settings.state_dir / "thermik.sqlite")
    try:
        tables = [
            name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        for table in tables:
            cursor = conn.execute(f'SELECT * FROM "{table}"')
            columns = [d[0] for d in cursor.description]
            for row in cursor.fetchall():
                for column, value in zip(columns, row, strict=True):
                    if value is not None:
                        yield table, column, str(value)
    finally:
        conn.close()


def assert_not_stored(settings: Settings, *secrets: str) -> None:
    """No cell holds any of ``secrets`` in clear."""
    found = [
        (table, column, secret)
        for table, column, text in stored_cells(settings)
        for secret in secrets
        if secret in text
    ]
    assert found == []


def outputs(service: Orchestrator, stack: StackIdentity) -> dict[str, Any]:
    view = settle(service, stack)
    assert view.status == "COMPLETE", view.status_reason
    return {output.key: output.value for output in view.outputs or ()}


def deployed_inputs(service: Orchestrator, stack: StackIdentity) -> dict[str, Any]:
    """The input values of the stack's deployment, as the server's agent gets them."""
    resources = service.list_resources(CTX, stack, ResourceQuery())
    server = next(r for r in resources if r.name == "server").physical_resource_id
    assert server is not None
    metadata = service.server_deployments_metadata(CTX, server)
    [deployed] = metadata
    return {item["name"]: item.get("value") for item in deployed["inputs"]}


def test_hidden_and_generated_values_are_only_stored_encrypted(
    service: Orchestrator, settings: Settings
) -> None:
    stack = service.create_stack(
        CTX, StackRequest(name="s1", template=TEMPLATE, parameters={"password": PASSWORD})
    )
    created = outputs(service, stack)
    generated = created["generated"]
    assert created["password"] == PASSWORD
    assert len(generated) == 32
    inputs = deployed_inputs(service, stack)
    assert (inputs["pw"], inputs["generated"]) == (PASSWORD, generated)
    assert_not_stored(settings, PASSWORD, generated)

    # The environment is masked as stack show masks the parameter.
    environment = service.stack_environment(CTX, stack)
    assert environment["parameters"]["password"] == "******"
    assert "password" in settle(service, stack).hidden_parameters

    service.update_stack(
        CTX,
        stack,
        StackUpdate(StackRequest(parameters={"password": NEW_PASSWORD}), existing=True),
    )
    updated = outputs(service, stack)
    assert updated == {"password": NEW_PASSWORD, "generated": generated}
    assert deployed_inputs(service, stack)["pw"] == NEW_PASSWORD
    assert_not_stored(settings, PASSWORD, NEW_PASSWORD, generated)


def test_rollback_and_adopt_work_from_encrypted_rows(
    service: Orchestrator, settings: Settings
) -> None:
    stack = service.create_stack(
        CTX, StackRequest(name="s1", template=TEMPLATE, parameters={"password": PASSWORD})
    )
    generated = outputs(service, stack)["generated"]
    failing = StackRequest(
        parameters={"password": NEW_PASSWORD, "fail": True}, disable_rollback=False
    )
    service.update_stack(CTX, stack, StackUpdate(failing, existing=True))
    view = settle(service, stack)
    assert (view.action, view.status) == ("ROLLBACK", "COMPLETE"), view.status_reason
    assert outputs(service, stack) == {"password": PASSWORD, "generated": generated}
    assert_not_stored(settings, PASSWORD, NEW_PASSWORD, generated)

    # Abandon carries the secrets (adopt needs them); the adopted stack stores them sealed.
    document = service.abandon_stack(CTX, stack)
    assert document["environment"]["parameters"]["password"] == PASSWORD
    settle(service, stack)
    adopted = service.adopt_stack(CTX, StackRequest(name="again", adopt_data=document))
    assert outputs(service, adopted) == {"password": PASSWORD, "generated": generated}
    assert_not_stored(settings, PASSWORD, NEW_PASSWORD, generated)
