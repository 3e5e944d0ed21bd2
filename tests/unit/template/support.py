"""Helpers for template tests: build stacks from snippets, and an in-memory runtime context."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from thermik.template import (
    Environment,
    Identity,
    StackDefinition,
    Template,
    build_stack,
    select_path,
)

LATEST = "2021-04-16"
HOT_VERSIONS = (
    "2013-05-23", "2014-10-16", "2015-04-30", "2015-10-15", "2016-04-08", "2016-10-14",
    "2017-02-24", "2017-09-01", "2018-03-02", "2018-08-31", "2021-04-16",
)  # fmt: skip


def versions_from(first: str) -> list[str]:
    return [v for v in HOT_VERSIONS if v >= first]


def versions_before(first: str) -> list[str]:
    return [v for v in HOT_VERSIONS if v < first]


class MemoryContext:
    """A runtime context backed by dictionaries (what the engine would know)."""

    def __init__(
        self,
        attributes: Mapping[str, Mapping[str, Any]] | None = None,
        ids: Mapping[str, str] | None = None,
        facade: Mapping[str, Any] | None = None,
    ) -> None:
        self.attributes = attributes or {}
        self.ids = ids or {}
        self.facades = facade or {}
        self.calls: list[tuple[Any, ...]] = []

    def reference_id(self, name: str) -> str | None:
        self.calls.append(("ref", name))
        return self.ids.get(name, f"id-{name}")

    def attribute(self, name: str, attr: str, path: Sequence[str | int]) -> Any:
        self.calls.append(("attr", name, attr, tuple(path)))
        return select_path(self.attributes.get(name, {}).get(attr), path)

    def all_attributes(self, name: str) -> Mapping[str, Any]:
        self.calls.append(("all", name))
        return dict(self.attributes.get(name, {}))

    def facade(self, key: str) -> Any:
        return self.facades.get(key)

    def availability_zones(self) -> list[str]:
        return ["nova"]


def hot(body: Mapping[str, Any] | str, version: str = LATEST) -> dict[str, Any]:
    data = yaml.safe_load(body) if isinstance(body, str) else dict(body)
    return {"heat_template_version": version, **data}


def make_stack(
    body: Mapping[str, Any] | str,
    version: str = LATEST,
    params: Mapping[str, Any] | None = None,
    files: Mapping[str, str] | None = None,
    env: Environment | None = None,
    **kwargs: Any,
) -> StackDefinition:
    template = Template.from_document(hot(body, version), files)
    return build_stack(
        template, env, params or {}, Identity(stack_name="s", stack_id="42"), **kwargs
    )


def evaluate(
    snippet: Any,
    version: str = LATEST,
    *,
    parameters: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    conditions: Mapping[str, Any] | None = None,
    resources: Mapping[str, Any] | None = None,
    files: Mapping[str, str] | None = None,
    ctx: Any = None,
) -> Any:
    """Resolve ``snippet`` as the value of an output of a small stack."""
    body: dict[str, Any] = {"outputs": {"o": {"value": snippet}}}
    if parameters:
        body["parameters"] = parameters
    if conditions:
        body["conditions"] = conditions
    if resources:
        body["resources"] = resources
    stack = make_stack(body, version, params, files)
    return stack.resolve_output("o", ctx or MemoryContext())
