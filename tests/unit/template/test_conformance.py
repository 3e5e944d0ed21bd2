"""Thermik's template layer against the verdicts and outputs real Heat produced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from thermik.errors import ThermikError
from thermik.template import (
    Environment,
    Identity,
    StaticContext,
    Template,
    build_stack,
    is_unresolved,
    parse_environment,
)

DATA = Path(__file__).parent / "conformance"
GOLDEN: dict[str, Any] = json.loads((DATA / "heat-golden.json").read_text())
FILES = {f"files/{p.name}": p.read_text() for p in sorted((DATA / "files").iterdir())}


def source(case: str) -> Path:
    for suffix in (".yaml", ".json"):
        path = DATA / f"{case}{suffix}"
        if path.exists():
            return path
    raise AssertionError(f"no template for {case}")


def run(case: str) -> dict[str, Any]:
    env_path = DATA / f"{case}.env.yaml"
    try:
        template = Template.load(source(case).read_text(), FILES)
        env = (
            Environment.from_dict(parse_environment(env_path.read_text()))
            if env_path.exists()
            else None
        )
        stack = build_stack(template, env, {}, Identity(stack_name=case.replace("_", "-")))
        # What Heat's property validation does for values known before the stack runs.
        for name, defn in stack.resources.items():
            if not is_unresolved(defn.properties):
                stack.resolve_properties(name)
        results = stack.resolve_outputs(StaticContext())
    except ThermikError as exc:
        return {"verdict": "error", "error": str(exc)}
    found: dict[str, Any] = {"verdict": "ok", "outputs": {n: r.value for n, r in results.items()}}
    errors = sorted(n for n, r in results.items() if r.error is not None)
    if errors:
        found["output_errors"] = errors
    return found


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_same_verdict_and_outputs_as_heat(case: str) -> None:
    expected = GOLDEN[case]
    found = run(case)
    assert found["verdict"] == expected["verdict"], (found, expected.get("heat_error"))
    assert found.get("outputs") == expected.get("outputs")
    assert found.get("output_errors") == expected.get("output_errors")


def test_every_template_has_a_golden_result() -> None:
    cases = {p.name.split(".")[0] for p in DATA.glob("*.yaml")}
    assert cases == set(GOLDEN)
