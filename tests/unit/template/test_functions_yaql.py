"""yaql: expressions over data, with Heat's limits."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.template.support import evaluate, versions_from
from thermik.errors import FunctionError


@pytest.mark.parametrize("version", versions_from("2016-10-14"))
def test_yaql(version: str) -> None:
    snippet = {"yaql": {"expression": "$.data.l.select($ * 2)", "data": {"l": [1, 2, 3]}}}
    assert evaluate(snippet, version) == [2, 4, 6]


def test_yaql_results_become_json_data() -> None:
    assert evaluate({"yaql": {"expression": "$.data.l.toSet()", "data": {"l": [1, 1]}}}) == [1]
    assert evaluate({"yaql": {"expression": "dict(a => 1)"}}) == {"a": 1}


def test_yaql_data_may_hold_functions() -> None:
    params = {"p": {"type": "comma_delimited_list", "default": "a,b"}}
    snippet = {"yaql": {"expression": "$.data.p.len()", "data": {"p": {"get_param": "p"}}}}
    assert evaluate(snippet, parameters=params) == 2


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "must be a map"),
        ({"data": {}}, "syntax should be"),
        ({"expression": "1", "extra": 1}, "syntax should be"),
        ({"expression": 5}, "must contain a string"),
        ({"expression": "$.["}, "Bad expression"),
        ({"expression": "range(1000)"}, "Collection length exceeds 200"),
        ({"expression": "1 / 0"}, "ZeroDivisionError"),
    ],
)
def test_yaql_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"yaql": args})


def test_yaql_before_2016_10_14_is_data_as_in_heat() -> None:
    assert evaluate({"yaql": {"expression": "1"}}, "2016-04-08") == {"yaql": {"expression": "1"}}
