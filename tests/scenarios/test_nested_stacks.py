"""Template resources and OS::Heat::Stack as child stacks of the same engine (real runtime)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from tests.scenarios.runtime_harness import HOT, Harness, harness_on, wait_until
from thermik.conf.settings import LimitSettings
from thermik.engine.states import Action
from thermik.persistence.values import NewStack, Stack, StackQuery

#: Innermost: a test resource whose value comes from a parameter.
GRANDCHILD = {
    "heat_template_version": HOT,
    "parameters": {"word": {"type": "string"}},
    "resources": {
        "leaf": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_param": "word"}}}
    },
    "outputs": {"said": {"value": {"get_attr": ["leaf", "output"]}}},
}
#: Middle: a template resource of the grandchild, its output read by a sibling and an output.
CHILD = {
    "heat_template_version": HOT,
    "parameters": {
        "word": {"type": "string"},
        "fail": {"type": "boolean", "default": False},
    },
    "resources": {
        "inner": {"type": "grandchild.yaml", "properties": {"word": {"get_param": "word"}}},
        "echo": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": {"list_join": ["-", [{"get_attr": ["inner", "said"]}, "echo"]]},
                "fail": {"get_param": "fail"},
            },
        },
    },
    "outputs": {
        "said": {"value": {"get_attr": ["echo", "output"]}},
        "inner_id": {"value": {"get_resource": "inner"}},
    },
}
FILES = {"child.yaml": json.dumps(CHILD), "grandchild.yaml": json.dumps(GRANDCHILD)}


def parent_template(word: str = "hello", **child_props: Any) -> dict[str, Any]:
    """A parent whose resource ``child`` is a template resource; a sibling and an output
    read the child's output."""
    return {
        "heat_template_version": HOT,
        "resources": {
            "child": {"type": "child.yaml", "properties": {"word": word, **child_props}},
            "user": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"get_attr": ["child", "said"]}},
            },
        },
        "outputs": {
            "said": {"value": {"get_attr": ["child", "said"]}},
            "ref": {"value": {"get_resource": "child"}},
            "child_id": {"value": {"get_attr": ["child", "OS::stack_id"]}},
            "echo": {"value": {"get_attr": ["child", "resource.echo", "output"]}},
            "echo_dotted": {"value": {"get_attr": ["child", "resource.echo.output"]}},
        },
    }


@pytest.fixture
def nested(sqlite_url: str) -> Iterator[Harness]:
    """A harness whose runtime has the nested-stack services."""
    with harness_on(sqlite_url, nested=True) as started:
        yield started


def store_stack(
    harness: Harness,
    template: Mapping[str, Any],
    *,
    name: str = "top",
    files: Mapping[str, str] = FILES,
    environment: Mapping[str, Any] | None = None,
) -> str:
    """Store a top-level stack as the service does."""
    template_id = harness.store.store_raw_template(template, environment or {}, files)
    return harness.store.create_stack(NewStack(name, "tenant", template_id)).id


def tree(harness: Harness, root_id: str) -> list[Stack]:
    """Every live stack of the tree, shallowest first."""
    return harness.store.list_stack_tree(root_id)


def outputs(harness: Harness, stack_id: str) -> dict[str, Any]:
    """The stack's resolved outputs (through the engine's own resolution)."""
    services = harness.runtime._services.nested
    assert services is not None
    return dict(services.outputs(None, stack_id))  # type: ignore[arg-type]


def test_create_and_delete_two_levels_deep(nested: Harness) -> None:
    stack_id = store_stack(nested, parent_template())
    assert nested.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", nested.reason(stack_id)
    stacks = tree(nested, stack_id)
    assert [s.nested_depth for s in stacks] == [0, 1, 2]
    top, child, grandchild = stacks
    assert child.owner_id == top.id
    assert grandchild.owner_id == child.id
    assert grandchild.root_id == top.id
    assert (child.parent_resource_name, grandchild.parent_resource_name) == ("child", "inner")
    assert child.name.startswith("top-child-")
    assert all(s.action == "CREATE" and s.status == "COMPLETE" for s in stacks)
    # Outputs travel up as attributes: grandchild -> child -> parent resource and outputs.
    assert nested.value_of(stack_id, "user") == "hello-echo"
    found = outputs(nested, stack_id)
    assert found["said"] == "hello-echo"
    assert found["child_id"] == child.id
    assert found["echo"] == found["echo_dotted"] == "hello-echo"
    assert found["ref"] == f"arn:openstack:heat::tenant:stacks/{child.name}/{child.id}"
    assert nested.live(stack_id)["child"].physical_resource_id == child.id

    assert nested.run(stack_id, Action.DELETE) == "DELETE_COMPLETE", nested.reason(stack_id)
    for stack in stacks:
        gone = nested.store.get_stack(stack.id, show_deleted=True)
        assert (gone.action, gone.status) == ("DELETE", "COMPLETE")
        assert gone.deleted_at is not None


def test_update_reaches_the_child_and_new_outputs_flow_up(nested: Harness) -> None:
    stack_id = store_stack(nested, parent_template("hello"))
    assert nested.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", nested.reason(stack_id)
    child_before = tree(nested, stack_id)[1]
    template_id = nested.store.store_raw_template(parent_template("bye"), {}, FILES)
    state = nested.run(stack_id, Action.UPDATE, template_id)
    assert state == "UPDATE_COMPLETE", nested.reason(stack_id)
    stacks = tree(nested, stack_id)
    # Updated in place, the whole tree: the same child, now UPDATE_COMPLETE.
    assert [s.id for s in stacks][1] == child_before.id
    assert all((s.action, s.status) == ("UPDATE", "COMPLETE") for s in stacks)
    assert nested.value_of(stack_id, "user") == "bye-echo"
    assert outputs(nested, stack_id)["said"] == "bye-echo"


def test_a_failure_in_the_child_fails_the_parent_resource_with_its_reason(
    nested: Harness,
) -> None:
    stack_id = store_stack(nested, parent_template(fail=True))
    assert nested.run(stack_id, Action.CREATE) == "CREATE_FAILED"
    child = tree(nested, stack_id)[1]
    assert (child.action, child.status) == ("CREATE", "FAILED")
    row = nested.live(stack_id)["child"]
    assert (row.action, row.status) == ("CREATE", "FAILED")
    # Heat's wording: the child's failure re-rooted under the parent's resource.
    assert child.status_reason == (
        "Resource CREATE failed: ValueError: resources.echo: Test Resource failed echo"
    )
    assert row.status_reason == (
        "ValueError: resources.child.resources.echo: Test Resource failed echo"
    )
    assert nested.reason(stack_id) == f"Resource CREATE failed: {row.status_reason}"
    events = nested.events(stack_id)
    assert ("child", "CREATE", "FAILED", row.status_reason) in events
    # The user of the child's output never ran.
    assert nested.states(stack_id)["user"] == "INIT_COMPLETE"


def test_rollback_of_the_parent_deletes_the_child(nested: Harness) -> None:
    template = parent_template()
    template["resources"]["bad"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"fail": True},
        "depends_on": ["child"],
    }
    template_id = nested.store.store_raw_template(template, {}, FILES)
    stack_id = nested.store.create_stack(
        NewStack("top", "tenant", template_id, disable_rollback=False)
    ).id
    assert nested.run(stack_id, Action.CREATE) == "ROLLBACK_COMPLETE", nested.reason(stack_id)
    assert tree(nested, stack_id) == [nested.store.get_stack(stack_id)]
    query = StackQuery(tenant=None, show_deleted=True, show_nested=True)
    children = [s for s in nested.store.list_stacks(query) if s.owner_id == stack_id]
    assert [(s.action, s.status) for s in children] == [("DELETE", "COMPLETE")]


def test_cancel_of_the_parent_reaches_the_child(nested: Harness) -> None:
    slow = dict(GRANDCHILD)
    slow["resources"] = {
        "leaf": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "word"}, "wait_secs": -1},
        }
    }
    files = {**FILES, "grandchild.yaml": json.dumps(slow)}
    stack_id = store_stack(nested, parent_template(), files=files)
    nested.converge(stack_id, Action.CREATE)
    wait_until(lambda: len(tree(nested, stack_id)) == 3)
    nested.runtime.cancel(stack_id, rollback=False)
    assert nested.wait(stack_id) == "CREATE_FAILED"
    for stack in tree(nested, stack_id)[1:]:
        assert nested.wait(stack.id) == "CREATE_FAILED", stack.name
    for stack in tree(nested, stack_id):
        assert nested.locked(stack.id) == []


def test_suspend_and_resume_reach_every_level(nested: Harness) -> None:
    stack_id = store_stack(nested, parent_template())
    assert nested.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", nested.reason(stack_id)
    assert nested.run(stack_id, Action.SUSPEND) == "SUSPEND_COMPLETE", nested.reason(stack_id)
    assert {(s.action, s.status) for s in tree(nested, stack_id)} == {("SUSPEND", "COMPLETE")}
    assert nested.run(stack_id, Action.RESUME) == "RESUME_COMPLETE", nested.reason(stack_id)
    assert {(s.action, s.status) for s in tree(nested, stack_id)} == {("RESUME", "COMPLETE")}
    assert nested.run(stack_id, Action.CHECK) == "CHECK_COMPLETE", nested.reason(stack_id)
    assert {(s.action, s.status) for s in tree(nested, stack_id)} == {("CHECK", "COMPLETE")}
    snapshot = nested.store.create_snapshot(stack_id, "tenant", "snap")
    state = nested.run(stack_id, Action.SNAPSHOT, snapshot_id=snapshot.id)
    assert state == "SNAPSHOT_COMPLETE", nested.reason(stack_id)
    assert {(s.action, s.status) for s in tree(nested, stack_id)} == {("SNAPSHOT", "COMPLETE")}
    for child in tree(nested, stack_id)[1:]:
        snapshots = nested.store.list_snapshots(child.id)
        assert [s.status for s in snapshots] == ["COMPLETE"]


def test_a_failed_update_rolls_the_child_back_to_its_old_template(sqlite_url: str) -> None:
    with harness_on(sqlite_url, nested=True) as h:
        template_id = h.store.store_raw_template(parent_template("hello"), {}, FILES)
        stack_id = h.store.create_stack(
            NewStack("top", "tenant", template_id, disable_rollback=False)
        ).id
        assert h.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", h.reason(stack_id)
        failing = parent_template("bye")
        failing["resources"]["user"]["properties"]["fail"] = True
        new_id = h.store.store_raw_template(failing, {}, FILES)
        assert h.run(stack_id, Action.UPDATE, new_id) == "ROLLBACK_COMPLETE", h.reason(stack_id)
        child = tree(h, stack_id)[1]
        assert (child.action, child.status) == ("UPDATE", "COMPLETE")
        assert outputs(h, child.id)["said"] == "hello-echo"
        assert outputs(h, stack_id)["said"] == "hello-echo"


def test_the_depth_limit_fails_the_resource_that_would_go_deeper(sqlite_url: str) -> None:
    with harness_on(sqlite_url, nested=True, limits=LimitSettings(max_nested_stack_depth=1)) as h:
        stack_id = store_stack(h, parent_template())
        assert h.run(stack_id, Action.CREATE) == "CREATE_FAILED"
        assert "Recursion depth exceeds 1." in h.reason(stack_id)
        assert [s.nested_depth for s in tree(h, stack_id)] == [0, 1]


def test_the_parent_is_woken_by_the_child_not_by_a_poll(sqlite_url: str) -> None:
    slow = dict(GRANDCHILD)
    slow["resources"] = {
        "leaf": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "word"}, "wait_secs": 0.5},
        }
    }
    files = {**FILES, "grandchild.yaml": json.dumps(slow)}
    # Polls every hour: only the children's completion messages can end this in time.
    with harness_on(sqlite_url, nested=True, fallback_poll=3600.0) as h:
        stack_id = store_stack(h, parent_template(), files=files)
        assert h.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", h.reason(stack_id)
        assert h.run(stack_id, Action.DELETE) == "DELETE_COMPLETE", h.reason(stack_id)


STACK_CHILD = {
    "heat_template_version": HOT,
    "parameters": {"word": {"type": "string"}},
    "resources": {"get_file_user": {"type": "child.yaml", "properties": {"word": "x"}}},
    "outputs": {"said": {"value": {"get_attr": ["get_file_user", "said"]}}},
}


def test_os_heat_stack_runs_a_local_child(nested: Harness) -> None:
    template = {
        "heat_template_version": HOT,
        "resources": {
            "sub": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "template": json.dumps(STACK_CHILD),
                    "parameters": {"word": "unused"},
                },
            }
        },
        "outputs": {
            "name": {"value": {"get_attr": ["sub", "stack_name"]}},
            "outputs": {"value": {"get_attr": ["sub", "outputs"]}},
            "id": {"value": {"get_resource": "sub"}},
        },
    }
    stack_id = store_stack(nested, template)
    assert nested.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", nested.reason(stack_id)
    stacks = tree(nested, stack_id)
    assert len(stacks) == 4  # OS::Heat::Stack -> child.yaml -> grandchild.yaml
    found = outputs(nested, stack_id)
    assert found["name"] == stacks[1].name
    assert found["id"] == stacks[1].id
    assert found["outputs"] == {"said": "x-echo"}
    assert nested.run(stack_id, Action.DELETE) == "DELETE_COMPLETE", nested.reason(stack_id)
    assert tree(nested, stack_id) == []


def test_os_heat_stack_fails_a_remote_stack_without_a_cloud(nested: Harness) -> None:
    template = {
        "heat_template_version": HOT,
        "resources": {
            "sub": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "context": {"region_name": "elsewhere"},
                    "template": json.dumps(GRANDCHILD),
                },
            }
        },
    }
    stack_id = store_stack(nested, template)
    assert nested.run(stack_id, Action.CREATE) == "CREATE_FAILED"
    assert "OS::Heat::Stack needs an OpenStack cloud" in nested.reason(stack_id)
    assert tree(nested, stack_id) == [nested.store.get_stack(stack_id)]


FACADE_CHILD = {
    "heat_template_version": HOT,
    "resources": {
        "meta": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"resource_facade": "metadata"}},
        },
        "policy": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"resource_facade": "deletion_policy"}},
        },
    },
    "outputs": {
        "meta": {"value": {"get_attr": ["meta", "value"]}},
        "policy": {"value": {"get_attr": ["policy", "output"]}},
    },
}


def test_resource_facade_reads_the_parent_resource(nested: Harness) -> None:
    template = {
        "heat_template_version": HOT,
        "resources": {
            "web": {
                "type": "facade.yaml",
                "metadata": {"role": "web", "peer": {"get_resource": "peer"}},
                "deletion_policy": "Retain",
            },
            "peer": {"type": "OS::Heat::TestResource"},
        },
        "outputs": {
            "meta": {"value": {"get_attr": ["web", "meta"]}},
            "policy": {"value": {"get_attr": ["web", "policy"]}},
        },
    }
    stack_id = store_stack(nested, template, files={"facade.yaml": json.dumps(FACADE_CHILD)})
    assert nested.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", nested.reason(stack_id)
    peer = nested.live(stack_id)["peer"].physical_resource_id
    assert outputs(nested, stack_id) == {"meta": {"role": "web", "peer": peer}, "policy": "Retain"}


def test_a_restarted_engine_finishes_a_tree_the_stopped_one_started(sqlite_url: str) -> None:
    slow = dict(GRANDCHILD)
    slow["resources"] = {
        "leaf": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "word"}, "wait_secs": 1.0},
        }
    }
    files = {**FILES, "grandchild.yaml": json.dumps(slow)}
    with harness_on(sqlite_url, nested=True) as first:
        stack_id = store_stack(first, parent_template(), files=files)
        first.converge(stack_id, Action.CREATE)
        wait_until(lambda: len(tree(first, stack_id)) == 3)
    # Short safety-net polls: the parents resumed by the new engine were suspended while
    # their children ran, and nobody else will tell them.
    with harness_on(sqlite_url, nested=True, fallback_poll=0.5) as again:
        assert again.wait(stack_id) == "CREATE_COMPLETE", again.reason(stack_id)
        for stack in tree(again, stack_id):
            # A resumed create converges its row once more, which updates a child in place
            # (to the same template: nothing changes in it).
            assert again.wait(stack.id) in ("CREATE_COMPLETE", "UPDATE_COMPLETE"), stack.name
            assert again.locked(stack.id) == []
            # A clean stop fails nothing: every interrupted action resumed.
            assert [e for e in again.events(stack.id) if e[2] == "FAILED"] == []
        assert again.value_of(stack_id, "user") == "hello-echo"
