"""Resource plugins: the contract every resource type implements, and the built-in types.

This module is the plugin SDK: third-party resource types import what they need from here and
register their classes under the ``thermik.resources`` entry point group (name = resource type,
value = ``module:Class``). The names below are the supported surface; everything else in the
package may change without notice.
"""

from __future__ import annotations

from thermik.resources.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    CustomValidator,
    Length,
    Modulo,
    Range,
)
from thermik.resources.context import (
    Clock,
    ResourceContext,
    ResourceData,
    StackIdentity,
    ValidationContext,
    physical_resource_name,
)
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    Operation,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
    UpdatePlan,
    changed_properties,
    plan_update,
    select_path,
)
from thermik.resources.properties import Unresolved, never_unresolved, validate_properties
from thermik.resources.registry import ENTRY_POINT_GROUP, Registry
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)

__all__ = [
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
]
