"""Building a :class:`~thermik.template.definitions.StackDefinition` from a template.

The order follows Heat's stack validation: parameters (user parameters must be declared,
values must fit their schema), parameter groups, conditions, which resources are enabled,
names shared by parameters and resources, each enabled resource's definition (functions,
references, type through the environment), outputs, and finally the dependency graph.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from thermik.errors import TemplateError, ThermikError
from thermik.template.budget import Budget
from thermik.template.conditions import Conditions
from thermik.template.constraints import CustomValidator
from thermik.template.context import Identity
from thermik.template.definitions import OutputDefinition, ResourceDefinition, StackDefinition
from thermik.template.environment import Environment
from thermik.template.fields import FieldReader
from thermik.template.functions.base import Parser, Scope
from thermik.template.graph import check_acyclic
from thermik.template.parameter_groups import check_parameter_groups
from thermik.template.parameters import Parameters, parse_schemas
from thermik.template.registry import KnownTypes
from thermik.template.template import Template


class StackBuilder:
    """One build of a stack definition; see :func:`thermik.template.build_stack`."""

    def __init__(
        self,
        template: Template,
        environment: Environment,
        params: Mapping[str, Any],
        identity: Identity,
        *,
        custom_constraints: Mapping[str, CustomValidator] | None,
        known_types: KnownTypes | None,
        strict: bool,
        budget: Budget | None = None,
    ) -> None:
        self.template = template
        self.version = template.version
        self.environment = environment
        self.identity = identity
        self.known_types = known_types
        self.parameters = Parameters(
            parse_schemas(template),
            identity=identity,
            version=template.version,
            user_params=params,
            param_defaults=environment.parameter_defaults,
        )
        if strict:
            self.parameters.validate(custom_constraints)
        else:
            self.parameters.check_user_parameters()
        groups_key = self.version.section("parameter_groups")
        if groups_key is not None:
            check_parameter_groups(
                template.raw_section("parameter_groups"), self.parameters.names, groups_key
            )
        self.raw_resources = template.resources()
        self.scope = Scope(
            self.version,
            parameters=self.parameters,
            parameter_names=self.parameters.names,
            files=template.files,
            mappings=template.mappings(),
            all_resources=frozenset(self.raw_resources),
            budget=budget,
        )
        self.scope.conditions = Conditions(template, self.scope)
        self.parser = Parser(self.scope)
        self.resource_spelling = {v: k for k, v in self.version.resource_keys.items()}
        self.output_spelling = {v: k for k, v in self.version.output_keys.items()}
        self.depends_on: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.listed: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def reader(self, name: str, snippet: Mapping[str, Any]) -> FieldReader:
        where = self.template.path("resources", name)
        return FieldReader(self.parser, snippet, where, self.resource_spelling)

    def _enabled(self) -> dict[str, Any]:
        """Enabled resource name -> its parsed condition; the scope learns the names."""
        conditions = {}
        for name, snippet in self.raw_resources.items():
            reader = self.reader(name, snippet)
            condition = reader.condition()
            if reader.enabled(condition):
                conditions[name] = condition
        self.scope.resources = frozenset(conditions)
        return conditions

    def deletion_policies(self) -> dict[str, str]:
        """Enabled resource name -> its canonical deletion policy, nothing else checked."""
        policies = {}
        for name in self._enabled():
            reader = self.reader(name, self.raw_resources[name])
            policy = reader.deletion_policy(self.version.deletion_policies)
            external = reader.parsed("external_id", str) is not None
            policies[name] = "Retain" if external else policy or "Delete"
        return policies

    def build(self) -> StackDefinition:
        conditions = self._enabled()
        self._check_names()
        resources = {
            name: self._resource(name, self.raw_resources[name], condition)
            for name, condition in conditions.items()
        }
        stack = StackDefinition(
            self.template,
            self.environment,
            self.parameters,
            self.identity,
            self.scope,
            resources,
            self._outputs(),
        )
        check_acyclic(stack.dependencies())
        return stack

    def _check_names(self) -> None:
        shared = sorted(self.scope.resources & self.parameters.names)
        if shared:
            raise TemplateError(
                "Duplicate names " + ", ".join(shared) + ": a resource and a parameter "
                "may not share a name"
            )
        for name in self.scope.resources:
            if "/" in name:
                raise TemplateError(
                    'Resource name may not contain "/"', path=self.template.path("resources", name)
                )

    def _checked_depends_on(self, name: str, reader: FieldReader) -> tuple[str, ...]:
        """The resource's ``depends_on``, checked once and shared by every resource listing the
        same names (layers of resources each depending on a whole previous layer)."""
        listed = reader.snippet.get("depends_on")
        if type(listed) is list:
            # Names are interned: equal lists are cheap to recognise before any checking
            # (a list holding something unhashable is not one checked already).
            with contextlib.suppress(TypeError):
                known = self.listed.get(tuple(listed))
                if known is not None:
                    return known
        depends_on = reader.depends_on()
        known = self.depends_on.get(depends_on)
        if known is not None:
            return known
        for dep in depends_on:
            if dep not in self.scope.all_resources:
                raise TemplateError(
                    f'The specified reference "{dep}" (in {name}) is incorrect: the resource '
                    "is not defined",
                    path=reader.path("depends_on"),
                    resource=name,
                )
        self.depends_on[depends_on] = depends_on
        if type(listed) is list:
            self.listed[tuple(listed)] = depends_on
        return depends_on

    def _resource(
        self, name: str, snippet: Mapping[str, Any], condition: Any
    ) -> ResourceDefinition:
        reader = self.reader(name, snippet)
        type_name = reader.type_name()
        depends_on = self._checked_depends_on(name, reader)
        external_id = reader.parsed("external_id", str)
        if external_id is not None and depends_on:
            raise TemplateError(
                f"Invalid dependency with external {type_name} resource: a resource with an "
                "external_id may not depend on other resources",
                path=reader.path("depends_on"),
                resource=name,
            )
        policy = reader.deletion_policy(self.version.deletion_policies)
        try:
            resolved = self.environment.resolve_type(
                name, type_name, self.template.files, self.known_types
            )
        except ThermikError as exc:
            exc.resource = name
            raise exc.at(*reader.path("type")) from None
        return ResourceDefinition(
            name=name,
            type=type_name,
            properties=reader.parsed("properties", dict),
            metadata=reader.parsed("metadata", dict),
            depends_on=depends_on,
            deletion_policy="Retain" if external_id is not None else policy or "Delete",
            update_policy=reader.parsed("update_policy", dict),
            condition=condition,
            external_id=external_id,
            description=reader.description() or "",
            resolved=resolved,
            hooks=self.environment.hooks(name),
            restricted_actions=self.environment.restricted_actions(name),
        )

    def _outputs(self) -> dict[str, OutputDefinition]:
        outputs = {}
        for name, snippet in self.template.outputs().items():
            where = self.template.path("outputs", name)
            reader = FieldReader(self.parser, snippet, where, self.output_spelling)
            description = snippet.get("description")
            if not reader.enabled(reader.condition()):
                outputs[name] = OutputDefinition(name, None, description, enabled=False)
                continue
            value = self.parser.parse(snippet["value"], reader.path("value"))
            outputs[name] = OutputDefinition(name, value, description)
        return outputs
