"""Every python-heatclient call of Heat's v1 API against the real engine on a loopback port.

Each test has its own tenant on one shared service, and checks what the client gets back
against what the engine did: states, outputs, physical ids, stored documents.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from tests.e2e.support import (
    DEADLINE,
    TEMPLATE,
    WAIT_TEMPLATE,
    outputs_of,
    settled,
    slow_template,
)
from thermik.orchestration import Orchestrator


@pytest.fixture
def heat(shared_root: str, own_tenant: str) -> Any:
    """heatclient as most tools build it: endpoint and token, no Keystone."""
    return heat_client.Client("1", endpoint=f"{shared_root}/v1/{own_tenant}", token="anything")


def create(heat: Any, name: str, template: dict[str, Any] = TEMPLATE, **fields: Any) -> str:
    """Create a stack, wait for it to settle, check it completed; its id."""
    stack_id = str(heat.stacks.create(stack_name=name, template=template, **fields)["stack"]["id"])
    stack = settled(heat, stack_id)
    assert stack.stack_status in ("CREATE_COMPLETE", "ADOPT_COMPLETE"), stack.stack_status_reason
    return stack_id


def physical_ids(heat: Any, stack: str) -> dict[str, str]:
    return {r.resource_name: r.physical_resource_id for r in heat.resources.list(stack)}


def test_create_show_outputs_documents(heat: Any, shared_service: Orchestrator) -> None:
    files = {"notes.txt": "kept as sent"}
    stack_id = create(heat, "docs", parameters={"word": "hi"}, tags="a,b", files=files)
    shown = heat.stacks.get("docs")
    assert (shown.id, shown.stack_name, shown.action, shown.status) == (
        stack_id,
        "docs",
        "CREATE",
        "COMPLETE",
    )
    assert shown.tags == ["a", "b"]
    assert shown.description == "Two resources in a chain"
    assert shown.parameters["word"] == "hi"
    assert shown.parameters["OS::stack_id"] == stack_id
    assert outputs_of(shown) == {"echo": "hi"}
    assert shown.links[0]["href"].endswith(f"/stacks/docs/{stack_id}")
    unresolved = heat.stacks.get(stack_id, resolve_outputs=False)
    assert unresolved.stack_status == "CREATE_COMPLETE"
    assert not hasattr(unresolved, "outputs")

    stored = shared_service.store.get_stack(stack_id)
    assert (stored.action, stored.status, stored.tags) == ("CREATE", "COMPLETE", ("a", "b"))

    assert heat.stacks.output_list("docs") == {
        "outputs": [{"output_key": "echo", "description": "the echo"}]
    }
    assert heat.stacks.output_show(stack_id, "echo")["output"]["output_value"] == "hi"
    with pytest.raises(heat_exc.HTTPNotFound, match="nope"):
        heat.stacks.output_show("docs", "nope")
    assert heat.stacks.template("docs") == TEMPLATE
    assert heat.stacks.environment(stack_id)["parameters"] == {"word": "hi"}
    assert heat.stacks.files("docs") == files


def test_environment_masks_hidden_parameters_as_show_does(heat: Any) -> None:
    template = copy.deepcopy(TEMPLATE)
    template["parameters"]["password"] = {"type": "string", "hidden": True}
    stack_id = create(heat, "masked", template, parameters={"word": "hi", "password": "pw-1"})
    assert heat.stacks.get(stack_id).parameters["password"] == "******"
    environment = heat.stacks.environment(stack_id)
    assert environment["parameters"] == {"word": "hi", "password": "******"}
    # Export carries the value: adopt needs it.
    assert heat.stacks.export(stack_id)["environment"]["parameters"]["password"] == "pw-1"


def test_list_filters_sorting_paging_tags(heat: Any) -> None:
    ids = {}
    for name, tags in [("alpha", "x"), ("bravo", "x,y"), ("charlie", "y"), ("delta", "")]:
        ids[name] = create(heat, name, tags=tags)
        time.sleep(0.01)
    newest_first = [s.stack_name for s in heat.stacks.list()]
    assert newest_first == ["delta", "charlie", "bravo", "alpha"]
    (listed,) = heat.stacks.list(filters={"name": "bravo"})
    assert (listed.id, listed.stack_status, listed.tags) == (
        ids["bravo"],
        "CREATE_COMPLETE",
        ["x", "y"],
    )
    assert [s.stack_name for s in heat.stacks.list(filters={"status": "FAILED"})] == []
    by_name = heat.stacks.list(sort_keys="stack_name", sort_dir="asc")
    assert [s.stack_name for s in by_name] == ["alpha", "bravo", "charlie", "delta"]
    assert [s.stack_name for s in heat.stacks.list(tags="x")] == ["bravo", "alpha"]
    assert [s.stack_name for s in heat.stacks.list(tags="x,y")] == ["bravo"]
    assert [s.stack_name for s in heat.stacks.list(tags_any="x,y")] == [
        "charlie",
        "bravo",
        "alpha",
    ]
    assert [s.stack_name for s in heat.stacks.list(not_tags="x")] == ["delta", "charlie"]
    # Marker paging: each page starts strictly after the marker.
    pages, marker = [], None
    while True:
        page = list(heat.stacks.list(limit=1, **({"marker": marker} if marker else {})))
        if not page:
            break
        pages.append(page[0].stack_name)
        marker = page[0].id
    assert pages == newest_first
    # heatclient's own paging fetches pages until ``limit`` stacks arrived.
    assert [s.stack_name for s in heat.stacks.list(limit=3)] == newest_first[:3]
    with pytest.raises(heat_exc.HTTPBadRequest, match="sort direction"):
        list(heat.stacks.list(sort_dir="sideways"))


def test_update_put_patch_and_previews(heat: Any) -> None:
    stack_id = create(heat, "upd", parameters={"word": "one"})
    before = physical_ids(heat, "upd")

    preview = heat.stacks.preview(stack_name="upd2", template=TEMPLATE, parameters={"word": "p"})
    assert (preview.id, preview.stack_name) == ("None", "upd2")
    previewed = {r["resource_name"]: r for r in preview.resources}
    assert set(previewed) == {"first", "second"}
    assert previewed["first"]["properties"]["value"] == "p"
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get("upd2")

    changes = heat.stacks.preview_update(stack_id, template=TEMPLATE, parameters={"word": "two"})
    groups = changes["resource_changes"]
    assert [r["resource_name"] for r in groups["updated"]] == ["first"]
    assert [r["resource_name"] for r in groups["unchanged"]] == ["second"]
    assert groups["added"] == groups["deleted"] == groups["replaced"] == []
    patched = heat.stacks.preview_update("upd", existing=True, parameters={})
    assert {r["resource_name"] for r in patched["resource_changes"]["unchanged"]} == {
        "first",
        "second",
    }
    assert settled(heat, stack_id).stack_status == "CREATE_COMPLETE"

    heat.stacks.update(stack_id, template=TEMPLATE, parameters={"word": "two"}, tags="new")
    stack = settled(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"echo": "two"}
    assert stack.tags == ["new"]
    assert physical_ids(heat, "upd") == before  # updated in place

    heat.stacks.update("upd", existing=True, parameters={"word": "three"})
    stack = settled(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"echo": "three"}
    assert heat.stacks.template(stack_id) == TEMPLATE

    # PUT replaces the parameters: without ``word`` the default applies again.
    added = copy.deepcopy(TEMPLATE)
    added["resources"]["third"] = {"type": "OS::Heat::None"}
    heat.stacks.update(stack_id, template=added)
    stack = settled(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"echo": "hello"}
    assert set(physical_ids(heat, "upd")) == {"first", "second", "third"}
    with pytest.raises(heat_exc.HTTPBadRequest, match=r"resources\.bad\.type"):
        heat.stacks.update(
            stack_id, template={**TEMPLATE, "resources": {"bad": {"type": "OS::No::Such"}}}
        )


def test_validate(heat: Any) -> None:
    result = heat.stacks.validate(template=TEMPLATE, parameters={"word": "w"})
    assert result["Description"] == "Two resources in a chain"
    word = result["Parameters"]["word"]
    assert (word["Type"], word["Default"], word["Value"], word["NoEcho"]) == (
        "String",
        "hello",
        "w",
        "false",
    )
    with pytest.raises(heat_exc.HTTPBadRequest, match=r"resources\.x\.type"):
        heat.stacks.validate(template={**TEMPLATE, "resources": {"x": {"type": "OS::No::Such"}}})
    with pytest.raises(heat_exc.HTTPBadRequest, match="version"):
        heat.stacks.validate(template={"resources": {}})


def test_suspend_resume_check(heat: Any) -> None:
    stack_id = create(heat, "acts")
    heat.actions.suspend("acts")
    assert settled(heat, stack_id).stack_status == "SUSPEND_COMPLETE"
    assert {r.resource_status for r in heat.resources.list("acts")} == {"SUSPEND_COMPLETE"}
    heat.actions.resume(stack_id)
    assert settled(heat, stack_id).stack_status == "RESUME_COMPLETE"
    heat.actions.check(f"acts/{stack_id}")
    stack = settled(heat, stack_id)
    assert stack.stack_status == "CHECK_COMPLETE", stack.stack_status_reason
    assert {r.resource_status for r in heat.resources.list("acts")} == {"CHECK_COMPLETE"}
    with pytest.raises(heat_exc.HTTPConflict, match="CHECK_COMPLETE"):
        heat.actions.cancel_update("acts")


def test_cancel_update_rolls_back(heat: Any) -> None:
    stack_id = create(heat, "slow", slow_template(120), disable_rollback=False)
    heat.stacks.update(stack_id, existing=True, parameters={"word": "after"})
    assert heat.stacks.get(stack_id).stack_status == "UPDATE_IN_PROGRESS"
    started = time.monotonic()
    heat.actions.cancel_update("slow")
    stack = settled(heat, stack_id)
    assert time.monotonic() - started < 30, "the cancel did not reach the running update"
    assert stack.stack_status == "ROLLBACK_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"word": "before"}
    reasons = [
        e.resource_status_reason for e in heat.events.list("slow") if e.resource_name == "slow"
    ]
    # As Heat's convergence engine: the rollback starts at once, no UPDATE_FAILED.
    assert "Stack ROLLBACK started" in reasons
    assert "Stack UPDATE cancelled" not in reasons

    heat.stacks.update(stack_id, existing=True, parameters={"word": "again"})
    heat.actions.cancel_without_rollback(stack_id)
    stack = settled(heat, stack_id)
    assert stack.stack_status == "UPDATE_FAILED", stack.stack_status_reason


def test_resources_signal_metadata_health(
    heat: Any, shared_service: Orchestrator, own_tenant: str
) -> None:
    stack_id = str(heat.stacks.create(stack_name="waits", template=WAIT_TEMPLATE)["stack"]["id"])
    deadline = time.monotonic() + DEADLINE
    while heat.resources.get("waits", "waiter").resource_status != "CREATE_IN_PROGRESS":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert heat.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"

    listed = {r.resource_name: r for r in heat.resources.list("waits", nested_depth=2)}
    assert listed["handle"].required_by == ["waiter"]
    assert listed["handle"].resource_status == "CREATE_COMPLETE"
    assert listed["handle"].resource_type == "OS::Heat::WaitConditionHandle"
    assert listed["handle"].stack_name == "waits"
    assert {link["rel"] for link in listed["handle"].links} == {"self", "stack"}

    heat.resources.signal("waits", "handle", data={"id": "7", "data": "payload"})
    stack = settled(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"data": '{"7": "payload"}'}
    signals = heat.events.list("waits", resource_name="handle")
    assert [e.resource_status for e in signals][-1] == "SIGNAL_COMPLETE"
    with pytest.raises(heat_exc.HTTPBadRequest, match="does not accept signals"):
        heat.resources.signal("waits", "waiter", data={})

    # Resource show and metadata against what the engine stored.
    create(heat, "meta", parameters={"word": "m"})
    stored = shared_service.store.get_stack_by_name(own_tenant, "meta")
    first = heat.resources.get("meta", "first", with_attr=["output"])
    assert first.attributes["output"] == "m"
    assert first.physical_resource_id.startswith("meta-first-")
    assert first.resource_status == "CREATE_COMPLETE"
    detailed = {r.resource_name: r for r in heat.resources.list(stored.id, with_detail=True)}
    assert detailed["first"].physical_resource_id == first.physical_resource_id
    assert heat.resources.metadata("meta", "first") == {"role": "first"}
    assert heat.resources.metadata("meta", "second") == {}
    with pytest.raises(heat_exc.HTTPNotFound, match="nope"):
        heat.resources.get("meta", "nope")

    heat.resources.mark_unhealthy("meta", "first", True, "disk gone")
    marked = heat.resources.get("meta", "first")
    assert (marked.resource_status, marked.resource_status_reason) == ("CHECK_FAILED", "disk gone")
    heat.resources.mark_unhealthy(stored.id, "first", False, "")
    assert heat.resources.get("meta", "first").resource_status == "CHECK_COMPLETE"
    heat.resources.mark_unhealthy("meta", "first", True, "really gone")
    old = first.physical_resource_id
    heat.stacks.update(stored.id, existing=True, parameters={})
    assert settled(heat, stored.id).stack_status == "UPDATE_COMPLETE"
    replaced = heat.resources.get("meta", "first")
    assert replaced.physical_resource_id != old, "an unhealthy resource is replaced on update"
    assert replaced.resource_status.endswith("_COMPLETE")


def test_events_paging_and_detail(heat: Any) -> None:
    stack_id = create(heat, "evs")
    events = heat.events.list("evs")
    seen = [(e.resource_name, e.resource_status) for e in events]
    assert seen[0] == ("evs", "CREATE_IN_PROGRESS")
    assert seen[-1] == ("evs", "CREATE_COMPLETE")
    assert seen.index(("first", "CREATE_COMPLETE")) < seen.index(("second", "CREATE_IN_PROGRESS"))
    assert events[-1].physical_resource_id == stack_id
    stack_link = next(link for link in events[-1].links if link["rel"] == "stack")
    assert stack_link["href"].endswith(f"/stacks/evs/{stack_id}")

    ids = [e.id for e in events]
    paged, marker = [], None
    while True:
        page = heat.events.list(stack_id, limit=2, **({"marker": marker} if marker else {}))
        if not page:
            break
        paged.extend(e.id for e in page)
        marker = page[-1].id
    assert paged == ids
    assert [e.id for e in heat.events.list("evs", sort_dir="desc")] == ids[::-1]
    newest = heat.events.list("evs", limit=1, sort_dir="desc")
    assert [e.id for e in newest] == ids[-1:]
    assert [e.id for e in heat.events.list("evs", nested_depth=1)] == ids
    completed = heat.events.list("evs", filters={"resource_status": "CREATE_COMPLETE"})
    assert [e.resource_name for e in completed] == ["first", "second", "evs"]

    mine = heat.events.list("evs", resource_name="second")
    assert [e.resource_status for e in mine] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    shown = heat.events.get("evs", "second", mine[1].id)
    assert (shown.id, shown.resource_type, shown.resource_status) == (
        mine[1].id,
        "OS::Heat::TestResource",
        "CREATE_COMPLETE",
    )
    assert isinstance(shown.resource_properties, dict)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.events.list("evs", resource_name="nope")
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.events.get("evs", "second", "not-an-event")


def snapshot_done(heat: Any, stack: str, snapshot_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + DEADLINE
    while True:
        shown = heat.stacks.snapshot_show(stack, snapshot_id)["snapshot"]
        if shown["status"] != "IN_PROGRESS":
            return dict(shown)
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_snapshots_and_restore(heat: Any) -> None:
    stack_id = create(heat, "snaps", parameters={"word": "kept"})
    taken = heat.stacks.snapshot("snaps", "first-snap")
    assert (taken["name"], taken["action"]) == ("first-snap", "SNAPSHOT")
    snapshot = snapshot_done(heat, "snaps", taken["id"])
    assert snapshot["status"] == "COMPLETE", snapshot["status_reason"]
    assert snapshot["data"]["resources"].keys() == {"first", "second"}
    assert [s["id"] for s in heat.stacks.snapshot_list(stack_id)["snapshots"]] == [taken["id"]]
    assert settled(heat, stack_id).stack_status == "SNAPSHOT_COMPLETE"

    heat.stacks.update(stack_id, existing=True, parameters={"word": "changed"})
    assert outputs_of(settled(heat, stack_id)) == {"echo": "changed"}
    heat.stacks.restore("snaps", taken["id"])
    stack = settled(heat, stack_id)
    assert stack.stack_status == "RESTORE_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"echo": "kept"}

    heat.stacks.snapshot_delete("snaps", taken["id"])
    assert heat.stacks.snapshot_list("snaps")["snapshots"] == []
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.snapshot_show("snaps", taken["id"])


def test_export_abandon_adopt(heat: Any) -> None:
    stack_id = create(heat, "orig", parameters={"word": "adoptme"})
    ids = physical_ids(heat, "orig")
    exported = heat.stacks.export("orig")
    assert (exported["id"], exported["name"], exported["status"]) == (stack_id, "orig", "COMPLETE")
    assert {n: r["resource_id"] for n, r in exported["resources"].items()} == ids
    assert heat.stacks.get("orig").stack_status == "CREATE_COMPLETE"

    abandoned = heat.stacks.abandon("orig")
    assert abandoned["resources"]["first"]["resource_data"] == {"value": "adoptme"}
    settled(heat, stack_id)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get("orig")

    adopted_id = create(heat, "adopted", adopt_stack_data=abandoned)
    adopted = heat.stacks.get(adopted_id)
    assert adopted.stack_status == "ADOPT_COMPLETE", adopted.stack_status_reason
    assert physical_ids(heat, "adopted") == ids
    assert outputs_of(adopted) == {"echo": "adoptme"}


def test_delete(heat: Any) -> None:
    stack_id = create(heat, "doomed")
    heat.stacks.delete("doomed")
    gone = settled(heat, stack_id)
    assert gone is not None
    assert gone.stack_status == "DELETE_COMPLETE"
    assert gone.deletion_time is not None
    with pytest.raises(heat_exc.HTTPNotFound, match=r"The Stack \(doomed\) could not be found"):
        heat.stacks.get("doomed")
    assert list(heat.stacks.list()) == []
    assert [s.id for s in heat.stacks.list(show_deleted=True)] == [stack_id]
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.delete(stack_id)


def test_catalog_and_build_info(heat: Any) -> None:
    types = heat.resource_types.list()
    names = [t.resource_type for t in types]
    assert {"OS::Heat::TestResource", "OS::Heat::WaitCondition"} <= set(names)
    found = heat.resource_types.list(filters={"name": "OS::Heat::WaitCondition"})
    assert [t.resource_type for t in found] == [
        "OS::Heat::WaitCondition",
        "OS::Heat::WaitConditionHandle",
    ]
    schema = heat.resource_types.get("OS::Heat::TestResource")
    assert schema["resource_type"] == "OS::Heat::TestResource"
    assert schema["properties"]["value"]["default"] == "test_string"
    assert "output" in schema["attributes"]
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.resource_types.get("OS::No::Such")
    hot = heat.resource_types.generate_template("OS::Heat::TestResource", template_type="hot")
    (resource,) = hot["resources"].values()
    assert resource["type"] == "OS::Heat::TestResource"
    assert heat.stacks.validate(template=hot)["Parameters"]["value"]["Default"] == "test_string"
    cfn = heat.resource_types.generate_template("OS::Heat::TestResource")
    assert cfn["AWSTemplateFormatVersion"] == "2010-09-09"
    assert "value" in heat.stacks.validate(template=cfn)["Parameters"]

    versions = {v.version: v.type for v in heat.template_versions.list()}
    assert versions["heat_template_version.2018-08-31"] == "hot"
    assert versions["AWSTemplateFormatVersion.2010-09-09"] == "cfn"
    functions = heat.template_versions.get("heat_template_version.2018-08-31")
    assert {"get_param", "get_attr", "str_replace"} <= {f.functions for f in functions}
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.template_versions.get("heat_template_version.1999-01-01")

    info = heat.build_info.build_info()
    assert info["api"]["revision"] == info["engine"]["revision"]
    with pytest.raises(heat_exc.HTTPForbidden, match="administrators"):
        heat.services.list()


def test_software_configs_and_deployments(heat: Any) -> None:
    config = heat.software_configs.create(
        name="hello",
        group="script",
        config="#!/bin/sh\necho $greeting",
        inputs=[{"name": "greeting"}],
        outputs=[{"name": "result", "description": "what it said"}],
        options={"debug": True},
    )
    assert config.inputs == [{"name": "greeting", "type": "String"}]
    assert config.outputs == [
        {"name": "result", "description": "what it said", "type": "String", "error_output": False}
    ]
    shown = heat.software_configs.get(config.id)
    assert (shown.name, shown.group, shown.options) == ("hello", "script", {"debug": True})
    other = heat.software_configs.create(name="zzz", group="Heat::Ungrouped", config={"a": 1})
    listed = [c.id for c in heat.software_configs.list()]
    assert set(listed) == {config.id, other.id}
    assert [c.id for c in heat.software_configs.list(limit=1)] == listed[:1]
    assert [c.id for c in heat.software_configs.list(marker=listed[0])] == listed[1:]

    deployment = heat.software_deployments.create(
        config_id=config.id,
        server_id="server-1",
        action="CREATE",
        status="IN_PROGRESS",
        input_values={"greeting": "hi"},
    )
    assert (deployment.status, deployment.input_values) == ("IN_PROGRESS", {"greeting": "hi"})
    second = heat.software_deployments.create(
        config_id=other.id, server_id="server-1", action="CREATE", status="COMPLETE"
    )
    elsewhere = heat.software_deployments.create(
        config_id=other.id, server_id="server-2", action="CREATE"
    )
    updated = heat.software_deployments.update(
        deployment.id,
        status="COMPLETE",
        status_reason="Outputs received",
        output_values={"result": "hi", "deploy_status_code": 0},
    )
    assert (updated.status, updated.output_values["result"]) == ("COMPLETE", "hi")
    assert heat.software_deployments.get(deployment.id).status_reason == "Outputs received"
    on_one = heat.software_deployments.list(server_id="server-1")
    assert {d.id for d in on_one} == {deployment.id, second.id}
    metadata = heat.software_deployments.metadata(server_id="server-1")
    assert [entry["name"] for entry in metadata] == ["hello", "zzz"]
    assert metadata[0]["config"] == "#!/bin/sh\necho $greeting"

    with pytest.raises(heat_exc.HTTPConflict, match="used by a deployment"):
        heat.software_configs.delete(other.id)
    heat.software_deployments.delete(second.id)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.software_deployments.get(second.id)
    heat.software_deployments.delete(elsewhere.id)
    heat.software_configs.delete(other.id)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.software_configs.get(other.id)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.software_deployments.create(config_id=other.id, server_id="s", action="CREATE")
