"""Schemas check themselves when declared and render as Heat's resource-type API does."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PluginError
from thermik.resources import (
    AllowedPattern,
    AllowedValues,
    AttributeSchema,
    AttributeType,
    CacheMode,
    Length,
    PropertySchema,
    Range,
    SupportLevel,
    SupportStatus,
    Type,
)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: PropertySchema(Type.STRING, update_allowed=True, immutable=True),
            "Options update_allowed and immutable cannot both be True",
        ),
        (
            lambda: PropertySchema(Type.MAP, schema=PropertySchema(Type.STRING)),
            "Single schema valid only for List, not Map",
        ),
        (
            lambda: PropertySchema(Type.STRING, schema={"a": PropertySchema(Type.STRING)}),
            "Schema valid only for List or Map, not String",
        ),
        (
            lambda: PropertySchema(Type.LIST, schema={"a": PropertySchema(Type.STRING)}),
            "A List takes a single item schema, not a mapping",
        ),
        (
            lambda: PropertySchema(Type.STRING, constraints=(Range(1, 2),)),
            "Range constraint invalid for String",
        ),
        (
            lambda: PropertySchema(Type.MAP, constraints=(AllowedPattern("x"),)),
            "AllowedPattern constraint invalid for Map",
        ),
        (
            lambda: PropertySchema(Type.INTEGER, default=0, constraints=(Range(1, 2),)),
            "Invalid default 0 (0 is out of range (min: 1, max: 2))",
        ),
    ],
)
def test_self_contradicting_schemas_are_plugin_bugs(build: Any, message: str) -> None:
    with pytest.raises(PluginError) as info:
        build()
    assert str(info.value) == message


def test_nested_schema_accessors() -> None:
    item = PropertySchema(Type.STRING)
    listed = PropertySchema(Type.LIST, schema=item)
    mapped = PropertySchema(Type.MAP, schema={"k": item})
    assert listed.item_schema is item
    assert listed.entry_schemas is None
    assert mapped.entry_schemas == {"k": item}
    assert mapped.item_schema is None


def test_nested_map_schema_cannot_be_changed_after_declaration() -> None:
    entries = {"k": PropertySchema(Type.STRING)}
    mapped = PropertySchema(Type.MAP, schema=entries)
    entries["other"] = PropertySchema(Type.STRING)
    assert mapped.entry_schemas is not None
    assert list(mapped.entry_schemas) == ["k"]
    with pytest.raises(TypeError):
        mapped.entry_schemas["x"] = PropertySchema(Type.STRING)  # type: ignore[index]


def test_property_as_dict_matches_heat_listing_shape() -> None:
    schema = PropertySchema(
        Type.LIST,
        "Things.",
        default=["a"],
        schema=PropertySchema(Type.STRING, constraints=(AllowedValues(("a", "b")),)),
        constraints=(Length(min=1),),
        update_allowed=True,
    )
    assert schema.as_dict() == {
        "type": "list",
        "description": "Things.",
        "default": ["a"],
        "schema": {
            "*": {
                "type": "string",
                "required": False,
                "constraints": [{"allowed_values": ["a", "b"]}],
                "update_allowed": False,
                "immutable": False,
            }
        },
        "required": False,
        "constraints": [{"length": {"min": 1}}],
        "update_allowed": True,
        "immutable": False,
    }


def test_attribute_and_support_status_as_dict() -> None:
    attr = AttributeSchema("The value.", type=AttributeType.STRING, cache_mode=CacheMode.NONE)
    assert attr.as_dict() == {"description": "The value.", "type": "string"}
    assert AttributeSchema().as_dict() == {}
    status = SupportStatus(
        SupportLevel.HIDDEN,
        version="7.0.0",
        message="gone",
        previous=SupportStatus(SupportLevel.DEPRECATED, version="2014.2"),
    )
    assert status.as_dict() == {
        "status": "HIDDEN",
        "message": "gone",
        "version": "7.0.0",
        "previous_status": {
            "status": "DEPRECATED",
            "message": None,
            "version": "2014.2",
            "previous_status": None,
        },
    }
