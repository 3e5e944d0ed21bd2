"""The template layer (pure): HOT and CFN templates, environments, parameters, functions.

Typical use::

    template = Template.load(text, files)
    environment = merge_environments([parse_environment(t) for t in env_texts],
                                     user_params=params, parameter_types=...)
    stack = build_stack(template, environment, {}, Identity(stack_name="web"))
    stack.dependencies()                        # {name: frozenset(required names)}
    stack.resolve_properties("server", ctx)     # ctx: the engine's ResolutionContext

Everything here raises only :class:`thermik.errors.ThermikError` subclasses.
"""

from __future__ import annotations

from thermik.template.context import Identity, ResolutionContext, StaticContext
from thermik.template.definitions import (
    OutputDefinition,
    OutputResult,
    ResourceDefinition,
    StackDefinition,
    build_stack,
    deletion_policies,
    is_unresolved,
)
from thermik.template.environment import Environment, merge_environments, parse_environment
from thermik.template.paths import select_path
from thermik.template.registry import ResolvedType
from thermik.template.template import Template
from thermik.template.validate import validate_template

__all__ = [
    "Environment",
    "Identity",
    "OutputDefinition",
    "OutputResult",
    "ResolutionContext",
    "ResolvedType",
    "ResourceDefinition",
    "StackDefinition",
    "StaticContext",
    "Template",
    "build_stack",
    "deletion_policies",
    "is_unresolved",
    "merge_environments",
    "parse_environment",
    "select_path",
    "validate_template",
]
