"""Environments: sections, merging several files with Heat's rules, the resource registry."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.template.support import make_stack
from thermik.errors import EnvironmentError_, ResourceTypeNotFound, TemplateSyntaxError
from thermik.template import Environment, merge_environments, parse_environment
from thermik.template.registry import ResourceRegistry


def test_parse_environment() -> None:
    env = parse_environment("parameters: {a: 1}\nresource_registry: {X::Y: OS::Heat::None}\n")
    assert env == {"parameters": {"a": 1}, "resource_registry": {"X::Y": "OS::Heat::None"}}
    assert parse_environment("") == {}


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("bogus: {}\n", 'wrong section "bogus"'),
        ("parameters:\n", 'empty section "parameters"'),
        ("parameters: [1]\n", '"parameters" must be a map'),
        ("event_sinks: {}\n", '"event_sinks" must be a list'),
        ("event_sinks: [{type: kafka}]\n", "type one of: zaqar-queue"),
        ("event_sinks: [{type: zaqar-queue, colour: red}]\n", 'unknown event sink key "colour"'),
    ],
)
def test_bad_environments(text: str, match: str) -> None:
    with pytest.raises(EnvironmentError_, match=match):
        parse_environment(text)


def test_environment_must_be_a_mapping() -> None:
    with pytest.raises(TemplateSyntaxError, match="environment is not a JSON object"):
        parse_environment("- a\n")


TYPES = {"x": "string", "j": "json", "l": "comma_delimited_list", "n": "number",
         "b": "boolean"}  # fmt: skip


def merge(*docs: dict[str, Any], user: dict[str, Any] | None = None) -> Environment:
    return merge_environments(docs, user_params=user, parameter_types=TYPES,
                              names=[f"e{i}" for i in range(len(docs))])  # fmt: skip


def test_later_files_overwrite_and_win_over_user_parameters() -> None:
    a = {
        "parameters": {"x": "A", "j": {"k": 1}, "unknown": 1},
        "resource_registry": {"OS::A": "a.yaml", "resources": {"r1": {"OS::B": "b.yaml"}}},
    }
    b = {
        "parameters": {"j": {"m": 2}},
        "resource_registry": {"OS::A": None, "resources": {"r2": {"hooks": "pre-create"}}},
    }
    env = merge(a, b, user={"x": "CLI"})
    # Exactly what Heat computes for `-e a -e b --parameter x=CLI`.
    assert env.parameters == {"x": "A", "j": {"m": 2}}
    assert env.as_dict()["resource_registry"] == {
        "OS::A": "a.yaml",
        "resources": {"r2": {"hooks": "pre-create"}},
    }


def test_first_file_is_taken_as_is_when_nothing_came_before() -> None:
    env = merge({"parameters": {"x": "A", "unknown": 1}, "parameter_defaults": {"zz": 1}})
    assert env.parameters == {"x": "A", "unknown": 1}
    assert env.parameter_defaults == {"zz": 1}


def test_merge_strategies() -> None:
    strategies = {"default": "merge", "j": "deep_merge"}
    a = {"parameter_merge_strategies": strategies,
         "parameters": {"x": "a", "l": "p,q", "j": {"k": {"a": 1}, "s": "x"}}}  # fmt: skip
    b = {"parameter_merge_strategies": strategies,
         "parameters": {"x": "b", "l": "r", "j": {"k": {"b": 2}, "s": "y"}}}  # fmt: skip
    # Heat's results, user value included in the merge.
    expected = {"x": "uab", "j": {"k": {"a": 1, "b": 2}, "s": "xy"}, "l": "p,q,r"}
    assert merge(a, b, user={"x": "u"}).parameters == expected
    assert merge(a, b).parameters == {**expected, "x": "ab"}


def test_shallow_merge_of_json() -> None:
    a = {"parameter_merge_strategies": {"j": "merge"}, "parameters": {"j": {"k": {"a": 1}}}}
    b = {"parameter_merge_strategies": {"j": "merge"}, "parameters": {"j": {"k": {"b": 2}}}}
    assert merge(a, b, user={"x": "u"}).parameters == {"x": "u", "j": {"k": {"b": 2}}}


def test_the_first_file_fixes_a_parameter_strategy() -> None:
    a = {"parameters": {"x": "a"}}
    b = {"parameter_merge_strategies": {"default": "merge"}, "parameters": {"x": "b"}}
    assert merge(a, b, user={"x": "u"}).parameters == {"x": "b"}
    c = {"parameter_merge_strategies": {"x": "deep_merge"}, "parameters": {"x": "c"}}
    with pytest.raises(EnvironmentError_, match="e1: Conflicting merge strategy 'deep_merge'"):
        merge(a, c)


@pytest.mark.parametrize(("name", "value"), [("n", 1), ("n", "1"), ("b", True)])
def test_numbers_and_booleans_cannot_be_merged(name: str, value: Any) -> None:
    doc = {"parameter_merge_strategies": {"default": "merge"}, "parameters": {name: value}}
    with pytest.raises(EnvironmentError_, match=r"e0: .*cannot be merged"):
        merge(doc, doc, user={"x": "u"})


def test_lists_sections_accumulate() -> None:
    a = {"event_sinks": [{"type": "zaqar-queue", "target": "q1"}]}
    b = {"event_sinks": [{"type": "zaqar-queue", "target": "q2"}]}
    assert [s["target"] for s in merge(a, b).event_sinks] == ["q1", "q2"]


def registry(data: dict[str, Any]) -> ResourceRegistry:
    return ResourceRegistry.from_mapping(data)


def test_alias_chain_and_builtin() -> None:
    reg = registry({"Custom::A": "Custom::B", "Custom::B": "OS::Heat::None"})
    found = reg.resolve("Custom::A", "r")
    assert (found.type, found.kind, found.implementation) == (
        "Custom::A",
        "builtin",
        "OS::Heat::None",
    )
    assert reg.resolve("OS::Heat::Value").implementation == "OS::Heat::Value"


def test_globs() -> None:
    reg = registry({"OS::Networking::*": "OS::Neutron::*", "Old::*": "OS::Heat::None"})
    assert reg.resolve("OS::Networking::Net").implementation == "OS::Neutron::Net"
    assert reg.resolve("Old::Anything").implementation == "OS::Heat::None"


def test_heat_orders_candidates_by_path_text() -> None:
    # ["OS::*"] sorts before ["OS::Neutron::Net"] ('*' < 'N'), so the glob wins in Heat.
    reg = registry({"OS::Neutron::Net": "OS::Heat::Value", "OS::*": "OS::Heat::None"})
    assert reg.resolve("OS::Neutron::Net").implementation == "OS::Heat::None"


def test_per_resource_mapping_wins() -> None:
    reg = registry({"OS::Nova::Server": "OS::Heat::None",
                    "resources": {"special": {"OS::Nova::Server": "my.yaml"}}})  # fmt: skip
    assert reg.resolve("OS::Nova::Server", "special").implementation == "my.yaml"
    assert reg.resolve("OS::Nova::Server", "other").implementation == "OS::Heat::None"


def test_templates() -> None:
    reg = registry({"My::Server": "server.yaml", "old.template": "ignored"})
    found = reg.resolve("My::Server")
    assert (found.kind, found.implementation) == ("template", "server.yaml")
    assert reg.resolve("direct.yaml").implementation == "direct.yaml"
    assert reg.resolve("direct.yml").kind == "builtin"


def test_null_unregisters() -> None:
    reg = registry({"A::B": "x.yaml", "A::C": "y.yaml", "D::E": "z.yaml"})
    reg.load({"A::*": None, "D::E": None})
    assert reg.as_dict() == {"resources": {}}


def test_unknown_types_with_known_types() -> None:
    known = {"OS::Heat::None", "OS::Heat::Value"}.__contains__
    reg = registry({"Custom::A": "Missing::Type", "OS::Heat::Value": "Nope::X"})
    with pytest.raises(ResourceTypeNotFound, match=r"The Resource Type \(Custom::A\) could not"):
        reg.resolve("Custom::A", None, known)
    # A mapping to a type that does not exist is skipped, as Heat skips it.
    assert reg.resolve("OS::Heat::Value", None, known).implementation == "OS::Heat::Value"


def test_mapping_loops() -> None:
    reg = registry({"A::A": "B::B", "B::B": "A::A"})
    with pytest.raises(EnvironmentError_, match="loop: A::A -> B::B -> A::A"):
        reg.resolve("A::A")


def test_hooks_and_restricted_actions() -> None:
    reg = registry({"resources": {
        "web*": {"hooks": ["pre-create", "post-update"], "restricted_actions": "replace"},
        "web1": {"hooks": "pre-delete"},
    }})  # fmt: skip
    assert reg.hooks("web1") == {"pre-create", "post-update", "pre-delete"}
    assert reg.hooks("db") == frozenset()
    assert reg.restricted_actions("web2") == {"replace"}


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"resources": {"r": {"hooks": "pre-fly"}}}, "Invalid hook type"),
        ({"resources": {"r": {"restricted_actions": ["delete"]}}}, "restricted_action type"),
        ({"A::B": 5}, "must be a type name"),
        ({"resources": {"r": "x"}}, "must be a map"),
        ({"resources": ["r"]}, "map resource names"),
    ],
)
def test_registry_errors(data: dict[str, Any], match: str) -> None:
    with pytest.raises(EnvironmentError_, match=match):
        registry(data)


def test_types_resolve_through_the_environment_in_a_stack() -> None:
    env = Environment.from_dict({"resource_registry": {
        "My::Server": "server.yaml", "Alias::None": "OS::Heat::None",
        "resources": {"r": {"hooks": "pre-create"}}}})  # fmt: skip
    body = {"resources": {"r": {"type": "My::Server"}, "n": {"type": "Alias::None"}}}
    stack = make_stack(body, env=env, files={"server.yaml": "heat_template_version: pike\n"})
    r = stack.resources["r"]
    assert r.resolved.is_template
    assert r.resolved.template == "heat_template_version: pike\n"
    assert r.hooks == {"pre-create"}
    assert stack.resources["n"].resolved.implementation == "OS::Heat::None"


def test_template_resource_missing_from_files() -> None:
    env = Environment.from_dict({"resource_registry": {"My::Server": "server.yaml"}})
    with pytest.raises(EnvironmentError_) as info:
        make_stack({"resources": {"r": {"type": "My::Server"}}}, env=env)
    assert str(info.value) == (
        'resources.r.type: Could not fetch remote template "server.yaml": it is not in the '
        "files map"
    )
    assert info.value.resource == "r"


def test_unknown_type_in_a_stack_names_the_resource() -> None:
    with pytest.raises(ResourceTypeNotFound) as info:
        make_stack({"resources": {"r": {"type": "OS::Nope"}}},
                   known_types={"OS::Heat::None"}.__contains__)  # fmt: skip
    assert str(info.value) == "resources.r.type: The Resource Type (OS::Nope) could not be found."
    assert info.value.resource == "r"


def test_child_environment_for_a_nested_stack() -> None:
    env = Environment.from_dict({
        "parameter_defaults": {"d": 1},
        "resource_registry": {
            "OS::Nova::Server": "server.yaml",
            "Other::Type": "OS::Heat::None",
            "resources": {
                "web": {"db": {"hooks": "pre-create"}, "OS::Heat::Value": "value.yaml"},
                "w*": {"cache": {"hooks": "post-create"}},
                "api": {"x": {"hooks": "pre-delete"}},
            },
        },
    })  # fmt: skip
    resolved = env.resolve_type("web", "OS::Nova::Server", {"server.yaml": "t"})
    assert resolved.entry == ("OS::Nova::Server",)
    child = env.child("web", {"p": 1}, resolved)
    assert child.parameters == {"p": 1}
    assert child.parameter_defaults == {"d": 1}
    assert child.hooks("db") == {"pre-create"}
    assert child.hooks("cache") == {"post-create"}
    assert child.hooks("x") == frozenset()
    # The nested template may use the type it implements: the mapping is gone in the child.
    assert child.resolve_type("inner", "OS::Nova::Server").implementation == "OS::Nova::Server"
    assert child.resolve_type("inner", "Other::Type").implementation == "OS::Heat::None"


def test_child_environment_drops_a_per_resource_template_entry() -> None:
    env = Environment.from_dict(
        {"resource_registry": {"resources": {"web": {"OS::Heat::Value": "value.yaml"}}}}
    )
    resolved = env.resolve_type("web", "OS::Heat::Value", {"value.yaml": "t"})
    assert resolved.entry == ("resources", "web", "OS::Heat::Value")
    child = env.child("web", {}, resolved)
    assert child.resolve_type("web", "OS::Heat::Value").kind == "builtin"
