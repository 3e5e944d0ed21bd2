"""The budget of function evaluation: each amplifying function is refused at its place, before
it builds what it would, and templates within the budget resolve as before."""

from __future__ import annotations

import json
import time
import tracemalloc
from typing import Any

import pytest

from tests.unit.template.support import MemoryContext, make_stack
from thermik.errors import TemplateTooLarge
from thermik.template.budget import Budget, Meter, size_of
from thermik.template.functions.base import Function

SMALL = Budget(max_value_size=10_000, max_depth=32, max_work=100_000)


def nested_join(depth: int, leaf: Any = "x") -> Any:
    """The memory bomb of issue 14: each level JSON-encodes the one inside."""
    value = leaf
    for _ in range(depth):
        value = {"list_join": ["", [[value]]]}
    return value


def refusal(snippet: Any, budget: Budget | None = None, **params: Any) -> TemplateTooLarge:
    """The error resolving ``snippet`` as a resource property ``bar`` of ``foo`` gives."""
    stack = stack_of(snippet, budget, **params)
    with pytest.raises(TemplateTooLarge) as caught:
        stack.resolve_properties("foo", MemoryContext())
    return caught.value


def stack_of(snippet: Any, budget: Budget | None = None, **params: Any) -> Any:
    body: dict[str, Any] = {
        "parameters": {
            name: {"type": "string" if isinstance(value, str) else "json"}
            for name, value in params.items()
        },
        "resources": {"foo": {"type": "OS::Heat::None", "properties": {"bar": snippet}}},
    }
    return make_stack(body, params=params, budget=budget)


def resolved(snippet: Any, budget: Budget | None = None, **params: Any) -> Any:
    return stack_of(snippet, budget, **params).resolve_properties("foo", MemoryContext())["bar"]


def test_the_nested_list_join_bomb_is_refused_quickly_at_its_place() -> None:
    started = time.monotonic()
    error = refusal(nested_join(30))
    assert time.monotonic() - started < 1
    assert str(error).startswith("resources.foo.properties.bar.list_join[1][0][0].list_join")
    assert error.path[-1] == "list_join"
    assert '"list_join" would produce a value larger than 524288 bytes' in error.message
    assert "max_function_value_size" in error.message


def test_a_shallow_nested_list_join_still_resolves() -> None:
    assert resolved(nested_join(3)) == '["[\\"[\\\\\\"x\\\\\\"]\\"]"]'


def test_the_value_limit_is_configurable() -> None:
    assert resolved(nested_join(6), Budget.scaled(1_000)).startswith('["')
    error = refusal(nested_join(6), Budget.scaled(100))
    assert "larger than 100 bytes" in error.message


def test_functions_nested_deeper_than_the_depth_limit_are_refused() -> None:
    deep = nested_join(40, leaf="x")
    # Joining a one-string list does not grow: only the depth stops it.
    flat: Any = "x"
    for _ in range(40):
        flat = {"list_join": [",", [flat]]}
    error = refusal(flat, Budget(max_depth=32))
    assert "functions are nested more than 32 deep (max_function_depth)" in error.message
    assert error.path[-1] == "list_join"
    assert resolved(flat, Budget(max_depth=41)) == "x"
    assert refusal(deep).path[-1] == "list_join"


def test_repeat_is_refused_before_making_its_copies() -> None:
    lists = {f"%{n}%": [str(i) for i in range(100)] for n in range(3)}
    started = time.monotonic()
    error = refusal({"repeat": {"template": "%0%%1%%2%", "for_each": lists}})
    assert time.monotonic() - started < 1
    assert error.path == ("resources", "foo", "properties", "bar", "repeat")
    assert "would produce a value larger than" in error.message


def test_repeat_is_refused_when_replacing_grows_its_body() -> None:
    snippet = {"repeat": {"template": "%x%" * 100, "for_each": {"%x%": ["y" * 200]}}}
    assert "larger than 10000 bytes" in refusal(snippet, SMALL).message
    small = {"repeat": {"template": "%x%" * 10, "for_each": {"%x%": ["y" * 200]}}}
    assert resolved(small, SMALL) == ["y" * 2000]


def test_str_replace_is_refused_before_replacing() -> None:
    snippet = {"str_replace": {"template": "$v" * 1000, "params": {"$v": {"get_param": "big"}}}}
    error = refusal(snippet, SMALL, big="z" * 100)
    assert error.path[-1] == "str_replace"
    assert "larger than 10000 bytes" in error.message
    fits = {"str_replace": {"template": "$v" * 10, "params": {"$v": {"get_param": "big"}}}}
    assert resolved(fits, SMALL, big="z" * 100) == "z" * 1000


def test_str_replace_spends_its_scanning() -> None:
    params = {f"k{i}": "v" for i in range(200)}
    snippet = {"str_replace": {"template": "a" * 1000, "params": params}}
    assert "max_function_work" in refusal(snippet, SMALL).message


def test_map_replace_refuses_a_map_whose_values_it_multiplies() -> None:
    source = {f"k{i}": "v" for i in range(100)}
    snippet = {"map_replace": [source, {"values": {"v": {"get_param": "big"}}}]}
    error = refusal(snippet, SMALL, big="z" * 500)
    assert error.path[-1] == "map_replace"


def test_list_concat_is_refused_past_the_limit() -> None:
    snippet = {"list_concat": [{"get_param": "items"}] * 20}
    error = refusal(snippet, SMALL, items=["a"] * 1000)
    assert error.path[-1] == "list_concat"
    assert resolved({"list_concat": [["a"], ["b"]]}, SMALL) == ["a", "b"]


def test_list_concat_unique_keeps_the_first_of_equal_items() -> None:
    snippet = {"list_concat_unique": [[1, "a", {"m": 1}, [2]], [True, "a", {"m": 1}, [2], 3]]}
    assert resolved(snippet) == [1, "a", {"m": 1}, [2], 3]


def test_list_join_of_a_big_list_is_refused_before_joining() -> None:
    snippet = {"list_join": [{"get_param": "sep"}, {"get_param": "items"}]}
    error = refusal(snippet, SMALL, sep="-" * 100, items=[""] * 200)
    assert error.path[-1] == "list_join"


def test_str_split_is_refused_before_splitting() -> None:
    snippet = {"str_split": [",", {"get_param": "text"}]}
    assert refusal(snippet, SMALL, text="," * 5000).path[-1] == "str_split"
    assert resolved(snippet, SMALL, text="a,b") == ["a", "b"]


def test_yaql_sharing_lists_is_refused_before_copying_them() -> None:
    doubling = "let(a => [$.data.s, $.data.s])"
    for name in "bcdefghijklmnopqrst":
        doubling += f" -> let({name} => [${chr(ord(name) - 1)}, ${chr(ord(name) - 1)}])"
    snippet = {"yaql": {"expression": doubling + " -> $t", "data": {"s": "x" * 100}}}
    # Copied out, the result would hold 2**20 strings (over 100 MB): refused first, it never
    # takes the memory (a bound on memory, not on time, holds on a loaded machine).
    tracemalloc.start()
    try:
        error = refusal(snippet, SMALL)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32_000_000
    assert error.path[-1] == "yaql"


def test_every_use_of_a_looked_up_value_is_spent() -> None:
    # Each reference is cheap to build but serialises to the whole value again.
    snippet = [{"get_param": "big"}] * 50
    error = refusal(snippet, SMALL, big="z" * 5000)
    assert error.path[-1] == "get_param"
    assert "max_function_work" in error.message
    # A value larger than the value limit may still be used, within the work budget.
    assert resolved({"get_param": "big"}, SMALL, big="z" * 50_000) == "z" * 50_000


def test_outputs_report_the_refusal_as_their_error() -> None:
    body = {
        "outputs": {"bomb": {"value": nested_join(30)}, "fine": {"value": "ok"}},
    }
    results = make_stack(body).resolve_outputs(MemoryContext())
    assert results["fine"].value == "ok"
    error = results["bomb"].error
    assert isinstance(error, TemplateTooLarge)
    assert str(error).startswith("outputs.bomb.value.list_join")


def test_size_of_stops_counting_past_the_limit() -> None:
    shared: Any = ["x" * 100]
    for _ in range(60):  # 2**60 copies once serialised, a few hundred bytes in memory
        shared = [shared, shared]
    started = time.monotonic()
    assert size_of(shared, 10_000) > 10_000
    assert time.monotonic() - started < 1
    value = {"a": [1, "bc", None], "d": {"e": "f" * 100}}
    assert abs(size_of(value, 10_000) - len(json.dumps(value))) < 20


def test_a_refused_call_leaves_the_meter_usable() -> None:
    meter = Meter(Budget(max_depth=1))
    fn = Function("list_join", [], ("outputs", "o", "list_join"))
    meter.enter(fn)
    with pytest.raises(TemplateTooLarge):
        meter.enter(fn)
    meter.leave()
    assert meter.depth == 0
