"""Sphinx extension: the references generated from the code, so they cannot go stale.

``.. thermik-resource-types::`` documents every type of the installed plugin registry
(:meth:`thermik.resources.Registry.from_entry_points`): its description, support status,
properties (type, default, constraints, update behaviour) and attributes, as Heat's
resource-type reference does. ``.. thermik-template-functions::`` lists every intrinsic
function of every template version, and ``.. thermik-api-reference::`` every path and method
of the shipped OpenAPI description (:func:`thermik.api.openapi.openapi_document`, which a unit
test keeps in step with the routes the app serves).

The generators return reStructuredText as lines, so tests can check them without Sphinx.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator, Mapping
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from thermik.api.openapi import openapi_document
from thermik.conf.policies import list_rules
from thermik.errors import ThermikError
from thermik.resources import Registry
from thermik.resources.plugin import ResourcePlugin
from thermik.resources.schema import (
    BASE_ATTRIBUTES,
    AttributeSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
)
from thermik.template.versions import VERSIONS, TemplateVersion

#: Names the version table gives to functions a version does not offer.
NOT_OFFERED = frozenset({"_removed", "_unavailable", "_unknown", "_invalid"})
METHODS = ("get", "post", "put", "patch", "delete")


def anchor(type_name: str) -> str:
    """The label of a resource type's section (``resource-os-heat-value``)."""
    return "resource-" + type_name.lower().replace("::", "-")


def _indent(lines: list[str], by: int = 3) -> list[str]:
    return [(" " * by + line) if line else "" for line in lines]


def _support(status: SupportStatus) -> str:
    text = status.status.value.capitalize()
    if status.version:
        text += f" since {status.version}"
    if status.message:
        text += f": {status.message}"
    if status.previous is not None:
        text += f" (before: {_support(status.previous)})"
    return text


def _update_behaviour(schema: PropertySchema) -> str:
    if schema.immutable:
        return "Immutable: a changed value fails the update."
    if schema.update_allowed:
        return "Can be updated without replacement."
    return "Updates cause replacement."


def _constraint(body: Mapping[str, Any]) -> str:
    parts = [
        f"``{key}: {json.dumps(value)}``" for key, value in body.items() if key != "description"
    ]
    described = body.get("description")
    return "; ".join(parts) + (f" ({described})" if described else "")


def _property(name: str, schema: PropertySchema, *, nested: bool = False) -> list[str]:
    lines = [f"``{name}``", f"   {schema.description or '(no description)'}", ""]
    # Only a top-level property is updated or replaced; a nested one changes with it.
    facts = [f"Type: {schema.type.value}", *([] if nested else [_update_behaviour(schema)])]
    if schema.default is not None:
        facts.append(f"Default: ``{json.dumps(schema.default)}``")
    facts += [f"Constraint: {_constraint(c.as_dict())}" for c in schema.constraints]
    if schema.support_status.status is not SupportLevel.SUPPORTED or schema.support_status.version:
        facts.append(f"Support: {_support(schema.support_status)}")
    if schema.secret:
        facts.append("Secret: stored encrypted, never shown.")
    lines += [f"   * {fact}" for fact in facts] + [""]
    inner = _nested(schema)
    if inner:
        lines += _indent(inner)
    return lines


def _nested(schema: PropertySchema) -> list[str]:
    item = schema.item_schema
    if item is not None:
        return ["Each item:", "", *_indent(_property("*", item, nested=True))]
    entries = schema.entry_schemas
    if not entries:
        return []
    lines = ["Keys:", ""]
    for key, entry in entries.items():
        lines += _indent(_property(key, entry, nested=True))
    return lines


def _visible(schemas: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for name, schema in sorted(schemas.items()):
        if getattr(schema, "implemented", True) and (
            schema.support_status.status is not SupportLevel.HIDDEN
        ):
            yield name, schema


def _attribute(name: str, schema: AttributeSchema) -> list[str]:
    kind = f" ({schema.type.value})" if schema.type is not None else ""
    return [f"``{name}``{kind}", f"   {schema.description or '(no description)'}", ""]


def resource_type_lines(type_name: str, plugin: type[ResourcePlugin]) -> list[str]:
    """One type's section: description, support status, properties and attributes."""
    title = f"{type_name}"
    lines = [f".. _{anchor(type_name)}:", "", title, "-" * len(title), ""]
    lines += [*(inspect.getdoc(plugin) or "(no description)").splitlines(), ""]
    lines += [f"Support status: {_support(plugin.support_status)}.", ""]
    visible = list(_visible(plugin.properties_schema))
    for heading, wanted in (("Required properties", True), ("Optional properties", False)):
        chosen = [(n, s) for n, s in visible if s.required is wanted]
        if chosen:
            lines += [heading, "~" * len(heading), ""]
            for name, schema in chosen:
                lines += _property(name, schema)
    attributes = {**plugin.attributes_schema, **BASE_ATTRIBUTES}
    lines += ["Attributes", "~~~~~~~~~~", ""]
    for name, schema in _visible(attributes):
        lines += _attribute(name, schema)
    return lines


def resource_types_lines(registry: Registry) -> list[str]:
    """Every listed type of ``registry``, in name order; hidden (retired alias) types are not."""
    lines = []
    for type_name in registry.types():
        lines += resource_type_lines(type_name, registry.get(type_name))
    return lines


def _doc_line(factory: Any) -> str:
    owner = getattr(factory, "__self__", None)
    doc = inspect.getdoc(owner if isinstance(owner, type) else factory) or ""
    return doc.splitlines()[0] if doc else ""


def _offered(table: Mapping[str, Any]) -> dict[str, str]:
    return {
        name: _doc_line(factory)
        for name, factory in table.items()
        if getattr(factory, "__name__", "") not in NOT_OFFERED
    }


def _canonical_versions() -> list[TemplateVersion]:
    seen: dict[str, TemplateVersion] = {}
    for version in VERSIONS.values():
        seen.setdefault(f"{version.key}.{version.name}", version)
    return [seen[key] for key in sorted(seen)]


def template_function_lines() -> list[str]:
    """A table per template format: each function, what it does and the versions offering it."""
    lines: list[str] = []
    for kind, title in (("hot", "HOT functions"), ("cfn", "CloudFormation functions")):
        versions = [v for v in _canonical_versions() if v.kind == kind]
        found: dict[str, tuple[str, list[str]]] = {}
        for version in versions:
            offered = {**_offered(version.condition_functions), **_offered(version.functions)}
            for name, doc in offered.items():
                found.setdefault(name, (doc, []))[1].append(version.name)
        lines += [title, "-" * len(title), "", ".. list-table::", "   :header-rows: 1", ""]
        lines += ["   * - Function", "     - What it does", "     - Versions"]
        for name in sorted(found):
            doc, names = found[name]
            lines += [f"   * - ``{name}``", f"     - {doc or '-'}", f"     - {_span(names)}"]
        lines.append("")
    return lines


def _span(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]} ({len(names)} versions)"


def _resolve(document: Mapping[str, Any], node: Any) -> Any:
    if isinstance(node, Mapping) and "$ref" in node:
        target: Any = document
        for part in str(node["$ref"])[2:].split("/"):
            target = target[part]
        return target
    return node


def policy_rules() -> dict[tuple[str, str], list[str]]:
    """The policy rules that guard each (path, method), as the rules document them."""
    found: dict[tuple[str, str], list[str]] = {}
    for rule in list_rules():
        for operation in getattr(rule, "operations", None) or ():
            key = (operation["path"], operation["method"].lower())
            found.setdefault(key, []).append(rule.name)
    return found


def _operation_lines(
    document: Mapping[str, Any], path: str, method: str, rules: Mapping[tuple[str, str], list[str]]
) -> list[str]:
    item = document["paths"][path]
    operation = item[method]
    lines = [f"``{method.upper()} {path}``", f"   {operation.get('summary', '')}", ""]
    if operation.get("description"):
        lines += [f"   {' '.join(str(operation['description']).split())}", ""]
    params = [
        _resolve(document, p)
        for p in [*item.get("parameters", ()), *operation.get("parameters", ())]
    ]
    query = [p for p in params if p.get("in") == "query"]
    if query:
        names = ", ".join(f"``{p['name']}``" for p in query)
        lines += [f"   Query: {names}", ""]
    codes = ", ".join(sorted(str(code) for code in operation.get("responses", {})))
    lines += [f"   Responses: {codes}", ""]
    guards = rules.get((path, method))
    if guards:
        lines += [f"   Policy: {', '.join(f'``{name}``' for name in guards)}", ""]
    return lines


def api_reference_lines(document: Mapping[str, Any] | None = None) -> list[str]:
    """Every path and method of the OpenAPI description, grouped by collection."""
    document = document if document is not None else openapi_document()
    groups: dict[str, list[str]] = {}
    for path in document["paths"]:
        parts = [p for p in path.split("/") if p and not p.startswith("{")]
        group = parts[1] if len(parts) > 1 else "versions"
        groups.setdefault(group, []).append(path)
    lines: list[str] = []
    rules = policy_rules()
    for group in sorted(groups):
        lines += [group, "-" * len(group), ""]
        for path in groups[group]:
            for method in METHODS:
                if method in document["paths"][path]:
                    lines += _operation_lines(document, path, method, rules)
    return lines


class _Generated(SphinxDirective):
    """A directive whose content is generated reStructuredText."""

    has_content = False

    def lines(self) -> list[str]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        try:
            lines = self.lines()
        except ThermikError as exc:
            # A plugin that cannot load is the build's error, said in one line.
            raise self.error(f"{self.name}: {exc}") from None
        container = nodes.section()
        container.document = self.state.document
        source = self.get_source_info()[0] or "generated"
        nested_parse_with_titles(self.state, StringList(lines, source=source), container)
        return list(container.children)


class ResourceTypes(_Generated):
    """``.. thermik-resource-types::``: the installed plugin registry."""

    def lines(self) -> list[str]:
        return resource_types_lines(Registry.from_entry_points())


class TemplateFunctions(_Generated):
    """``.. thermik-template-functions::``: the template versions' function tables."""

    def lines(self) -> list[str]:
        return template_function_lines()


class ApiReference(_Generated):
    """``.. thermik-api-reference::``: the OpenAPI description's operations."""

    def lines(self) -> list[str]:
        return api_reference_lines()


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives."""
    app.add_directive("thermik-resource-types", ResourceTypes)
    app.add_directive("thermik-template-functions", TemplateFunctions)
    app.add_directive("thermik-api-reference", ApiReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
