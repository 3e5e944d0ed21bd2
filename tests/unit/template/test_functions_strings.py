"""str_replace (and strict forms), list_join, str_split, digest, make_url in every version."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.unit.template.support import evaluate, versions_before, versions_from
from thermik.errors import FunctionError


def replace(template: Any, params: Any, fn: str = "str_replace") -> dict[str, Any]:
    return {fn: {"template": template, "params": params}}


@pytest.mark.parametrize("version", versions_from("2013-05-23"))
def test_str_replace_prefers_longer_keys_and_does_not_rescan(version: str) -> None:
    snippet = replace("ab abc $x", {"ab": "1", "abc": "2", "$x": "ab"})
    assert evaluate(snippet, version) == "1 2 ab"


@pytest.mark.parametrize("version", versions_from("2013-05-23"))
def test_str_replace_numbers_and_null(version: str) -> None:
    assert evaluate(replace("a-b-c", {"a": 1, "b": 2.5, "c": None}), version) == "1-2.5-"


@pytest.mark.parametrize("version", versions_before("2015-10-15"))
def test_old_str_replace_refuses_lists(version: str) -> None:
    with pytest.raises(FunctionError, match="params must be strings or numbers, param a"):
        evaluate(replace("a", {"a": [1]}), version)


@pytest.mark.parametrize("version", versions_from("2015-10-15"))
def test_str_replace_serialises_lists_and_maps_as_json(version: str) -> None:
    snippet = replace("a b", {"a": [1, "x"], "b": {"z": 1, "y": None}})
    assert evaluate(snippet, version) == '[1, "x"] {"y": null, "z": 1}'


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "syntax should be"),
        ({"template": "x"}, "syntax should be"),
        ({"template": "x", "params": "p"}, "parameters must be a mapping"),
    ],
)
def test_str_replace_argument_shapes(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match) as info:
        evaluate({"str_replace": args})
    assert str(info.value).startswith("outputs.o.value.str_replace:")


def test_str_replace_template_must_be_string() -> None:
    with pytest.raises(FunctionError, match="template must be a string"):
        evaluate(replace(["x"], {}))


def test_str_replace_placeholders_must_be_strings() -> None:
    with pytest.raises(FunctionError, match="placeholders must be strings"):
        evaluate(replace("x", {1: "a"}))


@pytest.mark.parametrize("version", versions_from("2017-02-24"))
def test_str_replace_strict_requires_every_param(version: str) -> None:
    assert evaluate(replace("a", {"a": "b"}, "str_replace_strict"), version) == "b"
    with pytest.raises(FunctionError, match="not found in the template: bb,c"):
        evaluate(replace("a", {"a": "1", "c": "2", "bb": "3"}, "str_replace_strict"), version)


def test_str_replace_strict_allows_empty_values() -> None:
    assert evaluate(replace("a", {"a": ""}, "str_replace_strict")) == ""


@pytest.mark.parametrize("value", [None, "", [], {}])
def test_str_replace_vstrict_refuses_empty_values(value: Any) -> None:
    with pytest.raises(FunctionError, match="undefined or empty value for param a"):
        evaluate(replace("a", {"a": value}, "str_replace_vstrict"))


def test_str_replace_vstrict_checks_presence_too() -> None:
    with pytest.raises(FunctionError, match="not found in the template: b"):
        evaluate(replace("a", {"a": "1", "b": "2"}, "str_replace_vstrict"))


@pytest.mark.parametrize(
    ("fn", "version"),
    [
        ("str_replace_strict", "2016-10-14"),
        ("str_replace_vstrict", "2017-02-24"),
        ("str_split", "2015-04-30"),
    ],
)
def test_string_functions_of_later_versions_are_data_with_a_warning(
    fn: str, version: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Real Heat 27: {str_split: [",", "a,b"]} in 2013-05-23 outputs that very map.
    with caplog.at_level(logging.WARNING):
        assert evaluate({fn: ["x"]}, version) == {fn: ["x"]}
    assert (
        f'outputs.o.value: "{fn}" is not a function in heat_template_version {version}'
        in caplog.text
    )


@pytest.mark.parametrize("version", versions_from("2013-05-23"))
def test_list_join(version: str) -> None:
    assert evaluate({"list_join": [", ", ["a", "b", None]]}, version) == "a, b, "
    assert evaluate({"list_join": ["-", None]}, version) == ""


@pytest.mark.parametrize("version", versions_before("2015-10-15"))
def test_old_list_join_takes_exactly_one_list(version: str) -> None:
    with pytest.raises(FunctionError, match="Incorrect arguments"):
        evaluate({"list_join": [",", ["a"], ["b"]]}, version)
    with pytest.raises(FunctionError, match="must be strings not"):
        evaluate({"list_join": [",", ["a", {"b": 1}]]}, version)


@pytest.mark.parametrize("version", versions_from("2015-10-15"))
def test_list_join_several_lists_and_json_items(version: str) -> None:
    snippet = {"list_join": [",", ["a", {"b": 1}], [], None, [["c"]]]}
    assert evaluate(snippet, version) == 'a,{"b": 1},["c"]'


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "Incorrect arguments"),
        ([","], "Incorrect arguments"),
        ([",", "abc"], "must operate on a list"),
        ([1, ["a"]], "delimiter must be a string"),
        ([",", [1]], "must be string, map or list"),
    ],
)
def test_list_join_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"list_join": args})


@pytest.mark.parametrize("version", versions_from("2015-10-15"))
def test_str_split(version: str) -> None:
    assert evaluate({"str_split": [",", "a,b,c"]}, version) == ["a", "b", "c"]
    assert evaluate({"str_split": [",", "a,b,c", 1]}, version) == "b"
    assert evaluate({"str_split": [",", "a,b,c", "-1"]}, version) == "c"
    assert evaluate({"str_split": [",", None]}, version) is None


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("a,b", "Incorrect arguments"),
        ({"a": 1}, "Incorrect arguments"),
        ([","], "Incorrect"),
        ([",", "a", 5], "between 0 and 0"),
        ([",", "a", "x"], "Incorrect arguments"),
        (["", "a"], "non-empty string delimiter"),
        ([",", 5], "non-empty string delimiter"),
    ],
)
def test_str_split_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"str_split": args})


@pytest.mark.parametrize("version", versions_from("2015-04-30"))
def test_digest(version: str) -> None:
    assert evaluate({"digest": ["sha256", "abc"]}, version) == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert evaluate({"digest": ["MD5", "abc"]}, version) == "900150983cd24fb0d6963f7d28e17f72"


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["sha256"], "usage"),
        ("abc", "list of strings"),
        (["sha256", 1], "list of strings"),
        (["nope", "a"], "Algorithm must be one of"),
        (["sha256", "€"], "latin-1"),
    ],
)
def test_digest_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"digest": args})


def test_digest_before_2015_04_30_is_data_as_in_heat() -> None:
    assert evaluate({"digest": ["md5", "a"]}, "2014-10-16") == {"digest": ["md5", "a"]}


@pytest.mark.parametrize("version", versions_from("2017-09-01"))
def test_make_url(version: str) -> None:
    snippet = {
        "make_url": {
            "scheme": "http", "username": "u@x", "password": "p:w", "host": "::1", "port": 80,
            "path": "/a b", "query": {"q": "x/y z"}, "fragment": "f g",
        }
    }  # fmt: skip
    assert evaluate(snippet, version) == "http://u%40x:p%3Aw@[::1]:80/a%20b?q=x/y+z#f%20g"


def test_make_url_minimal_and_bracketed_host() -> None:
    assert evaluate({"make_url": {"host": "[fe80::1]", "port": "8080"}}) == "//[fe80::1]:8080"
    assert evaluate({"make_url": {"scheme": "https", "host": "h"}}) == "https://h"


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "must be a map"),
        ({"bogus": 1}, "Invalid arguments"),
        ({"port": "x"}, "Invalid URL port"),
        ({"port": 0}, "must be in range 1-65535"),
        ({"query": "q"}, '"query" argument'),
        ({"host": 5}, '"host" argument'),
        ({"scheme": "a:b"}, "should not contain"),
    ],
)
def test_make_url_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"make_url": args})


def test_make_url_checks_resolved_arguments() -> None:
    params = {"p": {"type": "number", "default": 70000}}
    with pytest.raises(FunctionError, match="range 1-65535"):
        evaluate({"make_url": {"port": {"get_param": "p"}}}, parameters=params)
