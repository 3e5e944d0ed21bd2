"""The decisions a resource actor makes about a node, on plain values."""

from __future__ import annotations

import dataclasses
import datetime
import types

import pytest

from thermik.actors import node_rules
from thermik.actors.stored import attribute_key
from thermik.engine.graph import Node
from thermik.engine.messages import CheckResource, NodeData, NodeInputs
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, State, Status
from thermik.errors import Failure, PluginError
from thermik.persistence.resource_values import Resource
from thermik.persistence.values import KEEP
from thermik.resources.context import StackIdentity
from thermik.resources.groups import ResourceGroup
from thermik.resources.test_resource import TestResource

ROW = Resource(
    id=9,
    uuid="u",
    stack_id="s",
    root_stack_id="s",
    name="web",
    resource_type="OS::Heat::TestResource",
    physical_resource_id=None,
    action="INIT",
    status="COMPLETE",
    status_reason="",
    requires=(),
    replaces=None,
    replaced_by=None,
    current_template_id=1,
    engine_id=None,
    atomic_key=0,
    metadata={},
    metadata_generation=0,
    created_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    updated_at=None,
)
DONE = State(Action.CREATE, Status.COMPLETE)


def check(*inputs: int, action: NodeAction = NodeAction.CREATE) -> CheckResource:
    data = {f"r{i}": NodeData(i, f"r{i}", None, {}, DONE) for i in inputs}
    return CheckResource(Node(9, True), "T", "web", Action.CREATE, action, NodeInputs(data))


def test_creating_a_created_version_updates_it() -> None:
    assert node_rules.effective_action(NodeAction.CREATE, ROW) is NodeAction.CREATE
    created = dataclasses.replace(ROW, action="CREATE")
    assert node_rules.effective_action(NodeAction.CREATE, created) is NodeAction.UPDATE
    assert node_rules.effective_action(NodeAction.DELETE, created) is NodeAction.DELETE


def test_requires_hold_old_and_new_while_converging_and_only_new_after() -> None:
    row = dataclasses.replace(ROW, requires=(1, 2))
    assert node_rules.requires_during(row, check(2, 3)) == (1, 2, 3)
    assert node_rules.requires_during(row, check(1)) is KEEP
    during = dataclasses.replace(ROW, requires=(1, 2, 3))
    assert node_rules.requires_after(during, check(2, 3)) == (2, 3)
    assert (
        node_rules.requires_after(dataclasses.replace(ROW, requires=(3, 2)), check(2, 3)) is KEEP
    )


def test_a_new_version_requires_the_inputs_shared_ids() -> None:
    # The members of a layer store one tuple of the previous layer's ids, not one each.
    inputs = check(5, 3, 4)
    assert node_rules.requires_during(ROW, inputs) is inputs.input_data.version_ids
    assert inputs.input_data.version_ids == (3, 4, 5)
    assert node_rules.requires_after(dataclasses.replace(ROW, requires=(3, 4, 5)), inputs) is KEEP
    assert node_rules.requires_after(ROW, inputs) is inputs.input_data.version_ids


def test_attribute_names_add_dynamic_ones_successors_read() -> None:
    plugin = TestResource()
    assert node_rules.attribute_names(plugin, None) == ["output"]
    assert node_rules.attribute_names(plugin, {"output", "extra"}) == ["output", "extra"]


def test_path_keys_are_resolved_only_for_plugins_that_apply_paths_themselves() -> None:
    wanted = {"output", attribute_key("output", ("a", 0)), attribute_key("refs", (1,))}
    assert node_rules.attribute_names(TestResource(), wanted) == ["output"]
    assert node_rules.attribute_names(ResourceGroup(), wanted) == [
        *ResourceGroup.attributes_schema,
        '["output", "a", 0]',
        '["refs", 1]',
        "output",
    ]


def test_adopt_data_must_name_the_physical_resource() -> None:
    plan = types.SimpleNamespace(adopt={"web": {"resource_id": "p"}, "bad": {}})
    assert node_rules.adopt_entry(plan, "web") == {"resource_id": "p"}  # type: ignore[arg-type]
    with pytest.raises(PluginError, match=r"^Resource ID was not provided\.$"):
        node_rules.adopt_entry(plan, "bad")  # type: ignore[arg-type]
    with pytest.raises(PluginError):
        node_rules.adopt_entry(types.SimpleNamespace(adopt=None), "web")  # type: ignore[arg-type]


def test_a_cancelled_node_is_aborted_as_heat_writes_it() -> None:
    row = dataclasses.replace(ROW, action="UPDATE")
    error = node_rules.aborted(row, "web", "", "task")
    assert (str(error), error.resource) == ("UPDATE aborted", "web")
    cancelled = node_rules.aborted(row, "web", "user triggered cancel", "task")
    assert str(cancelled) == "UPDATE aborted (user triggered cancel)"
    assert Failure.from_exception(cancelled).type_name == ""


def test_a_node_past_the_deadline_names_its_task_as_heat_does() -> None:
    stack = StackIdentity("s-id", "s", "tenant")
    row = dataclasses.replace(ROW, action="CREATE", physical_resource_id=None)
    task = node_rules.task_name("TestResource", row, "slow", stack)
    error = node_rules.aborted(row, "slow", "Timed out", task)
    assert str(error) == (
        'CREATE aborted (Task create from TestResource "slow" Stack "s" [s-id] Timed out)'
    )
    waited = node_rules.aborted(row, "slow", "Timed out", task, "ServiceUnavailable: down")
    assert str(waited) == f"{error} waiting for the cloud: ServiceUnavailable: down"
    updating = dataclasses.replace(row, action="UPDATE", physical_resource_id="p-1")
    task = node_rules.task_name("TestResource", updating, "slow", stack)
    assert str(node_rules.aborted(updating, "slow", "Timed out", task)) == (
        'UPDATE aborted (Task update from TestResource "slow" [p-1] Stack "s" [s-id] Timed out)'
    )
