"""The resources a stack preview shows, as Heat's preview shows them.

Every resource is shown as it would be before it is made (``INIT``/``COMPLETE``, no physical
id, no times) with its properties as they would be given to it (the schema's defaults filled
in, values that need runtime data ``None``) and its attributes by name. A resource that becomes
a nested stack (a template resource; a group's members) is shown as the list of the nested
stack's resources instead, recursively, each naming the nested stack (``<stack>-<resource>``)
and the resource it is the child of.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from thermik.api.boundary import PreviewNode, StackIdentity
from thermik.conf.settings import LimitSettings
from thermik.errors import ThermikError
from thermik.orchestration.checks import static_properties, unresolved, without_runtime
from thermik.orchestration.views import planned_resource_view
from thermik.resources import Registry, ResourcePlugin
from thermik.resources.nested_group import MemberCheck, NestedGroup
from thermik.template import Environment, Identity, StackDefinition, Template, build_stack


class Previewer:
    """Previews of the stacks of one request (its registry and limits)."""

    def __init__(self, registry: Registry, limits: LimitSettings) -> None:
        self.registry = registry
        self.limits = limits

    def resources(
        self, definition: StackDefinition, parent_resource: str | None = None
    ) -> list[PreviewNode]:
        """The preview of every resource of ``definition``, in creation order."""
        stack = StackIdentity(definition.identity.stack_name, "None")
        required_by = definition.required_by()
        meter = definition.meter()
        nodes: list[PreviewNode] = []
        for name in definition.creation_order():
            resource = definition.resources[name]
            values = static_properties(definition, name, lenient=True, meter=meter)
            if resource.resolved.is_template:
                assert resource.resolved.template is not None
                parent = _Parent.of(definition)
                nodes.append(self.child(parent, name, resource.resolved.template, values))
                continue
            plugin = self.registry.get(resource.resolved.implementation, resource=name)
            group = self.group(definition, name, plugin, values)
            if group is not None:
                nodes.append(group)
                continue
            nodes.append(
                planned_resource_view(
                    name,
                    resource.type,
                    stack,
                    required_by=sorted(required_by[name]),
                    description=resource.description,
                    properties=shown_properties(plugin, values),
                    attributes=dict.fromkeys(plugin.attributes_schema),
                    parent_resource=parent_resource,
                )
            )
        return nodes

    def child(self, parent: _Parent, name: str, text: str, values: Any) -> list[PreviewNode]:
        """The preview of the nested stack the template ``text`` of resource ``name`` makes."""
        template = Template.load(text, parent.files, max_size=self.limits.max_template_size)
        known = {}
        if isinstance(values, Mapping):
            known = {k: v for k, v in values.items() if not unresolved(v) and v is not None}
        nested = build_stack(
            template,
            Environment(registry=parent.registry),
            known,
            Identity(stack_name=f"{parent.stack_name}-{name}"),
            known_types=self.registry.__contains__,
            strict=False,
            budget=self.limits.function_budget(),
        )
        return self.resources(nested, parent_resource=name)

    def group(
        self, definition: StackDefinition, name: str, plugin: type[ResourcePlugin], values: Any
    ) -> list[PreviewNode] | None:
        """The preview of a group's nested stack (its members); ``None`` if not a group."""
        if not issubclass(plugin, NestedGroup) or not isinstance(values, Mapping):
            return None
        try:
            checked = plugin.check_properties(values, unresolved=unresolved)
            members, repeat = plugin.members_to_check(checked)
        except ThermikError:
            return None
        child = _Parent.of(definition, f"{definition.identity.stack_name}-{name}")
        nodes: list[PreviewNode] = []
        for index in range(repeat):
            for member in members:
                # A group of ``count`` copies of one definition names them by index.
                member_name = str(index) if repeat > 1 else member.name
                nodes.append(self.member(child, name, member, member_name))
        return [nodes]

    def member(self, child: _Parent, group: str, member: MemberCheck, name: str) -> PreviewNode:
        """One member of a group's nested stack ``child``."""
        resolved = child.environment.resolve_type(
            name, str(member.type), child.files, self.registry.__contains__
        )
        if resolved.is_template:
            assert resolved.template is not None
            return self.child(child, name, resolved.template, member.properties)
        plugin = self.registry.get(resolved.implementation)
        return planned_resource_view(
            name,
            str(member.type),
            StackIdentity(child.stack_name, "None"),
            properties=shown_properties(plugin, member.properties or {}),
            attributes=dict.fromkeys(plugin.attributes_schema),
            parent_resource=group,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class _Parent:
    """What a nested stack takes from the stack it is in: its name, files and registry."""

    stack_name: str
    files: Mapping[str, str]
    environment: Environment

    @property
    def registry(self) -> Any:
        return self.environment.registry

    @classmethod
    def of(cls, definition: StackDefinition, name: str | None = None) -> _Parent:
        return cls(
            name or definition.identity.stack_name,
            definition.template.files,
            definition.environment,
        )


def shown_properties(plugin: type[ResourcePlugin], values: Any) -> dict[str, Any]:
    """The properties a resource would get: its schema's defaults filled in, runtime values
    ``None`` (as given when they do not fit the schema: a preview never fails on them)."""
    if not isinstance(values, Mapping):
        return {}
    try:
        checked = plugin.check_properties(values, unresolved=unresolved)
    except ThermikError:
        checked = dict(values)
    shown = without_runtime(dict(checked))
    return shown if isinstance(shown, dict) else {}
