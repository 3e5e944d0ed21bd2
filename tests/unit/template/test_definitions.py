"""Stack definitions: resource fields, dependencies, cycles, outputs and resolution."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.template.support import MemoryContext, hot, make_stack
from thermik.errors import CircularDependency, FunctionError, TemplateError
from thermik.template import Identity, Template, build_stack, deletion_policies, is_unresolved

NONE = "OS::Heat::None"


def test_resource_definition_fields() -> None:
    body = {
        "parameters": {"policy": {"type": "string", "default": "retain"}},
        "resources": {
            "a": {"type": NONE},
            "b": {
                "type": NONE,
                "properties": {"x": {"get_resource": "a"}, "y": {"get_param": "policy"}},
                "metadata": {"m": {"get_attr": ["a", "z"]}},
                "depends_on": "a",
                "deletion_policy": {"get_param": "policy"},
                "update_policy": {"batch": 2},
                "description": "the b",
            },
        },
    }
    b = make_stack(body).resources["b"]
    assert (b.name, b.type, b.depends_on, b.deletion_policy) == ("b", NONE, ("a",), "Retain")
    assert b.description == "the b"
    assert is_unresolved(b.properties["x"])
    assert not is_unresolved(b.properties["y"])
    assert b.requires() == {"a"}
    assert b.resolved.implementation == NONE


def test_deletion_policies_read_without_building_the_definitions() -> None:
    body = {
        "parameters": {"policy": {"type": "string", "default": "retain"}},
        "conditions": {"never": False},
        "resources": {
            "a": {"type": NONE},
            "b": {"type": NONE, "deletion_policy": {"get_param": "policy"}, "depends_on": "a"},
            "e": {"type": NONE, "external_id": "uuid"},
            "off": {"type": NONE, "condition": "never", "deletion_policy": "Retain"},
            "s": {"type": "Unknown::Type", "deletion_policy": "snapshot"},
        },
    }
    template = Template.from_document(hot(body))
    policies = deletion_policies(template, identity=Identity(stack_name="s"))
    assert policies == {"a": "Delete", "b": "Retain", "e": "Retain", "s": "Snapshot"}


def test_defaults() -> None:
    a = make_stack({"resources": {"a": {"type": NONE}}}).resources["a"]
    assert (a.properties, a.metadata, a.update_policy, a.external_id) == (None, None, None, None)
    assert (a.deletion_policy, a.description, a.depends_on, a.condition) == (
        "Delete",
        "",
        (),
        None,
    )


def test_external_id_means_retain_and_no_dependencies() -> None:
    body = {"resources": {"a": {"type": NONE},
                          "e": {"type": NONE, "external_id": "uuid", "properties": {
                              "x": {"get_resource": "a"}}}}}  # fmt: skip
    stack = make_stack(body)
    assert stack.resources["e"].deletion_policy == "Retain"
    assert stack.dependencies()["e"] == frozenset()


def test_external_id_may_not_have_depends_on() -> None:
    body = {"resources": {"a": {"type": NONE}, "e": {"type": NONE, "external_id": "x",
                                                    "depends_on": "a"}}}  # fmt: skip
    with pytest.raises(TemplateError, match="Invalid dependency with external OS::Heat::None"):
        make_stack(body)


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        (
            {"type": NONE, "depends_on": ["zz"]},
            'resources.r.depends_on: The specified reference "zz" (in r) is incorrect: '
            "the resource is not defined",
        ),
        (
            {"type": NONE, "depends_on": {"a": 1}},
            "resources.r.depends_on: must be a resource name or a list of resource names",
        ),
        (
            {"type": NONE, "depends_on": [{"a": 1}]},
            "resources.r.depends_on: must be a resource name or a list of resource names",
        ),
        (
            {"type": NONE, "properties": None},
            "resources.r.properties: properties must be a map, not a NoneType",
        ),
        (
            {"type": NONE, "properties": [1]},
            "resources.r.properties: properties must be a map, not a list",
        ),
        (
            {"type": NONE, "metadata": "m"},
            "resources.r.metadata: metadata must be a map, not a str",
        ),
        (
            {"type": NONE, "deletion_policy": "Destroy"},
            'resources.r.deletion_policy: Invalid deletion policy "Destroy"; use one of: Delete, '
            "Retain, Snapshot, delete, retain, snapshot",
        ),
        (
            {"type": NONE, "description": 5},
            "resources.r.description: the description must be a string",
        ),
        ({"type": ""}, "resources.r.type: the type must be a non-empty string"),
        ({"type": {"get_param": "t"}}, "resources.r.type: the type must be a non-empty string"),
        (
            {"type": NONE, "propertiess": {}},
            'resources.r.propertiess: "propertiess" is not a valid keyword inside a resource '
            "definition",
        ),
        ({"properties": {}}, "resources.r: Each resource definition must contain a type key."),
        (None, "resources.r: Each resource must contain a type key."),
        ("x", "resources.r: A resource definition must be a map, not a str"),
    ],
)
def test_resource_errors(resource: Any, message: str) -> None:
    with pytest.raises(TemplateError) as info:
        make_stack({"resources": {"r": resource}})
    assert str(info.value) == message


def test_lowercase_deletion_policies_need_2016_10_14() -> None:
    body = {"resources": {"r": {"type": NONE, "deletion_policy": "retain"}}}
    assert make_stack(body, "2016-10-14").resources["r"].deletion_policy == "Retain"
    with pytest.raises(TemplateError, match='Invalid deletion policy "retain"'):
        make_stack(body, "2016-04-08")


def test_names() -> None:
    body = {
        "parameters": {"r": {"type": "string", "default": ""}},
        "resources": {"r": {"type": NONE}},
    }
    with pytest.raises(TemplateError, match="Duplicate names r"):
        make_stack(body)
    with pytest.raises(TemplateError, match='may not contain "/"'):
        make_stack({"resources": {"a/b": {"type": NONE}}})
    with pytest.raises(TemplateError, match="names must be strings"):
        make_stack({"resources": {1: {"type": NONE}}})


def test_template_sections() -> None:
    with pytest.raises(TemplateError, match="The template section is invalid: bogus"):
        make_stack({"bogus": {}})
    with pytest.raises(TemplateError, match='"resources" must be a map, not a list'):
        make_stack({"resources": [1]})
    with pytest.raises(TemplateError, match="An output definition must be a map"):
        make_stack({"outputs": {"o": [1]}})
    with pytest.raises(TemplateError, match='"resources" must be a map'):
        make_stack({"resources": "x"})
    assert make_stack({"resources": None, "outputs": None, "parameters": None}).resources == {}


@pytest.mark.parametrize(
    ("output", "match"),
    [
        ({"description": "d"}, "must contain a value key"),
        ({"value": 1, "bogus": 2}, '"bogus" is not a valid keyword inside an output definition'),
    ],
)
def test_output_errors(output: Any, match: str) -> None:
    with pytest.raises(TemplateError, match=match):
        make_stack({"outputs": {"o": output}})


CHAIN = {
    "a": {"type": NONE},
    "b": {"type": NONE, "properties": {"x": {"get_attr": ["a", "out"]}}},
    "c": {"type": NONE, "metadata": {"m": {"get_resource": "b"}}, "depends_on": ["a"]},
    "d": {"type": NONE, "properties": {"l": [{"list_join": [",", [{"get_resource": "c"}]]}]}},
}


def test_dependencies_and_order() -> None:
    stack = make_stack({"resources": CHAIN})
    assert stack.dependencies() == {
        "a": frozenset(),
        "b": {"a"},
        "c": {"a", "b"},
        "d": {"c"},
    }
    assert stack.required_by()["a"] == {"b", "c"}
    assert stack.creation_order() == ["a", "b", "c", "d"]


def test_layers_share_their_dependency_sets() -> None:
    first = {f"a{i}": {"type": NONE} for i in range(3)}
    second = {f"b{i}": {"type": NONE, "depends_on": sorted(first)} for i in range(3)}
    third = {"c": {"type": NONE, "properties": {"x": {"get_resource": "b0"}}}}
    stack = make_stack({"resources": {**first, **second, **third}})
    deps = stack.dependencies()
    assert deps["b0"] == {"a0", "a1", "a2"}
    assert deps["b0"] is deps["b1"] is deps["b2"]
    assert stack.resources["b0"].depends_on is stack.resources["b2"].depends_on
    users = stack.required_by()
    assert users["a0"] == {"b0", "b1", "b2"}
    assert users["a0"] is users["a2"]
    assert (users["b0"], users["b1"], users["c"]) == ({"c"}, frozenset(), frozenset())


def test_a_wrong_depends_on_is_reported_for_the_first_resource_listing_it() -> None:
    body = {"resources": {"a": {"type": NONE, "depends_on": ["zz"]},
                          "b": {"type": NONE, "depends_on": ["zz"]}}}  # fmt: skip
    with pytest.raises(TemplateError, match=r'"zz" \(in a\) is incorrect'):
        make_stack(body)


def test_update_policy_and_outputs_do_not_add_dependencies() -> None:
    body = {"resources": {"a": {"type": NONE},
                          "b": {"type": NONE, "update_policy": {"x": {"get_resource": "a"}}}},
            "outputs": {"o": {"value": {"get_resource": "a"}}}}  # fmt: skip
    assert make_stack(body).dependencies()["b"] == frozenset()


@pytest.mark.parametrize(
    ("resources", "cycle"),
    [
        ({"a": {"type": NONE, "depends_on": "a"}}, "a -> a"),
        (
            {
                "a": {"type": NONE, "depends_on": "b"},
                "b": {"type": NONE, "properties": {"x": {"get_resource": "c"}}},
                "c": {"type": NONE, "properties": {"x": {"get_attr": ["a", "y"]}}},
            },
            "a -> b -> c -> a",
        ),
    ],
)
def test_cycles_are_named(resources: Any, cycle: str) -> None:
    with pytest.raises(CircularDependency) as info:
        make_stack({"resources": resources})
    assert str(info.value) == f"Circular Dependency Found: {cycle}"


def test_resolution_api() -> None:
    body = {
        "parameters": {"n": {"type": "number", "default": 2}},
        "resources": {
            **CHAIN,
            "e": {"type": NONE, "properties": {"p": {"get_param": "n"}, "q": {"get_attr": ["a"]}}},
        },
        "outputs": {
            "ok": {"value": {"get_attr": ["b", "x"]}, "description": "d"},
            "bad": {"value": {"str_split": [",", {"get_param": "n"}]}},
        },
    }
    stack = make_stack(body)
    ctx = MemoryContext(attributes={"a": {"out": 5}, "b": {"x": [1]}}, ids={"c": "cid"})
    assert stack.resolve_properties("b", ctx) == {"x": 5}
    assert stack.resolve_properties("e", ctx) == {"p": 2, "q": {"out": 5}}
    assert stack.resolve_properties("a", ctx) == {}
    assert stack.resolve_metadata("c", ctx) == {"m": "id-b"}
    assert stack.resolve_properties("d", ctx) == {"l": ["cid"]}
    results = stack.resolve_outputs(ctx)
    assert (results["ok"].value, results["ok"].description, results["ok"].error) == (
        [1],
        "d",
        None,
    )
    assert results["bad"].value is None
    assert isinstance(results["bad"].error, FunctionError)
    assert str(results["bad"].error).startswith("outputs.bad.value.str_split")


def test_properties_given_as_a_function() -> None:
    body = {"parameters": {"p": {"type": "json", "default": {"value": 7}}},
            "resources": {"r": {"type": NONE, "properties": {"get_param": "p"}}}}  # fmt: skip
    stack = make_stack(body)
    assert stack.resolve_properties("r") == {"value": 7}
    body["parameters"]["p"]["default"] = [1]
    with pytest.raises(FunctionError, match="properties must resolve to a map, not list"):
        make_stack(body).resolve_properties("r")


def test_two_argument_if_drops_properties() -> None:
    body = {"resources": {"r": {"type": NONE, "properties": {
        "value": {"if": [False, 1]}, "keep": 2}}}}  # fmt: skip
    assert make_stack(body).resolve_properties("r") == {"keep": 2}


def test_is_unresolved() -> None:
    stack = make_stack({"resources": {"a": {"type": NONE}, "b": {"type": NONE, "properties": {
        "static": {"list_join": [",", ["x", {"get_param": "OS::stack_name"}]]},
        "nested": {"list_join": [",", [{"get_attr": ["a", "x"]}]]},
        "facade": {"resource_facade": "metadata"},
        "plain": [1, {"k": "v"}],
    }}}})  # fmt: skip
    props = stack.resources["b"].properties
    assert [is_unresolved(props[k]) for k in ("static", "nested", "facade", "plain")] == [
        False, True, True, False,
    ]  # fmt: skip
    assert is_unresolved(props)


def test_definitions_are_frozen() -> None:
    a = make_stack({"resources": {"a": {"type": NONE}}}).resources["a"]
    with pytest.raises(AttributeError):
        a.name = "b"  # type: ignore[misc]


def test_description() -> None:
    assert make_stack({}).description == "No description"
    assert make_stack({"description": "d"}).description == "d"


def test_template_load_and_files() -> None:
    template = Template.load("heat_template_version: 2013-05-23\n", {"f": "x"})
    assert template.version.name == "2013-05-23"
    assert template.files == {"f": "x"}


def test_parsed_values_render_back_to_template_data() -> None:
    from thermik.template.functions.base import to_data

    props = {"a": {"list_join": [",", [{"get_resource": "x"}, "y"]]}, "b": [1, {"k": None}]}
    stack = make_stack(
        {"resources": {"x": {"type": NONE}, "r": {"type": NONE, "properties": props}}}
    )
    parsed = stack.resources["r"].properties
    assert to_data(parsed) == props
    assert (
        parsed
        == make_stack(
            {"resources": {"x": {"type": NONE}, "r": {"type": NONE, "properties": props}}}
        )
        .resources["r"]
        .properties
    )
    assert "get_resource" in repr(parsed["a"])


def test_nesting_beyond_the_stack_is_too_large_not_a_crash() -> None:
    from thermik.errors import TemplateTooLarge

    value: Any = "x"
    for _ in range(3000):
        value = {"list_join": [",", [value]]}
    template = Template.from_document({"heat_template_version": "2021-04-16",
                                       "outputs": {"o": {"value": value}}})  # fmt: skip
    with pytest.raises(TemplateTooLarge, match="nested too deeply"):
        build_stack(template)
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    stack = make_stack({})
    with pytest.raises(TemplateTooLarge, match="nested too deeply"):
        stack.resolve(deep)
