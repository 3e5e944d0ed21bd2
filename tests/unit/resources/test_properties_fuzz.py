"""Any JSON-like input either validates or fails with one PropertyError; never a traceback.
Validated output validates to itself (coercion is idempotent)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from thermik.errors import PropertyError
from thermik.resources import (
    AllowedPattern,
    AllowedValues,
    Length,
    Modulo,
    PropertySchema,
    Range,
    Type,
    validate_properties,
)

SCHEMA = {
    "s": PropertySchema(Type.STRING, constraints=(AllowedPattern("[a-z0-9]*"), Length(max=8))),
    "i": PropertySchema(Type.INTEGER, default=4, constraints=(Range(0, 100), Modulo(2, 0))),
    "n": PropertySchema(Type.NUMBER),
    "b": PropertySchema(Type.BOOLEAN),
    "a": PropertySchema(Type.ANY),
    "l": PropertySchema(
        Type.LIST,
        schema=PropertySchema(Type.STRING, constraints=(AllowedValues(("x", "y")),)),
    ),
    "m": PropertySchema(
        Type.MAP,
        schema={
            "k": PropertySchema(Type.INTEGER, required=True),
            "v": PropertySchema(Type.LIST, allow_conversion=True),
        },
    ),
    "c": PropertySchema(Type.MAP, allow_conversion=True),
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["true", "False", "12", "3.5", "x", "y", "a,b"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["k", "v", "z"]), children, max_size=3)
    ),
    max_leaves=12,
)
property_sets = st.dictionaries(st.sampled_from([*SCHEMA, "unknown"]), json_values, max_size=6)


def only_given(result: dict[str, Any]) -> dict[str, Any]:
    """Drop the "not given" entries of the top level and of the map with a schema."""
    out = {k: v for k, v in result.items() if v is not None}
    if isinstance(out.get("m"), dict):
        out["m"] = {k: v for k, v in out["m"].items() if v is not None}
    return out


@settings(max_examples=300, deadline=None)
@given(property_sets)
def test_validation_fails_cleanly_or_is_idempotent(values: dict[str, Any]) -> None:
    try:
        result = validate_properties(SCHEMA, values, path=("resources", "r", "properties"))
    except PropertyError as exc:
        problem = str(exc)
    else:
        problem = ""
        assert list(result) == list(SCHEMA)
        # None in the output means "not given"; an explicit null in the input means "the
        # type's empty value" (as in Heat), so only the given entries are fed back.
        assert validate_properties(SCHEMA, only_given(result)) == result
    assert not problem or problem.startswith("resources.r.properties")
