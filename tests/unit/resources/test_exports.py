"""The plugin SDK surface is exactly what ``__all__`` says, and every name resolves."""

from __future__ import annotations

import thermik.resources as sdk

EXPECTED = {
    "ENTRY_POINT_GROUP",
    "AllowedPattern",
    "AllowedValues",
    "AttributeSchema",
    "AttributeType",
    "AttributesSchema",
    "CacheMode",
    "CheckResult",
    "Clock",
    "Constraint",
    "CustomConstraint",
    "CustomValidator",
    "Length",
    "Modulo",
    "NeedsReplacement",
    "Operation",
    "PollAfter",
    "Progress",
    "PropertiesSchema",
    "PropertySchema",
    "Props",
    "Range",
    "Registry",
    "ResourceContext",
    "ResourceData",
    "ResourcePlugin",
    "StackIdentity",
    "SupportLevel",
    "SupportStatus",
    "Type",
    "Unresolved",
    "UpdatePlan",
    "ValidationContext",
    "changed_properties",
    "never_unresolved",
    "physical_resource_name",
    "plan_update",
    "select_path",
    "validate_properties",
}


def test_all_is_the_supported_surface() -> None:
    assert set(sdk.__all__) == EXPECTED
    assert len(sdk.__all__) == len(EXPECTED)


def test_every_exported_name_resolves() -> None:
    missing = [name for name in sdk.__all__ if not hasattr(sdk, name)]
    assert not missing


def test_public_module_names_are_all_exported() -> None:
    public = {
        name
        for name, value in vars(sdk).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("thermik.")
    }
    assert public <= set(sdk.__all__)
