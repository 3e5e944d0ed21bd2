"""Software deployments: which actions run, how they wait, fail, update, replace and delete."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.resources.harness import drive
from tests.unit.resources.software_harness import SoftwareCtx
from thermik.errors import InvalidInput, InvalidSignal, PluginError
from thermik.resources import PollAfter, Progress, Registry, ResourcePlugin, plan_update
from thermik.resources.plugin import Operation

REGISTRY = Registry.from_entry_points()
SCRIPT = {
    "group": "script",
    "config": "#!/bin/sh\necho $foo",
    "inputs": [{"name": "foo", "default": "dflt"}, {"name": "size", "replace_on_change": True}],
    "outputs": [{"name": "result"}, {"name": "oops", "error_output": True}],
}


class Deployment:
    """One deployment resource with a server and a config in one MemorySoftware."""

    def __init__(self, type_name: str = "OS::Heat::SoftwareDeployment", **values: Any) -> None:
        self.ctx = SoftwareCtx(resource_name="dep", resource_type=type_name)
        self.sw = self.ctx.software
        self.sw.provision_server("srv", "POLL_TEMP_URL", {})
        self.config_id = self.sw.create_config("tenant", _config(values.pop("config", SCRIPT)))
        self.cls: type[ResourcePlugin] = REGISTRY.get(type_name)
        self.plugin = self.cls()
        self.props = self.props_for(**values)

    def props_for(self, **values: Any) -> dict[str, Any]:
        values.setdefault("server", "srv")
        values.setdefault("config", self.config_id)
        values.setdefault("signal_transport", "TEMP_URL_SIGNAL")
        return self.cls.check_properties(values)

    def create(self) -> Progress | None:
        return self.plugin.create(self.ctx, self.props)

    def check(self, progress: Progress | None) -> Any:
        return self.plugin.check_create_complete(self.ctx, self.props, progress)

    def attr(self, name: str) -> Any:
        return self.plugin.attribute(self.ctx, self.props, name)

    @property
    def deployment_id(self) -> str:
        assert self.ctx.physical_id is not None
        return self.ctx.physical_id


def _config(values: dict[str, Any]) -> Any:
    structured = isinstance(values.get("config"), dict)
    cls = REGISTRY.get("OS::Heat::StructuredConfig" if structured else "OS::Heat::SoftwareConfig")
    props = cls.check_properties(values)
    return cls().config_data(SoftwareCtx(resource_name="cfg"), props)  # type: ignore[attr-defined]


def test_create_derives_the_action_and_completes_on_the_agents_signal() -> None:
    dep = Deployment(input_values={"foo": "bar", "extra": 1}, name="first")
    progress = dep.create()
    assert progress is not None
    (request,) = dep.sw.requests
    assert (request.action, request.server_id, request.resource_name, request.owner) == (
        "CREATE",
        "srv",
        "dep",
        "dep",
    )
    assert (request.stack_id, request.stack_name, request.tenant) == (
        "stack-id",
        "teststack",
        "tenant",
    )
    assert request.signal_transport == "TEMP_URL_SIGNAL"
    derived = dep.sw.current(dep.deployment_id)
    assert derived.name == "first"
    assert derived.input_data()["foo"] == "bar"
    assert derived.input_data()["extra"] == 1
    assert derived.input_data()["deploy_action"] == "CREATE"
    assert isinstance(dep.check(progress), PollAfter)
    dep.sw.agent_signals(
        dep.deployment_id,
        {"deploy_stdout": "out", "deploy_stderr": "", "deploy_status_code": 0, "result": "ok"},
    )
    assert dep.check(progress) is True
    assert dep.attr("deploy_stdout") == "out"
    assert dep.attr("deploy_status_code") == 0
    assert dep.attr("result") == "ok"
    assert dep.attr("unknown") is None
    assert dep.plugin.reference_id(dep.ctx, dep.props) == dep.deployment_id


def test_polls_slow_down_while_waiting() -> None:
    dep = Deployment()
    progress = dep.create()
    hints = []
    for _ in range(8):
        result = dep.check(progress)
        assert isinstance(result, PollAfter)
        hints.append(result.seconds)
        dep.ctx.clock.advance(result.seconds * 10)
    assert hints[0] == 0.5
    assert hints == sorted(hints)
    assert hints[-1] == 5.0


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (
            {"deploy_status_code": 3, "deploy_stderr": "boom"},
            "Deployment to server failed: deploy_status_code : Deployment exited with "
            "non-zero status code: 3",
        ),
        ({"deploy_status_code": 0, "oops": "disk full"}, "oops : disk full"),
    ],
)
def test_a_failure_signal_fails_the_action_with_heats_reason(
    payload: dict[str, Any], reason: str
) -> None:
    dep = Deployment()
    progress = dep.create()
    dep.sw.agent_signals(dep.deployment_id, payload)
    with pytest.raises(PluginError, match=reason) as info:
        dep.check(progress)
    assert info.value.resource == "dep"


def test_no_signal_completes_at_once() -> None:
    dep = Deployment(signal_transport="NO_SIGNAL")
    assert dep.create() is None
    assert dep.sw.deployments[dep.deployment_id].status == "COMPLETE"


def test_an_action_not_in_actions_does_nothing() -> None:
    dep = Deployment(actions=["UPDATE"])
    assert dep.create() is None
    assert dep.sw.requests == []
    assert dep.ctx.physical_id is None
    assert dep.attr("deploy_stdout") is None
    assert dep.check(None) is True


def test_update_runs_a_new_derived_config_for_the_same_deployment() -> None:
    dep = Deployment(input_values={"foo": "one"})
    progress = dep.create()
    dep.sw.agent_signals(dep.deployment_id, {"deploy_status_code": 0, "result": "r1"})
    assert dep.check(progress) is True
    first = dep.sw.current(dep.deployment_id).id
    new = dep.props_for(input_values={"foo": "two"})
    plan = plan_update(dep.plugin, dep.ctx, new, dep.props)
    assert plan.replacement is None
    assert plan.changed == {"input_values"}
    progress = dep.plugin.update(dep.ctx, new, dep.props, plan.changed)
    assert isinstance(progress, Progress)
    current = dep.sw.current(dep.deployment_id)
    assert current.id != first
    assert first not in dep.sw.derived
    assert current.input_data()["foo"] == "two"
    assert current.input_data()["deploy_action"] == "UPDATE"
    assert dep.attr("result") == "r1"  # until the new signal arrives
    dep.sw.agent_signals(dep.deployment_id, {"deploy_status_code": 0, "result": "r2"})
    assert dep.plugin.check_update_complete(dep.ctx, new, progress) is True
    assert dep.plugin.attribute(dep.ctx, new, "result") == "r2"


def test_replace_on_change_inputs_and_new_servers_replace_the_deployment() -> None:
    dep = Deployment(input_values={"size": 1})
    dep.create()
    same = dep.props_for(input_values={"size": 1, "foo": "x"})
    assert plan_update(dep.plugin, dep.ctx, same, dep.props).replacement is None
    bigger = dep.props_for(input_values={"size": 2})
    replacement = plan_update(dep.plugin, dep.ctx, bigger, dep.props).replacement
    assert replacement is not None
    assert "size" in replacement.reason
    moved = dep.props_for(server="other", input_values={"size": 1})
    assert plan_update(dep.plugin, dep.ctx, moved, dep.props).replacement is not None


def test_delete_without_a_delete_action_removes_the_deployment() -> None:
    dep = Deployment()
    dep.create()
    deployment_id = dep.deployment_id
    assert dep.plugin.delete(dep.ctx, dep.props) is None
    assert dep.sw.removed == [deployment_id]
    assert dep.plugin.delete(dep.ctx, dep.props) is None  # already gone


def test_delete_action_runs_then_the_deployment_is_removed() -> None:
    dep = Deployment(actions=["CREATE", "DELETE"], signal_transport="TEMP_URL_SIGNAL")
    progress = dep.create()
    dep.sw.agent_signals(dep.deployment_id, {"deploy_status_code": 0})
    assert dep.check(progress) is True
    deleting = dep.plugin.delete(dep.ctx, dep.props)
    assert deleting is not None
    assert dep.sw.requests[-1].action == "DELETE"
    assert dep.plugin.check_delete_complete(dep.ctx, dep.props, deleting) != True  # noqa: E712
    dep.sw.agent_signals(dep.deployment_id, {"deploy_status_code": 0})
    assert dep.plugin.check_delete_complete(dep.ctx, dep.props, deleting) is True
    assert dep.sw.removed == [dep.deployment_id]


def test_delete_action_is_skipped_when_the_server_is_gone() -> None:
    dep = Deployment(actions=["CREATE", "DELETE"])
    dep.create()
    dep.sw.release_server("srv")
    assert dep.plugin.delete(dep.ctx, dep.props) is None
    assert [r.action for r in dep.sw.requests] == ["CREATE"]


def test_suspend_and_resume_run_when_configured() -> None:
    dep = Deployment(actions=["CREATE", "SUSPEND", "RESUME"], signal_transport="NO_SIGNAL")
    dep.create()
    assert dep.plugin.suspend(dep.ctx, dep.props) is None
    assert dep.plugin.resume(dep.ctx, dep.props) is None
    assert [r.action for r in dep.sw.requests] == ["CREATE", "SUSPEND", "RESUME"]


def test_cancel_fails_the_waiting_deployment() -> None:
    dep = Deployment()
    progress = dep.create()
    dep.plugin.cancel(dep.ctx, dep.props, Operation.CREATE)
    with pytest.raises(PluginError, match=r"Deployment cancelled\."):
        dep.check(progress)


def test_signals_to_the_resource_reach_the_deployment() -> None:
    dep = Deployment()
    with pytest.raises(InvalidSignal, match="has not started"):
        dep.plugin.handle_signal(dep.ctx, dep.props, {})
    progress = dep.create()
    dep.plugin.handle_signal(dep.ctx, dep.props, {"deploy_status_code": 0, "result": "via api"})
    assert dep.check(progress) is True
    assert dep.attr("result") == "via api"


def test_a_server_without_endpoint_is_a_clear_error() -> None:
    dep = Deployment(server="nowhere")
    with pytest.raises(PluginError, match="nowhere has no metadata endpoint"):
        dep.create()


STRUCTURED = {
    "group": "os-apply-config",
    "config": {"port": {"get_input": "port"}, "nested": [{"get_input": "deploy_action"}]},
    "inputs": [{"name": "port"}],
}


def test_structured_deployment_substitutes_inputs() -> None:
    dep = Deployment(
        "OS::Heat::StructuredDeployment",
        config=STRUCTURED,
        input_values={"port": 80},
        signal_transport="NO_SIGNAL",
    )
    dep.create()
    assert dep.sw.current(dep.deployment_id).config == {"port": 80, "nested": ["CREATE"]}


def test_structured_strict_validation_names_the_missing_input() -> None:
    dep = Deployment(
        "OS::Heat::StructuredDeployment",
        config={"config": {"x": {"get_input": "missing"}}},
        input_values_validate="STRICT",
    )
    with pytest.raises(InvalidInput, match=r"The Parameter \(missing\) was not provided."):
        dep.create()
    lax = Deployment(
        "OS::Heat::StructuredDeployment",
        config={"config": {"x": {"my_key": "missing"}}},
        input_key="my_key",
        signal_transport="NO_SIGNAL",
    )
    lax.create()
    assert lax.sw.current(lax.deployment_id).config == {"x": None}


def test_component_configs_choose_the_actions() -> None:
    component = {"group": "component", "config": {"configs": [{"actions": ["UPDATE"]}]}}
    dep = Deployment(config=component, actions=["CREATE"])
    assert dep.create() is None
    assert dep.sw.requests == []
    creating = {"group": "component", "config": {"configs": [{"actions": ["CREATE"]}]}}
    dep = Deployment(config=creating, actions=["UPDATE"])
    assert dep.create() is not None
    assert [r.action for r in dep.sw.requests] == ["CREATE"]


class Group:
    """A deployment group over servers a and b."""

    def __init__(self, type_name: str = "OS::Heat::SoftwareDeploymentGroup", **values: Any):
        self.single = Deployment()
        self.ctx = self.single.ctx
        self.ctx.resource_name, self.ctx.resource_type = "group", type_name
        self.sw = self.single.sw
        self.sw.provision_server("srv-b", "POLL_TEMP_URL", {})
        self.cls = REGISTRY.get(type_name)
        self.plugin = self.cls()
        self.props = self.props_for(**values)

    def props_for(self, **values: Any) -> dict[str, Any]:
        values.setdefault("servers", {"a": "srv", "b": "srv-b"})
        values.setdefault("config", self.single.config_id)
        values.setdefault("signal_transport", "TEMP_URL_SIGNAL")
        return self.cls.check_properties(values)

    def member(self, name: str) -> str:
        (found,) = [r.deployment_id for r in self.sw.requests if r.resource_name == name]
        return found


@pytest.mark.parametrize(
    "type_name", ["OS::Heat::SoftwareDeploymentGroup", "OS::Heat::SoftwareDeployments"]
)
def test_group_deploys_to_every_server_and_maps_attributes(type_name: str) -> None:
    group = Group(type_name)
    progress = group.plugin.create(group.ctx, group.props)
    assert sorted(r.server_id for r in group.sw.requests) == ["srv", "srv-b"]
    assert {r.owner for r in group.sw.requests} == {"group"}
    assert isinstance(
        group.plugin.check_create_complete(group.ctx, group.props, progress), PollAfter
    )
    for name in ("a", "b"):
        payload = {"deploy_stdout": f"on {name}", "deploy_status_code": 0, "result": name * 2}
        group.sw.agent_signals(group.member(name), payload)
    polls, _ = drive(
        lambda p: group.plugin.check_create_complete(group.ctx, group.props, p),
        progress,
        group.ctx.clock,
    )
    assert polls == 1
    assert group.plugin.attribute(group.ctx, group.props, "deploy_stdouts") == {
        "a": "on a",
        "b": "on b",
    }
    assert group.plugin.attribute(group.ctx, group.props, "deploy_status_codes") == {
        "a": 0,
        "b": 0,
    }
    assert group.plugin.attribute(group.ctx, group.props, "result", ("b",)) == "bb"


def test_group_failure_names_the_server() -> None:
    group = Group()
    progress = group.plugin.create(group.ctx, group.props)
    group.sw.agent_signals(group.member("b"), {"deploy_status_code": 2})
    with pytest.raises(PluginError, match="Deployment to server b failed"):
        group.plugin.check_create_complete(group.ctx, group.props, progress)


def test_group_update_creates_new_members_and_removes_dropped_ones() -> None:
    group = Group(signal_transport="NO_SIGNAL")
    assert group.plugin.create(group.ctx, group.props) is None
    dropped = group.member("b")
    group.sw.provision_server("srv-c", "POLL_TEMP_URL", {})
    new = group.props_for(servers={"a": "srv", "c": "srv-c"}, signal_transport="NO_SIGNAL")
    plan = plan_update(group.plugin, group.ctx, new, group.props)
    assert plan.replacement is None
    assert group.plugin.update(group.ctx, new, group.props, plan.changed) is None
    assert [(r.resource_name, r.action) for r in group.sw.requests[2:]] == [
        ("a", "UPDATE"),
        ("c", "CREATE"),
    ]
    assert group.sw.removed == [dropped]
    assert group.plugin.delete(group.ctx, new) is None
    assert len(group.sw.removed) == 3


def test_structured_group_substitutes_per_server() -> None:
    group = Group("OS::Heat::StructuredDeploymentGroup", signal_transport="NO_SIGNAL")
    structured = Deployment("OS::Heat::StructuredDeployment", config=STRUCTURED)
    group.sw.configs["structured"] = structured.sw.configs[structured.config_id]
    group.sw.tenants["structured"] = "tenant"
    props = group.props_for(
        config="structured", input_values={"port": 8}, signal_transport="NO_SIGNAL"
    )
    group.plugin.create(group.ctx, props)
    configs = [group.sw.current(group.member(n)).config for n in ("a", "b")]
    assert configs == [{"port": 8, "nested": ["CREATE"]}] * 2
