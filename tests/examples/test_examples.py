"""The templates of examples/ run as examples/README.rst says: each cloud-free one is created
to CREATE_COMPLETE by the ``thermik`` command on the embedded engine (and deleted), each cloud
one validates without a cloud, and the README names every example."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.functional.software_deployments.engine import EngineUnderTest
from tests.functional.software_deployments.http_agent import HttpAgent
from tests.unit.cmd.cli_support import Cli
from thermik.resources import Registry
from thermik.template.template import Template
from thermik.template.validate import validate_template

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CLOUD = sorted((EXAMPLES / "cloud").glob("*.yaml"))
#: The cloud-free examples run by the CLI: template, environments, parameters.
CLOUD_FREE: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "nested": ("nested/app.yaml", ("nested/env.yaml",), ("size=3",)),
    "group": ("group/group.yaml", (), ("count=4",)),
}


@pytest.fixture
def cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Cli:
    # Without a cloud, whatever the environment running the tests names.
    for variable in ("OS_CLOUD", "OS_AUTH_URL"):
        monkeypatch.delenv(variable, raising=False)
    return Cli(tmp_path, capsys)


def outputs(document: dict[str, Any]) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in document["outputs"]}


def create_args(name: str) -> list[str]:
    template, environments, parameters = CLOUD_FREE[name]
    args = ["stack", "create", "-t", str(EXAMPLES / template)]
    for environment in environments:
        args += ["-e", str(EXAMPLES / environment)]
    for parameter in parameters:
        args += ["--parameter", parameter]
    return [*args, "--wait", "-f", "json", name]


def created(cli: Cli, name: str) -> dict[str, Any]:
    result = cli(*create_args(name))
    assert result.status == 0, result.err
    document: dict[str, Any] = result.json()
    assert document["stack_status"] == "CREATE_COMPLETE", document["stack_status_reason"]
    return document


def deleted(cli: Cli, name: str) -> None:
    result = cli("stack", "delete", "--yes", "--wait", name)
    assert result.status == 0, result.err
    assert cli("stack", "list", "-f", "json").json() == []


def test_nested_templates_with_an_environment(cli: Cli) -> None:
    found = outputs(created(cli, "nested"))
    assert found["summary"] == (
        "web: 3 worker(s), converged by Thermik; db: 1 worker(s), converged by Thermik"
    )
    nested = cli("resource", "list", "nested", "--nested-depth", "1", "-f", "json").json()
    assert len(nested) == 7, nested
    deleted(cli, "nested")


def test_a_resource_group_grows_on_update(cli: Cli) -> None:
    found = outputs(created(cli, "group"))
    assert found["members"] == 4
    assert isinstance(found["first_token"], str)
    assert len(found["first_token"]) == 12
    result = cli("stack", "update", "group", "--existing", "--parameter", "count=5", "--wait")
    assert result.status == 0, result.err
    shown = cli("stack", "show", "group", "-f", "json").json()
    assert (shown["stack_status"], outputs(shown)["members"]) == ("UPDATE_COMPLETE", 5)
    deleted(cli, "group")


def test_software_deployments_on_a_deployed_server(tmp_path: Path) -> None:
    # A stand-in agent signals each deployment as the real one would; the real agent runs the
    # same transport in tests/functional/software_deployments/test_agent_builtin.py.
    engine = EngineUnderTest(tmp_path)
    try:
        template = (EXAMPLES / "deployments" / "deployments.yaml").read_text()
        stack = engine.create("deployments", template)
        with HttpAgent(engine.metadata_url(stack)).running() as agent:
            view = engine.wait(stack, timeout=60)
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
        assert sorted(agent.signalled.values()) == ["1-configure", "2-check"]
        assert engine.outputs(stack)["status_codes"] == [0, 0]
    finally:
        engine.close()


def resource_types(node: Any) -> Iterator[str]:
    """Every resource type a template names, group members' included."""
    if isinstance(node, dict):
        kind = node.get("type")
        if isinstance(kind, str) and "::" in kind:
            yield kind
        for value in node.values():
            yield from resource_types(value)
    elif isinstance(node, list):
        for item in node:
            yield from resource_types(item)


@pytest.mark.parametrize("template", CLOUD, ids=[p.stem for p in CLOUD])
def test_a_cloud_example_validates_without_a_cloud(cli: Cli, template: Path) -> None:
    registry = Registry.from_entry_points()
    document = yaml.safe_load(template.read_text())
    missing = sorted({t for t in resource_types(document["resources"]) if t not in registry})
    result = cli("template", "validate", "-t", str(template), "-f", "json")
    if not missing:
        assert result.status == 0, result.err
        assert result.json()["Description"] == document["description"]
        return
    # Until every type it uses is installed, the template layer accepts it with any type
    # known, and the command's only complaint is a missing type.
    text = template.read_text()
    validate_template(Template.load(text, {}), known_types=lambda _name: True)
    assert result.status == 1
    named = re.findall(r"The Resource Type \((\S+)\) could not be found", result.err)
    assert named, result.err
    assert named[0] in missing, result.err


def test_the_readme_names_every_example() -> None:
    readme = (EXAMPLES / "README.rst").read_text()
    for template in EXAMPLES.rglob("*.yaml"):
        if template.name in ("env.yaml", "tier.yaml"):
            continue
        assert str(template.relative_to(EXAMPLES)) in readme, template
