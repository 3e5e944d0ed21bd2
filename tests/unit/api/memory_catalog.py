"""The catalog part of the in-test OrchestrationService: validate, types, versions, services."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from thermik import errors
from thermik.api.boundary import (
    ParameterInfo,
    RequestContext,
    ResourceTypeView,
    ServiceView,
    StackRequest,
    TemplateFunctionView,
    TemplateVersionView,
    ValidationView,
)

RESOURCE_TYPES = {
    "OS::Heat::None": "Does nothing.",
    "OS::Heat::RandomString": "A random string.",
    "OS::Heat::SoftwareConfig": "A software config.",
    "OS::Heat::SoftwareDeployment": "A software deployment.",
    "OS::Heat::TestResource": "A resource for tests.",
}
VERSIONS = {
    "heat_template_version.2013-05-23": ("hot", ()),
    "heat_template_version.2018-08-31": ("hot", ("heat_template_version.rocky",)),
    "AWSTemplateFormatVersion.2010-09-09": ("cfn", ()),
}
CONSTRAINT_KEYS = {"allowed_values": "AllowedValues", "allowed_pattern": "AllowedPattern"}


def parse_document(source: Mapping[str, Any] | str | None, what: str) -> dict[str, Any]:
    """A template or environment given as a mapping or as YAML/JSON text."""
    if source is None:
        return {}
    if isinstance(source, str):
        try:
            source = yaml.safe_load(source)
        except yaml.YAMLError as exc:
            raise errors.TemplateSyntaxError(f"{what} is not valid YAML: {exc}") from None
    if not isinstance(source, dict):
        raise errors.TemplateSyntaxError(f"{what} must be a mapping")
    return dict(source)


def parameter_info(name: str, spec: Any, given: Mapping[str, Any]) -> ParameterInfo:
    """Validate's view of one declared parameter."""
    if not isinstance(spec, dict) or "type" not in spec:
        raise errors.ParameterError("must have a type", path=("parameters", name))
    constraints: dict[str, Any] = {}
    for constraint in spec.get("constraints") or ():
        for key, heat_key in CONSTRAINT_KEYS.items():
            if isinstance(constraint, dict) and key in constraint:
                constraints[heat_key] = constraint[key]
    return ParameterInfo(
        type=str(spec["type"]).capitalize() if spec["type"] != "json" else "Json",
        description=str(spec.get("description", "")),
        label=spec.get("label"),
        has_default="default" in spec,
        default=spec.get("default"),
        has_value=name in given,
        value=given.get(name),
        no_echo=bool(spec.get("hidden")),
        constraints=constraints,
    )


class MemoryCatalog:
    """Validation and the fixed catalog of the test double."""

    def validate_template(
        self,
        ctx: RequestContext,
        request: StackRequest,
        *,
        show_nested: bool = False,
        ignore_errors: Sequence[str] = (),
    ) -> ValidationView:
        template = parse_document(request.template, "template")
        if "heat_template_version" not in template:
            raise errors.TemplateVersionError("Template version was not provided")
        for name, definition in (template.get("resources") or {}).items():
            kind = definition.get("type") if isinstance(definition, dict) else None
            if kind not in RESOURCE_TYPES:
                raise errors.ResourceTypeNotFound(
                    f"The Resource Type ({kind}) could not be found.", path=("resources", name)
                )
        declared = template.get("parameters") or {}
        return ValidationView(
            description=str(template.get("description", "No description")),
            parameters={
                name: parameter_info(name, spec, request.parameters)
                for name, spec in declared.items()
            },
            environment={
                "parameters": dict(request.parameters),
                "parameter_defaults": {},
                "resource_registry": {"resources": {}},
            },
        )

    def list_resource_types(
        self,
        ctx: RequestContext,
        *,
        name: str | None = None,
        version: str | None = None,
        support_status: str | None = None,
    ) -> Sequence[ResourceTypeView]:
        return [
            ResourceTypeView(type_name, description)
            for type_name, description in sorted(RESOURCE_TYPES.items())
            if name is None or name in type_name
        ]

    def _known(self, type_name: str) -> None:
        if type_name not in RESOURCE_TYPES:
            raise errors.NotFound(f"The Resource Type ({type_name}) could not be found.")

    def show_resource_type(
        self, ctx: RequestContext, type_name: str, *, with_description: bool = False
    ) -> Mapping[str, Any]:
        self._known(type_name)
        shown = {
            "resource_type": type_name,
            "properties": {},
            "attributes": {"show": {"description": "Detailed information.", "type": "map"}},
            "support_status": {"status": "SUPPORTED", "version": None, "message": None},
        }
        if with_description:
            shown["description"] = RESOURCE_TYPES[type_name]
        return shown

    def resource_type_template(
        self, ctx: RequestContext, type_name: str, template_type: str
    ) -> Mapping[str, Any]:
        self._known(type_name)
        if template_type == "hot":
            return {
                "heat_template_version": "2016-10-14",
                "resources": {type_name: {"type": type_name}},
            }
        return {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Resources": {type_name: {"Type": type_name}},
        }

    def list_template_versions(self, ctx: RequestContext) -> Sequence[TemplateVersionView]:
        return [TemplateVersionView(v, kind, aliases) for v, (kind, aliases) in VERSIONS.items()]

    def list_template_functions(
        self, ctx: RequestContext, version: str, *, with_condition_func: bool = False
    ) -> Sequence[TemplateFunctionView]:
        if version not in VERSIONS:
            raise errors.NotFound(f"Template version {version} not found")
        functions = [TemplateFunctionView("get_param", "A function for resolving parameters.")]
        if with_condition_func:
            functions.append(TemplateFunctionView("equals", "A function for comparing."))
        return functions

    def engine_revision(self, ctx: RequestContext) -> str:
        return "memory-1"

    def list_services(self, ctx: RequestContext) -> Sequence[ServiceView]:
        return [
            ServiceView(
                id="svc-1",
                host="localhost",
                binary="thermik-engine",
                engine_id="engine-1",
                topic="engine",
                status="up",
                report_interval=10,
                created_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
            )
        ]
