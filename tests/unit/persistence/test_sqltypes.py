"""Column types: decoding big JSON documents shares their repeated short strings."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.dialects import sqlite

from thermik.persistence.sqltypes import JsonText

DIALECT = sqlite.dialect()


def decode(text: str) -> Any:
    return JsonText().process_result_value(text, DIALECT)


def test_decoded_documents_equal_their_json_and_share_short_strings() -> None:
    name = "".join(["layer", "_1"])  # built at run time, so not interned by the compiler
    long = "x" * 100
    padding = ", ".join([f'"{i}"' for i in range(1000)])
    text = (
        f'{{"a": {{"depends_on": ["{name}", "{name}"], "long": "{long}"}}, "b": ["{name}"],'
        f' "padding": [{padding}]}}'
    )
    first, second = decode(text), decode(text)
    assert first == second == json.loads(text)
    assert first["b"] == [name]
    assert first["a"]["depends_on"][0] is second["a"]["depends_on"][1] is second["b"][0]
    assert first["a"]["long"] is not second["a"]["long"]
    small = decode(f'["{name}"]')
    assert small == [name]
    assert small[0] is not name  # small documents decode plainly: they are not worth it
    assert decode("null") is None
    assert decode("[[1, true], null]") == [[1, True], None]


def test_equal_lists_of_a_document_are_recognised_but_stay_separate_lists() -> None:
    names = [f"r{i}" for i in range(600)]
    document = {
        "a": {"depends_on": names},
        "b": {"depends_on": list(names)},
        "c": [{"x": 1}, [1, 2], names[:2]],
    }
    decoded = decode(json.dumps(document))
    assert decoded == document
    first, second = decoded["a"]["depends_on"], decoded["b"]["depends_on"]
    assert first is not second
    assert all(a is b for a, b in zip(first, second, strict=True))
    first.append("mine")
    assert len(second) == len(names)
