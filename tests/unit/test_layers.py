"""Layers import one way (DESIGN.md §1): the pure core imports no I/O, and only the composition
root and console scripts read configuration."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "thermik"

IO_MODULES = {
    "sqlalchemy",
    "alembic",
    "pykka",
    "oslo_config",
    "oslo_messaging",
    "swiftclient",
    "zaqarclient",
    "falcon",
    "requests",
    "httpx",
    "keystoneauth1",
    "socket",
    "urllib.request",
    "http.client",
    "threading",
    "concurrent",
    "psycopg",
    "pymysql",
    "sqlite3",
}
FORBIDDEN_FOR_PURE = IO_MODULES | {
    "thermik.persistence",
    "thermik.actors",
    "thermik.delivery",
    "thermik.api",
    "thermik.cmd",
    "thermik.service",
    "thermik.rpc",
    "thermik.conf",
}
CONFIG_READERS = ("thermik/cmd/", "thermik/conf/", "thermik/service.py")


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def forbidden(name: str, banned: set[str]) -> bool:
    return any(name == b or name.startswith(b + ".") for b in banned)


def modules_under(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", ["template", "engine"])
def test_pure_layers_import_no_io(layer: str) -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in modules_under(layer)
        for name in imports_of(path)
        if forbidden(name, FORBIDDEN_FOR_PURE)
    ]
    assert not offenders, "\n".join(offenders)


def test_template_does_not_import_engine() -> None:
    offenders = [
        str(path)
        for path in modules_under("template")
        if any(forbidden(n, {"thermik.engine", "thermik.resources"}) for n in imports_of(path))
    ]
    assert not offenders


def test_only_the_composition_root_reads_configuration() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(PACKAGE.parent))
        if rel.startswith(CONFIG_READERS):
            continue
        if any(forbidden(n, {"oslo_config", "thermik.conf.opts"}) for n in imports_of(path)):
            offenders.append(rel)
    assert not offenders, offenders


def test_only_the_client_layer_imports_openstacksdk() -> None:
    """DESIGN.md §7: plugins receive a client from thermik/clients, never a connection."""
    offenders = [
        str(path.relative_to(PACKAGE.parent))
        for path in sorted(PACKAGE.rglob("*.py"))
        if not str(path.relative_to(PACKAGE)).startswith("clients/")
        and any(forbidden(n, {"openstack"}) for n in imports_of(path))
    ]
    assert not offenders, offenders


def test_only_the_rpc_layer_and_the_composition_root_import_oslo_messaging() -> None:
    """Service mode's messaging stays in thermik/rpc, wired by thermik/cmd and service.py:
    the orchestration service and the actors know only the runtime they are handed."""
    allowed = ("thermik/rpc/", "thermik/cmd/", "thermik/service.py")
    offenders = [
        rel
        for path in sorted(PACKAGE.rglob("*.py"))
        if not (rel := str(path.relative_to(PACKAGE.parent))).startswith(allowed)
        and any(forbidden(n, {"oslo_messaging", "thermik.rpc"}) for n in imports_of(path))
    ]
    assert not offenders, offenders
