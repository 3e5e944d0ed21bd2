"""Previews: what a create would make, and what an update would do to each resource."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from tests.unit.orchestration.conftest import CTX, TEMPLATE, WAIT, create, request
from thermik.api.boundary import ListQuery, ResourceChanges, StackRequest, StackUpdate
from thermik.conf.settings import Settings
from thermik.errors import PropertyError
from thermik.orchestration import Orchestrator
from thermik.resources import (
    Progress,
    PropertiesSchema,
    PropertySchema,
    Props,
    ResourceContext,
    ResourcePlugin,
    Type,
)
from thermik.service import start_engine


def names(changes: ResourceChanges) -> dict[str, list[str]]:
    kinds = ("added", "deleted", "replaced", "updated", "unchanged")
    return {kind: sorted(v.name for v in getattr(changes, kind)) for kind in kinds}


def test_preview_create_shows_resources_and_stores_nothing(service: Orchestrator) -> None:
    preview = service.preview_stack(CTX, request(parameters={"word": "hi"}))
    assert (preview.stack.identity.name, preview.stack.identity.id) == ("s1", "None")
    assert preview.stack.parameters["word"] == "hi"
    resources = {r.name: r for r in preview.resources if not isinstance(r, list | tuple)}
    assert list(resources) == ["first", "password", "second"]
    assert resources["first"].properties is not None
    assert resources["first"].properties["value"] == "hi"
    assert resources["second"].properties is not None
    assert resources["second"].properties["value"] is None
    assert resources["first"].required_by == ("second",)
    assert service.list_stacks(CTX, ListQuery()).items == ()


def test_preview_update_classifies_every_resource(service: Orchestrator) -> None:
    stack = create(service)
    template = copy.deepcopy(TEMPLATE)
    del template["resources"]["second"]
    template["outputs"] = {}
    template["resources"]["third"] = {"type": "OS::Heat::None"}
    template["resources"]["first"]["properties"]["update_replace"] = False
    template["parameters"]["size"]["immutable"] = False
    update = StackUpdate(StackRequest(template=template, parameters={"word": "bye"}))
    assert names(service.preview_update(CTX, stack, update)) == {
        "added": ["third"],
        "deleted": ["second"],
        "replaced": [],
        "updated": ["first"],
        "unchanged": ["password"],
    }
    template["resources"]["first"]["properties"]["update_replace"] = True
    replace = StackUpdate(StackRequest(template=template, parameters={"word": "bye", "size": 9}))
    assert names(service.preview_update(CTX, stack, replace))["replaced"] == ["first", "password"]
    view = service.show_stack(CTX, stack)
    assert (view.action, view.status, view.parameters["word"]) == ("CREATE", "COMPLETE", "hello")


def test_preview_update_of_nothing_changes_nothing(service: Orchestrator) -> None:
    stack = create(service)
    changes = service.preview_update(CTX, stack, StackUpdate(StackRequest(), existing=True))
    assert names(changes)["unchanged"] == ["first", "password", "second"]


class Pinned(ResourcePlugin):
    """A resource with an immutable property."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "zone": PropertySchema(Type.STRING, "Where it is", immutable=True)
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        ctx.set_physical_id(f"pinned-{props['zone']}")
        return None


@pytest.fixture
def pinned_service(settings: Settings) -> Iterator[Orchestrator]:
    engine = start_engine(settings)
    engine.registry.register("Test::Pinned", Pinned)
    built = Orchestrator(engine.store, engine.registry, engine.runtime, settings.limits)
    try:
        yield built
    finally:
        built.close()


def pinned(zone: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"pin": {"type": "Test::Pinned", "properties": {"zone": zone}}},
    }


def test_preview_update_refuses_immutable_property_changes(pinned_service: Orchestrator) -> None:
    stack = pinned_service.create_stack(CTX, request(template=pinned("a")))
    pinned_service.runtime.wait(stack.id, WAIT)
    same = StackUpdate(StackRequest(template=pinned("a")))
    assert names(pinned_service.preview_update(CTX, stack, same))["unchanged"] == ["pin"]
    moved = StackUpdate(StackRequest(template=pinned("b")))
    with pytest.raises(PropertyError, match=r"Update to properties zone of pin .* not supported"):
        pinned_service.preview_update(CTX, stack, moved)


NESTED = """
heat_template_version: 2015-04-30
parameters:
  value:
    type: string
resources:
  inner:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
"""


def test_preview_resource_as_heat_shows_it(service: Orchestrator) -> None:
    preview = service.preview_stack(CTX, request(parameters={"word": "hi"}))
    first = next(r for r in preview.resources if not isinstance(r, list | tuple))
    assert first.name == "first"
    assert (first.action, first.status, first.stack.name, first.stack.id) == (
        "INIT",
        "COMPLETE",
        "s1",
        "None",
    )
    assert first.properties is not None
    # The schema's defaults filled in, as the resource would get them.
    assert (first.properties["fail"], first.properties["wait_secs"]) == (False, 0)
    assert first.attributes is not None
    assert "output" in first.attributes


def test_preview_nests_template_resources_and_group_members(service: Orchestrator) -> None:
    template = {
        "heat_template_version": "2015-04-30",
        "resources": {
            "main": {"type": "nested.yaml", "properties": {"value": "abc"}},
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "resource_def": {"type": "nested.yaml", "properties": {"value": "x"}},
                },
            },
        },
    }
    files = {"nested.yaml": NESTED}
    preview = service.preview_stack(CTX, StackRequest(name="s1", template=template, files=files))
    by_shape = {type(node).__name__: node for node in preview.resources}
    assert set(by_shape) == {"list"}
    main, group = sorted(preview.resources, key=lambda node: len(str(node)))
    assert isinstance(main, list)
    (inner,) = main
    assert (inner.name, inner.stack.name, inner.parent_resource) == ("inner", "s1-main", "main")
    assert inner.properties["value"] == "abc"
    # The group's nested stack holds its members, each a nested stack of its own.
    (members,) = group
    assert [[r.stack.name for r in member] for member in members] == [
        ["s1-group-0"],
        ["s1-group-1"],
    ]


def test_preview_says_a_property_error_as_heat_does(service: Orchestrator) -> None:
    template = copy.deepcopy(TEMPLATE)
    template["resources"]["first"]["properties"]["value"] = {"get_param": "missing"}
    with pytest.raises(PropertyError) as preview:
        service.preview_stack(CTX, StackRequest(name="s1", template=template))
    assert str(preview.value) == (
        "Property error: : resources.first.properties.value: : "
        "The Parameter (missing) was not provided."
    )
    # A create says it once (Heat's validation error).
    with pytest.raises(PropertyError) as created:
        service.create_stack(CTX, StackRequest(name="s1", template=template))
    assert str(created.value) == (
        "Property error: resources.first.properties.value: "
        "The Parameter (missing) was not provided."
    )
