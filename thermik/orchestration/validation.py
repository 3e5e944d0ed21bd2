"""Checking a stack's resources against their plugins before anything runs.

This is the half of Heat's stack validation that needs the plugin registry: every resource's
type must exist, and every property value known before the stack runs must satisfy the type's
schema. Values that need runtime data (``get_attr``, ``get_resource``) are left for the
resource actor, which validates again once they are resolved. The checks themselves are
:mod:`thermik.orchestration.checks`, which the service runs before it stores a stack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from thermik.conf.settings import LimitSettings
from thermik.orchestration.checks import check_resources
from thermik.orchestration.service_check import ServiceCheck
from thermik.resources.constraints import CustomValidator
from thermik.resources.net_constraints import with_pure
from thermik.resources.registry import Registry
from thermik.template import StackDefinition


def known_types(registry: Registry) -> Callable[[str], bool]:
    """The template layer's ``known_types`` predicate for ``registry``."""
    return registry.__contains__


def validate_resources(
    stack: StackDefinition,
    registry: Registry,
    *,
    custom_constraints: Mapping[str, CustomValidator] | None = None,
    limits: LimitSettings | None = None,
    lenient: bool = False,
    services: ServiceCheck | None = None,
) -> None:
    """Raise the first error found in any resource's type or properties (the cloud-free
    custom constraints apply with ``custom_constraints``, or alone without). ``lenient``
    checks a template as Heat's validate does: what needs a parameter given no value is not
    judged. ``services`` checks that each type's service is in the caller's catalog.

    Raises:
        ResourceTypeNotFound: a built-in type that no plugin implements.
        PropertyError: a property fails its schema; the path names resource and property.
        FunctionError, ParameterError: a function in a property cannot be resolved.
        TemplateTooLarge: more resources or deeper nesting than ``limits`` allow.
        ResourceTypeUnavailable: a type's service is not in the catalog (with ``services``).
    """
    custom = with_pure(custom_constraints)
    check_resources(
        stack,
        registry,
        limits or LimitSettings(),
        custom_constraints=custom,
        lenient=lenient,
        services=services,
    )
