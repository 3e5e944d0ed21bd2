"""``NestedParameters`` of a template validate with ``show_nested``, as Heat answers it.

For each template resource (a type naming a template file, or a registry entry mapping to one),
the nested template's description and parameters as validate shows them, the parameters the
resource's properties give a value to with their ``Value``, its type, and the same for the
template resources inside it (``NestedParameters`` again, only where there are some).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermik.conf.settings import LimitSettings
from thermik.orchestration.checks import declared_only, static_properties, unresolved
from thermik.template import Environment, Identity, StackDefinition, Template, build_stack
from thermik.template.registry import KnownTypes
from thermik.template.validate import validate_template


def nested_parameters(
    definition: StackDefinition, limits: LimitSettings, known_types: KnownTypes, depth: int = 0
) -> dict[str, Any]:
    """The ``NestedParameters`` of ``definition``'s template resources, by resource name."""
    found: dict[str, Any] = {}
    if depth >= limits.max_nested_stack_depth:
        return found
    meter = definition.meter()
    for name, resource in definition.resources.items():
        text = resource.resolved.template
        if not resource.resolved.is_template or text is None:
            continue
        values = static_properties(definition, name, lenient=True, meter=meter)
        given = {}
        if isinstance(values, Mapping):
            given = {k: v for k, v in values.items() if not unresolved(v) and v is not None}
        template = Template.load(
            text, definition.template.files, max_size=limits.max_template_size
        )
        # A property the template has no parameter for is not a parameter's value (Heat's
        # validate does not check nested template resources' properties).
        given = declared_only(template, given)
        environment = Environment(registry=definition.environment.registry)
        described = validate_template(template, environment, given, known_types=known_types)
        entry: dict[str, Any] = {
            "Description": described["Description"],
            "Parameters": described["Parameters"],
            "Type": resource.type,
        }
        child = build_stack(
            template,
            environment,
            given,
            Identity(stack_name=f"{definition.identity.stack_name}-{name}"),
            known_types=known_types,
            strict=False,
            budget=limits.function_budget(),
        )
        deeper = nested_parameters(child, limits, known_types, depth + 1)
        if deeper:
            entry["NestedParameters"] = deeper
        found[name] = entry
    return found
