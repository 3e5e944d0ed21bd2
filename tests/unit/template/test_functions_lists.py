"""repeat, map_merge, map_replace, list_concat(_unique), filter and contains."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.template.support import evaluate, versions_before, versions_from
from thermik.errors import FunctionError


def repeat(template: Any, for_each: Any, **extra: Any) -> dict[str, Any]:
    return {"repeat": {"template": template, "for_each": for_each, **extra}}


@pytest.mark.parametrize("version", versions_from("2015-04-30"))
def test_repeat_replaces_in_strings_keys_and_values(version: str) -> None:
    snippet = repeat({"port_%p%": ["%p%", "tcp"], "n": 1}, {"%p%": ["80", "443"]})
    assert evaluate(snippet, version) == [
        {"port_80": ["80", "tcp"], "n": 1},
        {"port_443": ["443", "tcp"], "n": 1},
    ]


@pytest.mark.parametrize("version", versions_from("2015-04-30"))
def test_repeat_all_permutations(version: str) -> None:
    snippet = repeat("%a%-%b%", {"%a%": ["1", "2"], "%b%": ["x", "y"]})
    assert evaluate(snippet, version) == ["1-x", "1-y", "2-x", "2-y"]


@pytest.mark.parametrize("version", versions_from("2015-04-30"))
def test_repeat_null_list_gives_nothing(version: str) -> None:
    assert evaluate(repeat("%a%", {"%a%": None}), version) == []


@pytest.mark.parametrize("version", versions_before("2016-10-14"))
def test_repeat_over_maps_needs_2016_10_14(version: str) -> None:
    if version < "2015-04-30":
        return
    with pytest.raises(FunctionError, match="must be lists"):
        evaluate(repeat("%k%", {"%k%": {"a": 1}}), version)


@pytest.mark.parametrize("version", versions_from("2016-10-14"))
def test_repeat_over_map_keys(version: str) -> None:
    assert evaluate(repeat("%k%", {"%k%": {"a": 1, "b": 2}}), version) == ["a", "b"]


@pytest.mark.parametrize("version", versions_from("2017-09-01"))
def test_repeat_without_permutations_zips(version: str) -> None:
    snippet = repeat("%a%-%b%", {"%a%": ["1", "2"], "%b%": ["x", "y"]}, permutations=False)
    assert evaluate(snippet, version) == ["1-x", "2-y"]


def test_repeat_without_permutations_needs_equal_lists() -> None:
    snippet = repeat("%a%-%b%", {"%a%": ["1"], "%b%": ["x", "y"]}, permutations=False)
    with pytest.raises(FunctionError, match="length of for_each values should be equal"):
        evaluate(snippet)
    with pytest.raises(FunctionError, match="must be lists"):
        evaluate(repeat("%a%", {"%a%": {"k": 1}}, permutations=False))


def test_permutations_key_is_ignored_before_2017_09_01() -> None:
    snippet = repeat("%a%%b%", {"%a%": ["1", "2"], "%b%": ["x"]}, permutations=False)
    assert evaluate(snippet, "2017-02-24") == ["1x", "2x"]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "must be a map"),
        ({"template": "x"}, "syntax should be"),
        ({"template": "x", "for_each": ["a"]}, "must contain a map"),
        ({"template": "x", "for_each": {}}, "must contain a map"),
        ({"template": "x", "for_each": {"%a%": "abc"}}, "must be lists"),
        ({"template": "%a%", "for_each": {"%a%": [1, 2]}}, "replaces strings with strings"),
        ({"template": "x", "for_each": {"%a%": ["1"]}, "permutations": "no"}, "boolean type"),
    ],
)
def test_repeat_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"repeat": args})


def test_nested_repeat() -> None:
    inner = repeat("%a%%b%", {"%b%": ["x", "y"]})
    outer = repeat(inner, {"%a%": ["1", "2"]})
    assert evaluate(outer) == [["1x", "1y"], ["2x", "2y"]]


@pytest.mark.parametrize("version", versions_from("2016-04-08"))
def test_map_merge(version: str) -> None:
    snippet = {"map_merge": [{"a": 1, "b": 1}, None, {"a": 2}]}
    assert evaluate(snippet, version) == {"a": 2, "b": 1}


@pytest.mark.parametrize("args", ["x", [{"a": 1}, [1]], {"a": 1}])
def test_map_merge_errors(args: Any) -> None:
    with pytest.raises(FunctionError, match="Incorrect arguments"):
        evaluate({"map_merge": args})


def test_map_merge_before_2016_04_08_is_data_as_in_heat() -> None:
    assert evaluate({"map_merge": [{}]}, "2015-10-15") == {"map_merge": [{}]}


@pytest.mark.parametrize("version", versions_from("2016-10-14"))
def test_map_replace(version: str) -> None:
    snippet = {"map_replace": [{"k1": "v1", "k2": "v2", "k3": [1]},
                               {"keys": {"k1": "K1"}, "values": {"v2": "V2"}}]}  # fmt: skip
    assert evaluate(snippet, version) == {"K1": "v1", "k2": "V2", "k3": [1]}


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ([{"a": 1}], "Incorrect arguments"),
        ([{"a": 1}, {"bad": {}}], "Incorrect arguments"),
        ([{"a": 1, "b": 2}, {"keys": {"a": "b"}}], "collides with a key in the input map"),
        ([{"a": 1, "b": 2}, {"keys": {"a": "c", "b": "c"}}], "collides with a key in the output"),
        (["x", {}], "must be a list of maps"),
    ],
)
def test_map_replace_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"map_replace": args})


@pytest.mark.parametrize("version", versions_from("2017-09-01"))
def test_list_concat(version: str) -> None:
    assert evaluate({"list_concat": [[1, 2], None, [2, {"a": 1}]]}, version) == [1, 2, 2, {"a": 1}]
    snippet = {"list_concat_unique": [[1, 2], [2, {"a": 1}], [{"a": 1}]]}
    assert evaluate(snippet, version) == [1, 2, {"a": 1}]


@pytest.mark.parametrize("args", ["x", [[1], "ab"], [[1], {"a": 1}]])
def test_list_concat_errors(args: Any) -> None:
    with pytest.raises(FunctionError, match="Incorrect arguments"):
        evaluate({"list_concat": args})


@pytest.mark.parametrize("version", versions_from("2017-02-24"))
def test_filter(version: str) -> None:
    assert evaluate({"filter": [[1, None], [1, 2, None, 1, 3]]}, version) == [2, 3]
    assert evaluate({"filter": [None, [1]]}, version) == [1]
    assert evaluate({"filter": [[1], []]}, version) == []


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "must be a list"),
        ([[1]], "expected 2 arguments"),
        ([[1], "abc"], "only works"),
        (["a", [1]], "filters a list of values"),
    ],
)
def test_filter_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"filter": args})


@pytest.mark.parametrize("version", versions_from("2017-09-01"))
def test_contains(version: str) -> None:
    assert evaluate({"contains": ["a", ["a", "b"]]}, version) is True
    assert evaluate({"contains": [{"x": 1}, [{"x": 1}]]}, version) is True
    assert evaluate({"contains": ["c", ["a", "b"]]}, version) is False
    assert evaluate({"contains": ["b", "abc"]}, version) is True


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "Incorrect arguments"),
        (["a"], "must be of the form"),
        (["a", 5], "should be a sequence"),
        ([1, "abc"], "find a string in a string"),
    ],
)
def test_contains_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"contains": args})


@pytest.mark.parametrize(
    ("fn", "first"),
    [
        ("repeat", "2015-04-30"),
        ("map_replace", "2016-10-14"),
        ("filter", "2017-02-24"),
        ("list_concat", "2017-09-01"),
        ("list_concat_unique", "2017-09-01"),
        ("contains", "2017-09-01"),
    ],
)
def test_list_functions_of_later_versions_are_data_in_older_ones(fn: str, first: str) -> None:
    # As in Heat: a name the version does not know is data, not a function.
    for version in versions_before(first):
        parameters = {"p": {"type": "string"}}
        found = evaluate(
            {fn: [{"get_param": "p"}]}, version, parameters=parameters, params={"p": "x"}
        )
        assert found == {fn: ["x"]}
