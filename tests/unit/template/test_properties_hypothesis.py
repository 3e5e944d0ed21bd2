"""Property-based tests: random and mutated templates and environments only ever produce
Thermik's own errors, never other exceptions."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.template.support import MemoryContext
from thermik.errors import ThermikError
from thermik.template import (
    Environment,
    Identity,
    Template,
    build_stack,
    merge_environments,
    parse_environment,
)
from thermik.template.validate import validate_template
from thermik.template.versions import VERSIONS

FUNCTIONS = sorted({name for v in VERSIONS.values() for name in v.functions} | {
    "equals", "not", "and", "or", "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or",
})  # fmt: skip
VERSION_VALUES = sorted({value for _, value in VERSIONS})
NAMES = st.sampled_from(["a", "b", "c", "r", "p", "x", "OS::stack_name", "value", "0"])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=16),
    NAMES, st.text(max_size=6),
)  # fmt: skip

DATA = Path(__file__).parent / "conformance"
SEEDS = [
    yaml.safe_load(p.read_text()) for p in sorted(DATA.glob("*.yaml")) if ".env" not in p.name
]
SEEDS = [s for s in SEEDS if isinstance(s, dict)]
SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(NAMES, inner, max_size=3),
        st.builds(lambda f, a: {f: a}, st.sampled_from(FUNCTIONS), inner),
    )


#: Template values: scalars, lists, maps and function calls, nested (bounded size).
VALUES = st.recursive(SCALARS, _extend, max_leaves=12)
SMALL = st.recursive(SCALARS, _extend, max_leaves=3)


def values(depth: int = 3) -> st.SearchStrategy[Any]:
    return SCALARS if depth == 0 else SMALL if depth < 3 else VALUES


def resources() -> st.SearchStrategy[Any]:
    resource = st.fixed_dictionaries(
        {"type": st.sampled_from(["OS::Heat::None", "OS::Heat::Value", "x.yaml", ""])},
        optional={
            "properties": values(), "metadata": values(2), "depends_on": values(1),
            "condition": values(1), "deletion_policy": values(1), "external_id": values(1),
            "update_policy": values(1), "description": values(0), "bogus": values(0),
        },
    )  # fmt: skip
    return st.dictionaries(NAMES, st.one_of(resource, values(1)), max_size=4)


def templates() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"heat_template_version": st.sampled_from(VERSION_VALUES)},
        optional={
            "parameters": st.dictionaries(NAMES, st.one_of(values(2), st.fixed_dictionaries(
                {"type": st.sampled_from(["string", "number", "json", "boolean",
                                          "comma_delimited_list", "String"])},
                optional={"default": values(1), "constraints": values(2), "hidden": values(0)},
            )), max_size=3),
            "resources": resources(),
            "outputs": st.dictionaries(NAMES, st.one_of(
                st.fixed_dictionaries({"value": values()}, optional={"condition": values(1)}),
                values(1)), max_size=3),
            "conditions": st.dictionaries(NAMES, values(2), max_size=3),
            "parameter_groups": values(2),
            "description": values(0),
        },
    )  # fmt: skip


HOT_DATES = sorted(v for k, v in VERSIONS if k == "heat_template_version")
RESOURCE_NAMES = st.sampled_from(["a", "b", "c", "d"])
CALLS = st.one_of(
    st.builds(lambda n: {"get_resource": n}, RESOURCE_NAMES),
    st.builds(lambda n, a: {"get_attr": [n, a]}, RESOURCE_NAMES, st.sampled_from(["value", "x"])),
    st.builds(lambda n: {"get_param": n}, st.sampled_from(["p", "q", "OS::stack_name"])),
    st.builds(lambda c, a, b: {"if": [c, a, b]}, st.sampled_from(["yes", "no", True]), SCALARS,
              SCALARS),
    st.builds(lambda a: {"list_join": [",", a]}, st.lists(NAMES, max_size=3)),
    st.builds(lambda a: {"str_replace": {"template": "a-b", "params": {"a": a}}}, SCALARS),
)  # fmt: skip
PLAUSIBLE = st.recursive(
    st.one_of(SCALARS, CALLS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(NAMES, inner, max_size=3)
    ),
    max_leaves=8,
)


def plausible_templates() -> st.SearchStrategy[dict[str, Any]]:
    """Mostly valid templates, so that generated data reaches the deeper layers."""
    resource = st.fixed_dictionaries(
        {"type": st.just("OS::Heat::None")},
        optional={
            "properties": st.dictionaries(NAMES, PLAUSIBLE, max_size=3),
            "depends_on": st.lists(RESOURCE_NAMES, max_size=2),
            "condition": st.sampled_from(["yes", "no", True, False]),
            "metadata": st.dictionaries(NAMES, PLAUSIBLE, max_size=2),
        },
    )
    return st.fixed_dictionaries(
        {
            "heat_template_version": st.sampled_from(HOT_DATES),
            "parameters": st.just({"p": {"type": "string", "default": "x"},
                                   "q": {"type": "json", "default": {"k": [1]}}}),
            "resources": st.dictionaries(RESOURCE_NAMES, resource, max_size=4),
            "outputs": st.dictionaries(NAMES, st.builds(lambda v: {"value": v}, PLAUSIBLE),
                                       max_size=3),
        },
        optional={"conditions": st.just({"yes": True, "no": {"not": "yes"}})},
    )  # fmt: skip


def exercise(document: Any, files: dict[str, str] | None = None) -> None:
    """Everything a caller may do with a template; only ThermikError may escape."""
    try:
        template = Template.from_document(document, files)
        validate_template(template)
        stack = build_stack(template, None, {}, Identity("s", "i", "p", "r"), known_types=None)
        ctx = MemoryContext(attributes={n: {"value": [1, {"a": None}]} for n in stack.resources})
        stack.creation_order()
        for name in stack.resources:
            stack.resolve_properties(name, ctx)
            stack.resolve_metadata(name, ctx)
            stack.resolve_update_policy(name, ctx)
        stack.resolve_outputs(ctx)
        for name in stack.outputs:
            stack.resolve_output(name, ctx)
    except ThermikError:
        pass


@SETTINGS
@given(templates())
def test_random_templates(document: dict[str, Any]) -> None:
    exercise(document, {"x.yaml": "heat_template_version: 2016-10-14\n", "f": "content"})


@SETTINGS
@given(plausible_templates())
def test_plausible_templates(document: dict[str, Any]) -> None:
    exercise(document)


def mutate(data: Any, path: list[Any], replacement: Any) -> Any:
    if not path:
        return replacement
    if isinstance(data, dict) and data:
        keys = list(data)
        key = keys[path[0] % len(keys)]
        return {**data, key: mutate(data[key], path[1:], replacement)}
    if isinstance(data, list) and data:
        index = path[0] % len(data)
        return [*data[:index], mutate(data[index], path[1:], replacement), *data[index + 1 :]]
    return replacement


@SETTINGS
@given(
    st.sampled_from(range(len(SEEDS))),
    st.lists(st.lists(st.integers(0, 20), max_size=6), min_size=1, max_size=3),
    st.lists(values(), min_size=3, max_size=3),
)
def test_mutated_templates(seed: int, paths: list[list[int]], replacements: list[Any]) -> None:
    document = copy.deepcopy(SEEDS[seed])
    for path, replacement in zip(paths, replacements, strict=False):
        document = mutate(document, path, replacement)
    exercise(document, {"files/script.sh": "#!/bin/sh\n"})


@SETTINGS
@given(st.text(max_size=200))
def test_random_text(text: str) -> None:
    with contextlib.suppress(ThermikError):
        Template.load(text)


@SETTINGS
@given(st.binary(max_size=100))
def test_random_bytes(data: bytes) -> None:
    try:
        Template.load(data)
        parse_environment(data)
    except ThermikError:
        pass


ENV_SECTIONS = ["parameters", "parameter_defaults", "resource_registry", "event_sinks",
                "encrypted_param_names", "parameter_merge_strategies", "bogus"]  # fmt: skip


@SETTINGS
@given(
    st.lists(st.dictionaries(st.sampled_from(ENV_SECTIONS), values(3), max_size=4), max_size=3),
    st.dictionaries(NAMES, st.sampled_from(["string", "number", "json", "boolean",
                                            "comma_delimited_list"]), max_size=4),
    st.dictionaries(NAMES, values(1), max_size=2),
    st.sampled_from(["OS::Heat::None", "x.yaml", "a", "OS::*", "Custom::X"]),
)  # fmt: skip
def test_random_environments(
    documents: list[dict[str, Any]], types: dict[str, str], user: dict[str, Any], rtype: str
) -> None:
    try:
        env = merge_environments(documents, user_params=user, parameter_types=types)
        env.resolve_type("r", rtype, {"x.yaml": "heat_template_version: 2016-10-14\n"})
        env.hooks("r")
        json.dumps(env.as_dict(), default=str)
        Environment.from_dict(documents[0] if documents else {})
    except ThermikError:
        pass
