"""Software configs and deployments through the Store, scoped by tenant."""

from __future__ import annotations

import pytest

from tests.unit.orchestration.conftest import CTX, OTHER
from thermik.api.boundary import DeploymentRequest, DeploymentUpdate, SoftwareConfigRequest
from thermik.errors import Conflict, InvalidInput, NotFound
from thermik.orchestration import Orchestrator

CONFIG = SoftwareConfigRequest(
    name="hello",
    group="script",
    config="#!/bin/sh\necho hi",
    inputs=({"name": "who"}, {"name": "n", "type": "Number", "replace_on_change": False}),
    outputs=({"name": "result"},),
    options={"a": 1},
)


def test_configs(service: Orchestrator) -> None:
    config = service.create_software_config(CTX, CONFIG)
    assert config.inputs == ({"name": "who", "type": "String"}, {"name": "n", "type": "Number"})
    assert config.outputs == ({"name": "result", "type": "String", "error_output": False},)
    assert service.show_software_config(CTX, config.id) == config
    second = service.create_software_config(CTX, CONFIG)
    listed = service.list_software_configs(CTX)
    assert [c.id for c in listed] == [config.id, second.id]
    after = service.list_software_configs(CTX, marker=config.id, limit=5)
    assert [c.id for c in after] == [second.id]
    assert service.list_software_configs(OTHER) == []
    with pytest.raises(NotFound):
        service.show_software_config(OTHER, config.id)
    service.delete_software_config(CTX, second.id)
    with pytest.raises(NotFound):
        service.delete_software_config(CTX, second.id)


def test_config_inputs_are_checked(service: Orchestrator) -> None:
    bad = SoftwareConfigRequest(name="x", inputs=({"type": "String"},))
    with pytest.raises(InvalidInput, match=r"inputs\[0\]: each of inputs must be a map"):
        service.create_software_config(CTX, bad)
    odd = SoftwareConfigRequest(name="x", outputs=({"name": "o", "type": "Blob"},))
    with pytest.raises(InvalidInput, match="type Blob is not one of"):
        service.create_software_config(CTX, odd)


def test_deployments(service: Orchestrator) -> None:
    config = service.create_software_config(CTX, CONFIG)
    deployment = service.create_software_deployment(
        CTX,
        DeploymentRequest(
            config_id=config.id,
            server_id="srv",
            input_values={"who": "me"},
            action="CREATE",
            status="IN_PROGRESS",
        ),
    )
    assert (deployment.status, deployment.input_values) == ("IN_PROGRESS", {"who": "me"})
    done = service.update_software_deployment(
        CTX, deployment.id, DeploymentUpdate(status="COMPLETE", output_values={"result": "ok"})
    )
    assert (done.status, done.output_values, done.action) == (
        "COMPLETE",
        {"result": "ok"},
        "CREATE",
    )
    assert [d.id for d in service.list_software_deployments(CTX, server_id="srv")] == [done.id]
    assert service.list_software_deployments(CTX, server_id="other") == []
    metadata = service.server_deployments_metadata(CTX, "srv")
    assert [entry["id"] for entry in metadata] == [config.id]
    with pytest.raises(Conflict):
        service.delete_software_config(CTX, config.id)
    with pytest.raises(NotFound):
        service.show_software_deployment(OTHER, deployment.id)
    with pytest.raises(InvalidInput, match="status DONE is not one of"):
        service.update_software_deployment(CTX, deployment.id, DeploymentUpdate(status="DONE"))
    service.delete_software_deployment(CTX, deployment.id)
    service.delete_software_config(CTX, config.id)


def test_deployment_of_a_config_of_another_tenant(service: Orchestrator) -> None:
    config = service.create_software_config(OTHER, CONFIG)
    with pytest.raises(NotFound, match="could not be found"):
        service.create_software_deployment(CTX, DeploymentRequest(config.id, "srv"))
