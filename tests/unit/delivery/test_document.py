"""The metadata document and signal judgement follow Heat's shapes exactly."""

from __future__ import annotations

import datetime
import json

import pytest

from thermik.delivery import document
from thermik.delivery.document import (
    DeploymentFacts,
    DeploymentStatus,
    InputDecl,
    OutputDecl,
    SourceConfig,
)
from thermik.errors import InvalidSignal, PropertyError

WHEN = datetime.datetime(2017, 11, 17, 16, 15, 5, tzinfo=datetime.UTC)

SCRIPT = SourceConfig(
    name="install",
    group="script",
    config="#!/bin/sh\necho $foo\n",
    inputs=(InputDecl("foo"), InputDecl("bar", type="Number", default=3)),
    outputs=(OutputDecl("result"), OutputDecl("broken", error_output=True)),
)


def facts(**overrides: object) -> DeploymentFacts:
    values: dict[str, object] = {
        "server_id": "srv-1",
        "action": "CREATE",
        "stack_path": "mystack/5f0c",
        "resource_name": "deployment_1",
        "signal_transport": "TEMP_URL_SIGNAL",
        "physical_name": "mystack-deployment_1-abc",
        "input_values": {"foo": "bar", "extra": [1, 2]},
        "signal_inputs": {"deploy_signal_id": "http://s/sig", "deploy_signal_verb": "PUT"},
    }
    values.update(overrides)
    return DeploymentFacts(**values)  # type: ignore[arg-type]


def derived(config_id: str = "cfg-1", **overrides: object) -> document.DerivedConfig:
    return document.derive_config(SCRIPT, facts(**overrides), config_id=config_id, created_at=WHEN)


def test_entry_has_exactly_heats_keys() -> None:
    entry = derived().entry()
    assert list(entry) == [
        "id",
        "name",
        "group",
        "creation_time",
        "config",
        "options",
        "inputs",
        "outputs",
    ]
    assert entry["id"] == "cfg-1"
    assert entry["name"] == "install"
    assert entry["group"] == "script"
    assert entry["creation_time"] == "2017-11-17T16:15:05Z"
    assert entry["options"] == {}


def test_inputs_are_declared_then_extra_then_deploy_inputs_in_heats_order() -> None:
    inputs = derived().entry()["inputs"]
    assert [i["name"] for i in inputs] == [
        "foo",
        "bar",
        "extra",
        "deploy_server_id",
        "deploy_action",
        "deploy_stack_id",
        "deploy_resource_name",
        "deploy_signal_transport",
        "deploy_signal_id",
        "deploy_signal_verb",
    ]
    by_name = {i["name"]: i for i in inputs}
    assert by_name["foo"] == {"name": "foo", "type": "String", "value": "bar"}
    assert by_name["bar"] == {"name": "bar", "type": "Number", "default": 3, "value": 3}
    assert by_name["extra"] == {"name": "extra", "type": "String", "value": [1, 2]}
    assert by_name["deploy_stack_id"]["value"] == "mystack/5f0c"
    assert by_name["deploy_signal_verb"]["value"] == "PUT"
    assert all("type" in i for i in inputs)


def test_no_signal_adds_no_signal_inputs() -> None:
    names = [i["name"] for i in derived(signal_inputs={}).entry()["inputs"]]
    assert names[-1] == "deploy_signal_transport"


def test_outputs_carry_type_and_error_output() -> None:
    assert derived().entry()["outputs"] == [
        {"name": "result", "type": "String", "error_output": False},
        {"name": "broken", "type": "String", "error_output": True},
    ]


def test_name_prefers_deployment_name_then_config_name_then_physical_name() -> None:
    assert derived(name="custom").name == "custom"
    assert derived().name == "install"
    unnamed = SourceConfig(config="x")
    cfg = document.derive_config(unnamed, facts(), config_id="c", created_at=WHEN)
    assert cfg.name == "mystack-deployment_1-abc"
    assert cfg.group == "Heat::Ungrouped"


def test_structured_config_stays_a_map() -> None:
    source = SourceConfig(name="s", group="os-apply-config", config={"a": {"b": 1}})
    cfg = document.derive_config(source, facts(), config_id="c", created_at=WHEN)
    assert cfg.entry()["config"] == {"a": {"b": 1}}


def test_source_config_is_read_with_errors_naming_the_place() -> None:
    source = SourceConfig.from_mapping(
        {
            "name": "n",
            "inputs": [{"name": "i", "type": "Json", "replace_on_change": True}],
            "outputs": [{"name": "o"}],
            "options": {"tags": "x"},
        }
    )
    assert source.inputs[0] == InputDecl("i", type="Json", replace_on_change=True)
    assert source.group == "Heat::Ungrouped"
    with pytest.raises(PropertyError) as info:
        SourceConfig.from_mapping({"inputs": [{"name": "i", "type": "Blob"}]}, ("properties",))
    assert str(info.value).startswith("properties.inputs[0].type: type must be one of String")
    with pytest.raises(PropertyError) as info:
        SourceConfig.from_mapping({"outputs": [{"type": "String"}]})
    assert str(info.value).startswith("outputs[0]: name is required")


def test_document_sorts_by_name_and_lists_collectors() -> None:
    b = derived("cfg-b", name="b-step")
    a = derived("cfg-a", name="a-step")
    doc = document.metadata_document(
        collector="request",
        collector_settings={"metadata_url": "http://get"},
        deployments=[b, a],
        template_metadata={"role": "web"},
    )
    assert doc["role"] == "web"
    assert doc["os-collect-config"] == {
        "collectors": ["request", "local"],
        "request": {"metadata_url": "http://get"},
    }
    assert [d["id"] for d in doc["deployments"]] == ["cfg-a", "cfg-b"]
    json.dumps(doc)


def test_transport_switch_nulls_the_previous_section() -> None:
    previous = {
        "collectors": ["ec2", "heat", "local"],
        "heat": {"user_id": "u", "password": "p"},
        "polling_interval": 10,
    }
    doc = document.metadata_document(
        collector="request",
        collector_settings={"metadata_url": "u"},
        deployments=[],
        previous_occ=previous,
        default_collectors=("ec2",),
    )
    occ = doc["os-collect-config"]
    assert occ["collectors"] == ["ec2", "request", "local"]
    assert occ["heat"] == {"user_id": None, "password": None}
    assert occ["polling_interval"] == 10


def test_generation_round_trips_and_defaults_to_zero() -> None:
    doc = document.with_generation({"deployments": []}, 7)
    assert document.generation_of(doc) == 7
    assert document.generation_of(None) == 0
    assert document.generation_of({"thermik-generation": True}) == 0
    assert document.generation_of({}) == 0


def test_successful_signal_is_complete_with_outputs() -> None:
    body = json.dumps({"result": "ok", "deploy_stdout": "out", "deploy_status_code": 0})
    result = document.parse_signal(body.encode(), SCRIPT.outputs)
    assert result.status is DeploymentStatus.COMPLETE
    assert result.reason == "Outputs received"
    assert result.outputs == {
        "result": "ok",
        "deploy_stdout": "out",
        "deploy_stderr": None,
        "deploy_status_code": 0,
    }


def test_non_zero_status_code_fails() -> None:
    result = document.parse_signal({"deploy_status_code": "3"}, SCRIPT.outputs)
    assert result.status is DeploymentStatus.FAILED
    assert result.reason == "deploy_status_code : Deployment exited with non-zero status code: 3"


def test_error_output_present_fails_and_lists_it() -> None:
    result = document.parse_signal(
        {"deploy_status_code": 1, "broken": "disk full"}, SCRIPT.outputs
    )
    assert result.status is DeploymentStatus.FAILED
    assert result.reason == (
        "deploy_status_code : Deployment exited with non-zero status code: 1, broken : disk full"
    )


def test_empty_signal_completes() -> None:
    result = document.parse_signal(b"{}", SCRIPT.outputs)
    assert result.status is DeploymentStatus.COMPLETE


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "signal body is not valid JSON"),
        (b"[1, 2]", "signal body must be a JSON object, not list"),
        (b"\xff\xfe", "signal body is not valid JSON"),
        (b"{" + b" " * 100 + b"}", "signal body of 102 bytes exceeds the limit of 50"),
    ],
)
def test_malformed_signals_are_invalid(body: bytes, message: str) -> None:
    with pytest.raises(InvalidSignal) as info:
        document.parse_signal(body, SCRIPT.outputs, max_size=50)
    assert str(info.value).startswith(message)
