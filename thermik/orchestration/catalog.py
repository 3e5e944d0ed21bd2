"""What templates can use, template validation, and the engine's own description.

Resource types come from the plugin Registry (hidden ones are not listed), template versions
and their functions from the template layer's version table, and validation is the template
layer's (Heat's validate result) plus the checks every resource gets before a create, leniently:
parameters need no values to validate a template.
"""

from __future__ import annotations

import datetime
import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any

import thermik
from thermik.api.boundary import (
    Json,
    ParameterInfo,
    RequestContext,
    ResourceTypeView,
    ServiceView,
    StackRequest,
    TemplateFunctionView,
    TemplateVersionView,
    ValidationView,
)
from thermik.errors import InvalidInput, NotFound, ResourceTypeNotFound
from thermik.orchestration.base import Base
from thermik.orchestration.checks import check_resources
from thermik.orchestration.function_descriptions import DESCRIPTIONS
from thermik.orchestration.nested_parameters import nested_parameters
from thermik.orchestration.prepare import check_sources, load_template, request_environment
from thermik.orchestration.type_templates import type_template
from thermik.template import Identity, build_stack
from thermik.template.validate import VALIDATE_STACK_NAME, validate_template
from thermik.template.versions import VERSIONS, TemplateVersion

#: Keys of a validated parameter that are not constraints.
_PARAMETER_KEYS = ("Type", "Description", "Label", "NoEcho", "Default", "Value", "Tags")
#: Names the version table uses for functions a version does not offer.
_NOT_OFFERED = frozenset({"_removed", "_unavailable", "_unknown", "_invalid"})


def parameter_info(document: Mapping[str, Any]) -> ParameterInfo:
    """A parameter of the template layer's validate result as the API's value."""
    return ParameterInfo(
        type=str(document["Type"]),
        description=str(document.get("Description", "")),
        label=document.get("Label"),
        has_default="Default" in document,
        default=document.get("Default"),
        has_value="Value" in document,
        value=document.get("Value"),
        no_echo=document.get("NoEcho") == "true",
        tags=tuple(document.get("Tags", ())),
        constraints={k: v for k, v in document.items() if k not in _PARAMETER_KEYS},
    )


def _first_line(factory: Any) -> str:
    owner = getattr(factory, "__self__", None)
    doc = inspect.getdoc(owner if isinstance(owner, type) else factory) or ""
    return doc.splitlines()[0] if doc else ""


def _offered(table: Mapping[str, Any]) -> list[TemplateFunctionView]:
    return [
        TemplateFunctionView(name, DESCRIPTIONS.get(name) or _first_line(factory))
        for name, factory in sorted(table.items())
        if getattr(factory, "__name__", "") not in _NOT_OFFERED
    ]


def _version_named(text: str) -> TemplateVersion:
    key, _, name = text.partition(".")
    version = VERSIONS.get((key, name))
    if version is None:
        raise NotFound(f"Template with version {text} not found")
    return version


def _is_up(last: datetime.datetime, interval: int) -> bool:
    if last.tzinfo is None:
        last = last.replace(tzinfo=datetime.UTC)
    age = datetime.datetime.now(datetime.UTC) - last
    return age <= datetime.timedelta(seconds=2 * max(interval, 1))


class CatalogOperations(Base):
    """Validation, resource types, template versions and functions, build info, services."""

    def validate_template(
        self,
        ctx: RequestContext,
        request: StackRequest,
        *,
        show_nested: bool = False,
        ignore_errors: Sequence[str] = (),
    ) -> ValidationView:
        check_sources(request)
        template = load_template(request.template, request.files, self.limits)
        environment = request_environment(request, template, self.limits)
        known = self.registry.__contains__
        result = validate_template(template, environment, known_types=known)
        identity = Identity(stack_name=VALIDATE_STACK_NAME, project_id=ctx.tenant)
        definition = build_stack(
            template,
            environment,
            None,
            identity,
            known_types=known,
            strict=False,
            budget=self.limits.function_budget(),
        )
        check_resources(
            definition,
            self.registry,
            self.limits,
            lenient=True,
            custom_constraints=self.constraints(ctx),
            services=self.services(ctx, ignore_errors),
        )
        return ValidationView(
            description=str(result["Description"]),
            parameters={k: parameter_info(v) for k, v in result["Parameters"].items()},
            parameter_groups=tuple(result.get("ParameterGroups") or ()),
            environment=result["Environment"],
            nested_parameters=(
                nested_parameters(definition, self.limits, known) if show_nested else {}
            ),
        )

    def list_resource_types(
        self,
        ctx: RequestContext,
        *,
        name: str | None = None,
        version: str | None = None,
        support_status: str | None = None,
    ) -> Sequence[ResourceTypeView]:
        try:
            pattern = re.compile(name) if name else None
        except re.error as exc:
            raise InvalidInput(f"name is not a valid regular expression: {exc}") from None
        views = []
        for type_name in self.registry.types():
            plugin = self.registry.get(type_name)
            if pattern is not None and not pattern.search(type_name):
                continue
            if support_status and plugin.support_status.status.value != support_status.upper():
                continue
            views.append(ResourceTypeView(type_name, _first_line(plugin)))
        return views

    def show_resource_type(
        self, ctx: RequestContext, type_name: str, *, with_description: bool = False
    ) -> Mapping[str, Json]:
        try:
            described = self.registry.describe(type_name, with_description=with_description)
        except ResourceTypeNotFound as exc:
            raise NotFound(exc.message) from None
        services = self.services(ctx)
        if services is not None:
            services.check(type_name, type_name)
        return described

    def resource_type_template(
        self, ctx: RequestContext, type_name: str, template_type: str
    ) -> Mapping[str, Json]:
        return type_template(self.show_resource_type(ctx, type_name), template_type)

    def list_template_versions(self, ctx: RequestContext) -> Sequence[TemplateVersionView]:
        aliases: dict[str, list[str]] = {}
        kinds: dict[str, str] = {}
        for (key, name), version in VERSIONS.items():
            canonical = f"{version.key}.{version.name}"
            kinds[canonical] = version.kind
            found = aliases.setdefault(canonical, [])
            if (key, name) != (version.key, version.name):
                found.append(f"{key}.{name}")
        return [
            TemplateVersionView(canonical, kinds[canonical], tuple(sorted(names)))
            for canonical, names in sorted(aliases.items())
        ]

    def list_template_functions(
        self, ctx: RequestContext, version: str, *, with_condition_func: bool = False
    ) -> Sequence[TemplateFunctionView]:
        found = _version_named(version)
        views = _offered(found.functions)
        if with_condition_func:
            names = {view.name for view in views}
            views += [v for v in _offered(found.condition_functions) if v.name not in names]
        return views

    def engine_revision(self, ctx: RequestContext) -> str:
        return thermik.__version__

    def list_services(self, ctx: RequestContext) -> Sequence[ServiceView]:
        return [
            ServiceView(
                id=engine.id,
                host=engine.host,
                binary=engine.binary,
                engine_id=engine.id,
                topic=engine.topic,
                status="up" if _is_up(engine.last_heartbeat, engine.report_interval) else "down",
                report_interval=engine.report_interval,
                created_at=engine.created_at,
                updated_at=engine.last_heartbeat,
            )
            for engine in self.store.list_engines()
        ]
