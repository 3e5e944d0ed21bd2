"""The plugin contract and the built-in types do no I/O of their own: everything reaches them
through the ResourceContext (DESIGN.md §1, aesthetics: no globals, no configuration)."""

from __future__ import annotations

from tests.unit.test_layers import FORBIDDEN_FOR_PURE, PACKAGE, forbidden, imports_of


def test_resources_import_no_io_and_no_configuration() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in sorted((PACKAGE / "resources").rglob("*.py"))
        for name in imports_of(path)
        if forbidden(name, FORBIDDEN_FOR_PURE | {"thermik.engine", "thermik.template"})
    ]
    assert not offenders, "\n".join(offenders)
