"""The shipped OpenAPI description matches the routes the app serves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tests.unit.api.memory_service import MemoryService
from thermik.api.app import all_routes
from thermik.api.openapi import openapi_document
from thermik.api.v1.endpoint import Deps
from thermik.conf.settings import LimitSettings

METHODS = ("get", "post", "put", "patch", "delete")


def served() -> set[tuple[str, str]]:
    return {
        (route.path, method)
        for route in all_routes(Deps(MemoryService(), LimitSettings()))
        for method in METHODS
        if hasattr(route.responder, f"on_{method}")
    }


def described(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (path, method)
        for path, item in document["paths"].items()
        for method in METHODS
        if method in item
    }


def references(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from references(value)
    elif isinstance(node, list):
        for item in node:
            yield from references(item)


def test_every_route_is_described_and_nothing_else() -> None:
    document = openapi_document()
    assert document["openapi"].startswith("3.")
    assert served() == described(document)


def test_references_resolve() -> None:
    document = openapi_document()
    for ref in set(references(document)):
        assert ref.startswith("#/"), ref
        node: Any = document
        for part in ref[2:].split("/"):
            assert part in node, f"{ref} does not resolve"
            node = node[part]


def test_path_parameters_are_declared() -> None:
    document = openapi_document()
    components = document["components"]["parameters"]
    for path, item in document["paths"].items():
        names = set()
        for declared in item.get("parameters", []):
            parameter = (
                components[declared["$ref"].rsplit("/", 1)[1]] if "$ref" in declared else declared
            )
            if parameter["in"] == "path":
                names.add(parameter["name"])
        fields = {part[1:-1] for part in path.split("/") if part.startswith("{")}
        assert names == fields, path
