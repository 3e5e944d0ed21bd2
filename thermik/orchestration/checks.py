"""Checking every resource of a stack definition before anything is stored.

Heat's ``Stack.validate()``: each resource's type must exist, its properties must fit the
plugin's schema (values that need runtime data, such as ``get_attr``, are checked once they
are known), the plugin's own cross-property checks must pass, template resources are checked
as the nested stacks they become, update policies must fit the type's update-policy schema,
group types' member definitions are checked as the members they become (errors name the
group's property), and the whole tree must stay within ``max_resources_per_stack`` and
``max_nested_stack_depth``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from thermik.conf.settings import LimitSettings
from thermik.errors import (
    PropertyError,
    PropertyValueError,
    TemplateError,
    TemplateTooLarge,
    ThermikError,
)
from thermik.orchestration.attribute_refs import check_attribute_references
from thermik.orchestration.function_descriptions import DESCRIPTIONS
from thermik.orchestration.service_check import ServiceCheck
from thermik.resources import CustomValidator, Props, Registry, ResourcePlugin, ValidationContext
from thermik.resources.nested_group import MemberCheck, NestedGroup
from thermik.resources.properties import validate_properties
from thermik.resources.template_resource import TemplateResource
from thermik.template import (
    Environment,
    Identity,
    ResourceDefinition,
    StackDefinition,
    Template,
    build_stack,
    is_unresolved,
)
from thermik.template.budget import Meter
from thermik.template.spelling import typo_hint

#: The deletion policy only the types that keep a copy on delete take.
SNAPSHOT: Final = "Snapshot"


class _Unknown:
    """A value that cannot be known before the stack runs (lenient checks only)."""

    def __repr__(self) -> str:
        return "<unknown>"


#: Stands in for a value whose static resolution failed in a lenient check.
UNKNOWN: Final = _Unknown()


def unresolved(value: Any) -> bool:
    """The ``unresolved`` predicate for property checks: runtime functions and UNKNOWN."""
    return value is UNKNOWN or is_unresolved(value)


def static_value(
    definition: StackDefinition, value: Any, *, lenient: bool = False, meter: Meter | None = None
) -> Any:
    """Resolve every part of ``value`` that needs no runtime data; keep the parts that do.

    Runtime parts stay parsed functions (``is_unresolved`` recognises them). With
    ``lenient``, a part that fails to resolve (a parameter without a value while validating
    a template) becomes :data:`UNKNOWN` instead of an error, unless it failed for exceeding
    the budget. Every part spends ``meter`` (one for the whole value if ``None``).
    """
    meter = definition.meter() if meter is None else meter
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if is_unresolved(item):
                out[key] = static_value(definition, item, lenient=lenient, meter=meter)
            else:
                # Resolving the one-entry map drops the entry when an ``if`` removes it.
                out.update(_resolve(definition, {key: item}, lenient, {key: UNKNOWN}, meter))
        return out
    if isinstance(value, list):
        items: list[Any] = []
        for item in value:
            if is_unresolved(item):
                items.append(static_value(definition, item, lenient=lenient, meter=meter))
            else:
                items.extend(_resolve(definition, [item], lenient, [UNKNOWN], meter))
        return items
    if is_unresolved(value):
        return value
    return _resolve(definition, value, lenient, UNKNOWN, meter)


def _resolve(
    definition: StackDefinition, value: Any, lenient: bool, unknown: Any, meter: Meter
) -> Any:
    try:
        return definition.resolve(value, meter=meter)
    except TemplateTooLarge:
        raise
    except ThermikError:
        if lenient:
            return unknown
        raise


def without_runtime(value: Any) -> Any:
    """``value`` with every part that needs runtime data replaced by ``None`` (previews)."""
    if isinstance(value, dict):
        return {key: without_runtime(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_runtime(item) for item in value]
    return None if unresolved(value) else value


def static_properties(
    definition: StackDefinition, name: str, *, lenient: bool = False, meter: Meter | None = None
) -> dict[str, Any] | Any:
    """Resource ``name``'s properties with everything static resolved (spending ``meter``)."""
    raw = definition.resources[name].properties
    if raw is None:
        return {}
    return static_value(definition, raw, lenient=lenient, meter=meter)


def property_value_error(exc: ThermikError, name: str) -> PropertyValueError:
    """``exc``, raised resolving resource ``name``'s properties, as Heat reports it: at the
    property (the path stops before the first function, the ``get_param`` of
    ``resources.r.properties.value.get_param``)."""
    path = list(exc.path)
    for index, element in enumerate(path):
        if isinstance(element, str) and (element in DESCRIPTIONS or element.startswith("Fn::")):
            path = path[:index]
            break
    if path[:2] != ["resources", name]:
        path = ["resources", name, "properties"]
    error = PropertyValueError(exc.message, path=path, parameter=exc.parameter)
    error.resource = name
    return error


def declared_only(template: Template, values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` of the parameters ``template`` declares (the others are left out)."""
    declared = template.raw_section("parameters") or {}
    return {k: v for k, v in values.items() if k in declared}


def check_resources(
    definition: StackDefinition,
    registry: Registry,
    limits: LimitSettings,
    *,
    lenient: bool = False,
    custom_constraints: Mapping[str, CustomValidator] | None = None,
    services: ServiceCheck | None = None,
) -> None:
    """Check every resource of ``definition`` (and of the nested stacks it defines), every
    static evaluation of their functions spending one budget; with ``services``, that each
    plugin type's service is in the caller's catalog."""
    checker = _Checker(registry, limits, lenient, custom_constraints, definition.meter(), services)
    total = checker.stack(definition, depth=0)
    if total > limits.max_resources_per_stack:
        raise TemplateTooLarge(
            f"The stack has {total} resources; at most {limits.max_resources_per_stack} "
            "(max_resources_per_stack) are allowed, nested stacks included"
        )


class _Checker:
    """One check of a stack tree."""

    def __init__(
        self,
        registry: Registry,
        limits: LimitSettings,
        lenient: bool,
        custom: Mapping[str, CustomValidator] | None,
        meter: Meter,
        services: ServiceCheck | None = None,
    ) -> None:
        self.registry = registry
        self.limits = limits
        self.lenient = lenient
        self.custom = custom
        self.meter = meter
        self.services = services

    def stack(self, definition: StackDefinition, depth: int) -> int:
        """Check a stack's resources; how many resources the tree holds."""
        total = len(definition.resources)
        for name, resource in definition.resources.items():
            try:
                if resource.resolved.is_template:
                    total += self.template_resource(definition, resource, depth)
                else:
                    total += self.plugin_resource(definition, resource, depth)
            except ThermikError as exc:
                if exc.resource is None:
                    exc.resource = name
                raise
        check_attribute_references(definition, self.registry)
        return total

    def plugin_resource(
        self, definition: StackDefinition, resource: ResourceDefinition, depth: int
    ) -> int:
        """Check a plugin resource; how many resources the child of a group type holds."""
        name = resource.name
        plugin = self.registry.get(resource.resolved.implementation, resource=name)
        if self.services is not None:
            self.services.check(resource.type, resource.resolved.implementation, name)
        if resource.external_id is not None:
            # An external resource is adopted, never made from its properties: Heat checks
            # only that it exists, so a server named by external_id needs no flavor.
            return 0
        try:
            values = static_properties(definition, name, lenient=self.lenient, meter=self.meter)
        except (TemplateTooLarge, PropertyError):
            raise
        except ThermikError as exc:
            raise property_value_error(exc, name) from None
        props = self.properties(plugin, values, ("resources", name, "properties"))
        self.update_policy(definition, plugin, resource)
        if resource.deletion_policy == SNAPSHOT and not plugin.snapshots_on_delete:
            raise TemplateError(
                f'"{SNAPSHOT}" deletion policy not supported',
                path=("resources", name, "deletion_policy"),
                resource=name,
            )
        try:
            self.validate(plugin, props, definition.template.files)
            return self.group(definition, plugin, props, depth)
        except ThermikError as exc:
            raise exc.at("resources", name) from None

    def properties(
        self, plugin: type[ResourcePlugin], values: Any, where: tuple[str | int, ...]
    ) -> dict[str, Any]:
        try:
            return plugin.check_properties(
                values, unresolved=unresolved, custom_constraints=self.custom, path=where
            )
        except PropertyError as exc:
            raise _with_typo_hint(exc, values, len(where)) from None

    def update_policy(
        self,
        definition: StackDefinition,
        plugin: type[ResourcePlugin],
        resource: ResourceDefinition,
    ) -> None:
        """Check the resource's ``update_policy`` against the type's schema (types without one
        ignore it)."""
        if not plugin.update_policy_schema or resource.update_policy is None:
            return
        values = static_value(
            definition, resource.update_policy, lenient=self.lenient, meter=self.meter
        )
        if unresolved(values):
            return
        validate_properties(
            plugin.update_policy_schema,
            values,
            unresolved=unresolved,
            path=("resources", resource.name, "update_policy"),
        )

    def validate(
        self, plugin: type[ResourcePlugin], props: Props, files: Mapping[str, str] | None = None
    ) -> None:
        vctx = ValidationContext(
            unresolved=unresolved,
            strict=not self.lenient,
            custom_constraints=self.custom or {},
            files=files or {},
        )
        plugin().validate(props, vctx)

    def within_depth(self, depth: int) -> None:
        deepest = self.limits.max_nested_stack_depth
        if depth > deepest:
            raise TemplateTooLarge(f"Recursion depth exceeds {deepest}.")

    def group(
        self, definition: StackDefinition, plugin: type[ResourcePlugin], props: Props, depth: int
    ) -> int:
        """Check a group type's members (paths relative to the group); its child's size."""
        if not issubclass(plugin, NestedGroup):
            return 0
        members, repeat = plugin.members_to_check(props)
        if members:
            self.within_depth(depth + 1)
        return repeat * sum(1 + self.member(definition, m, depth + 1) for m in members)

    def member(self, definition: StackDefinition, member: MemberCheck, depth: int) -> int:
        """Check one member definition of a group's child (at ``depth``); its nested size."""
        if unresolved(member.type):
            return 0
        if not isinstance(member.type, str):
            raise PropertyError(
                f"a member type must be a string, not {member.type!r}", path=member.type_path
            )
        try:
            resolved = definition.environment.resolve_type(
                member.name, member.type, definition.template.files, self.registry.__contains__
            )
            plugin = None if resolved.is_template else self.registry.get(resolved.implementation)
        except ThermikError as exc:
            raise exc.at(*member.type_path) from None
        if plugin is None:
            assert resolved.template is not None
            where = (member.properties_path, member.type_path)
            return self.child_stack(
                definition, member.name, resolved.template, member.properties, depth, where
            )
        props = self.properties(plugin, member.properties, member.properties_path)
        try:
            self.validate(plugin, props)
        except ThermikError as exc:
            raise exc.at(*member.properties_path[:-1]) from None
        return self.group(definition, plugin, props, depth)

    def template_resource(
        self, definition: StackDefinition, resource: ResourceDefinition, depth: int
    ) -> int:
        """Check a template resource as the nested stack it becomes; its resource count."""
        name = resource.name
        assert resource.resolved.template is not None
        values = static_properties(definition, name, lenient=True, meter=self.meter)
        where = (("resources", name, "properties"), ("resources", name))
        return self.child_stack(definition, name, resource.resolved.template, values, depth, where)

    def child_stack(
        self,
        definition: StackDefinition,
        name: str,
        text: str,
        values: Any,
        depth: int,
        where: tuple[tuple[str | int, ...], tuple[str | int, ...]],
    ) -> int:
        """Check the nested stack a template resource ``name`` of a stack at ``depth`` becomes
        (with the property ``values`` known now as parameters); its resource count.

        ``where`` holds the paths errors are reported at: the resource's properties, and the
        resource itself (for errors inside the template).
        """
        properties_path, resource_path = where
        try:
            self.within_depth(depth + 1)
            template = Template.load(
                text, definition.template.files, max_size=self.limits.max_template_size
            )
        except ThermikError as exc:
            raise exc.at(*resource_path) from None
        # Its properties are the template's parameters (names, types, constraints). Validating
        # a template, Heat checks them for the top level's template resources only: deeper
        # ones are checked for their templates' structure.
        if not (self.lenient and depth >= 1):
            defaulted = frozenset(definition.environment.parameter_defaults)
            TemplateResource.for_template(template.data, {}, defaulted).check_properties(
                values,
                unresolved=unresolved,
                custom_constraints=self.custom,
                path=properties_path,
            )
        if not isinstance(values, Mapping):
            values = {}
        known = {k: v for k, v in values.items() if not unresolved(v) and v is not None}
        if self.lenient and depth >= 1:
            known = declared_only(template, known)
        try:
            nested = build_stack(
                template,
                Environment(registry=definition.environment.registry),
                known,
                Identity(stack_name=f"{definition.identity.stack_name}-{name}"),
                known_types=self.registry.__contains__,
                strict=False,
                budget=self.limits.function_budget(),
            )
            nested_checker = _Checker(self.registry, self.limits, True, self.custom, self.meter)
            return nested_checker.stack(nested, depth + 1)
        except ThermikError as exc:
            raise exc.at(*resource_path) from None


def _with_typo_hint(error: PropertyError, values: Any, depth: int) -> PropertyError:
    """``error`` saying which function its value meant, when that value is a one-key mapping
    named like a function (``get_parm``): taken as data, as in Heat, it fails far from its
    cause. Said here, not by the plugins' schemas, which know no template functions."""
    raw = values
    for step in error.path[depth:]:
        try:
            raw = raw[step]
        except (KeyError, IndexError, TypeError):
            return error
    hint = typo_hint(raw)
    if hint and not error.message.endswith(hint):
        error.message += hint
        error.args = (str(error),)
    return error
