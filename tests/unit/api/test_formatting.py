"""Views to Heat's JSON: the parts the route tests do not reach."""

from __future__ import annotations

import datetime

import pytest

from thermik.api import formatting
from thermik.api.boundary import (
    EventView,
    ResourceView,
    StackIdentity,
    StackPreview,
    StackView,
)
from thermik.api.links import Links
from thermik.api.responses import dumps, isotime

LINKS = Links(root="http://h:1/v1", tenant="t 1")
PARENT = StackIdentity("parent", "p-id")
CHILD = StackIdentity("parent-web-x", "c-id")


def test_isotime_converts_to_utc() -> None:
    tz = datetime.timezone(datetime.timedelta(hours=2))
    assert isotime(datetime.datetime(2026, 5, 1, 12, 0, 3, tzinfo=tz)) == "2026-05-01T10:00:03Z"
    assert isotime(datetime.datetime(2026, 5, 1, 12, 0, 3)) == "2026-05-01T12:00:03Z"
    assert isotime(None) is None


def test_dumps_renders_times_and_sets_and_refuses_nan() -> None:
    when = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
    assert dumps({"t": when, "s": frozenset({"b", "a"})}) == (
        '{"t": "2026-01-02T00:00:00Z", "s": ["a", "b"]}'
    )
    with pytest.raises(ValueError, match="Out of range float"):
        dumps(float("nan"))
    with pytest.raises(TypeError, match="object is not JSON serialisable"):
        dumps(object())


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("x", "x"),
        (3, "3"),
        (True, "True"),
        (["a", 1], "a,1"),
        ({"b": 1, "a": 2}, '{"a": 2, "b": 1}'),
    ],
)
def test_parameter_text(value: object, text: str) -> None:
    assert formatting.parameter_text(value) == text


def test_links_quote_segments() -> None:
    assert LINKS.stack(StackIdentity("a/b", "1")) == "http://h:1/v1/t%201/stacks/a%2Fb/1"


def test_nested_resource_links_and_parent() -> None:
    view = ResourceView(
        name="web",
        stack=CHILD,
        type="OS::Heat::Stack",
        action="CREATE",
        status="COMPLETE",
        physical_resource_id=None,
        nested_stack=StackIdentity("grandchild", "g-id"),
        parent_resource="web",
    )
    document = formatting.resource(view, LINKS, detail=False)
    assert document["physical_resource_id"] == ""
    assert document["parent_resource"] == "web"
    assert document["links"] == [
        {"href": "http://h:1/v1/t%201/stacks/parent-web-x/c-id/resources/web", "rel": "self"},
        {"href": "http://h:1/v1/t%201/stacks/parent-web-x/c-id", "rel": "stack"},
        {"href": "http://h:1/v1/t%201/stacks/grandchild/g-id", "rel": "nested"},
    ]
    assert document["links"][1]["href"].split("/")[-2] == "parent-web-x"


def test_event_root_stack_link() -> None:
    view = EventView(
        id="e1",
        stack=CHILD,
        resource_name="r",
        resource_type="T",
        action="CREATE",
        status="FAILED",
        root_stack=PARENT,
    )
    links = formatting.event(view, LINKS, detail=True)["links"]
    assert links[-1] == {"href": "http://h:1/v1/t%201/stacks/parent/p-id", "rel": "root_stack"}


def test_preview_keeps_nested_lists() -> None:
    stack = StackView(identity=PARENT, action="INIT", status="COMPLETE")
    leaf = ResourceView(name="a", stack=PARENT, type="T", action="INIT", status="COMPLETE")
    nested = ResourceView(name="b", stack=CHILD, type="T", action="INIT", status="COMPLETE")
    document = formatting.stack_preview(StackPreview(stack, (leaf, [nested, [nested]])), LINKS)
    assert document["id"] == "None"
    assert document["parameters"]["OS::stack_id"] == "None"
    first, (second, (third,)) = document["resources"]
    assert (first["resource_name"], second["resource_name"], third["resource_name"]) == (
        "a",
        "b",
        "b",
    )
