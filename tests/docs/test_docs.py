"""The documentation cannot fall behind the code: every resource type, configuration option,
policy rule, API operation and ``thermik`` command has its entry in the built reference, the
service man pages name their commands' options, and each difference from Heat names a test
that exists.

The built HTML comes from ``tools/build-docs.sh`` when ``THERMIK_DOCS_BUILD`` names its output
(``tools/run-tests.sh`` builds the docs first and sets it); otherwise this module builds the
HTML itself into a temporary directory.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from thermik.api.openapi import openapi_document
from thermik.cmd import api as api_command
from thermik.cmd import manage
from thermik.conf import policies
from thermik.conf.opts import list_opts
from thermik.resources import Registry

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "doc" / "source"
if not os.environ.get("THERMIK_REQUIRE_SERVICES"):
    # Without the [docs] extra (tools/bootstrap.sh test,docs installs it) there is nothing to
    # build the docs with; CI installs it, so there the import below fails instead.
    pytest.importorskip("sphinx", reason="the [docs] extra is not installed")
sys.path.insert(0, str(SOURCE / "_ext"))
from thermik_reference import METHODS, anchor  # noqa: E402 - the extension's own module


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("THERMIK_DOCS_BUILD")
    if given:
        return Path(given)
    if shutil.which("dot") is None:
        message = "the docs' diagrams need Graphviz's dot (apt-get install graphviz)"
        if os.environ.get("THERMIK_REQUIRE_SERVICES"):
            pytest.fail(message)
        pytest.skip(message)
    out = tmp_path_factory.mktemp("docs")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(SOURCE), str(out / "html")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def page(built: Path, name: str) -> str:
    return (built / "html" / f"{name}.html").read_text(encoding="utf-8")


def ids(text: str) -> set[str]:
    return {html.unescape(found) for found in re.findall(r'id="([^"]+)"', text)}


def test_every_resource_type_has_its_section(built: Path) -> None:
    registry = Registry.from_entry_points()
    text = page(built, "templates/resource_types")
    missing = [t for t in registry.types() if anchor(t) not in ids(text)]
    assert not missing, f"no reference entry for {missing}"
    for type_name in registry.types():
        section = text.split(f'id="{anchor(type_name)}"', 1)[1].split('id="resource-', 1)[0]
        for name, schema in registry.get(type_name).properties_schema.items():
            if schema.implemented and schema.support_status.status.value != "HIDDEN":
                assert f">{name}<" in section, f"{type_name}: property {name} not described"


def test_every_configuration_option_has_its_entry(built: Path) -> None:
    found = ids(page(built, "reference/config"))
    missing = [
        f"{group or 'DEFAULT'}.{opt.dest}"
        for group, opts in list_opts()
        for opt in opts
        if f"{group or 'DEFAULT'}.{opt.dest}" not in found
    ]
    assert not missing, f"options without a reference entry: {missing}"


def test_every_policy_rule_is_described(built: Path) -> None:
    generated = page(built, "reference/policy").split('id="sample-policy-file"', 1)[0]
    missing = [r.name for r in policies.list_rules() if html.escape(r.name) not in generated]
    assert not missing, f"policy rules without a reference entry: {missing}"


def test_every_api_operation_is_listed(built: Path) -> None:
    text = html.unescape(re.sub(r"<[^>]+>", "", page(built, "reference/api")))
    document = openapi_document()
    missing = [
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in METHODS
        if method in item and f"{method.upper()} {path}" not in text
    ]
    assert not missing, f"operations missing from the API reference: {missing}"


def test_every_cli_command_has_its_entry(built: Path) -> None:
    found = ids(page(built, "reference/cli"))
    commands = [ep.name.replace("_", "-") for ep in metadata.entry_points(group="thermik.cli")]
    assert commands
    missing = [c for c in commands if c not in found]
    assert not missing, f"thermik commands without a reference entry: {missing}"
    man = built / "man" / "thermik.1"
    if man.exists():
        text = man.read_text(encoding="utf-8")
        absent = [c for c in commands if c.replace("-", " ") not in text]
        assert not absent, f"thermik(1) lacks {absent}"


def manage_words() -> set[str]:
    """Every sub-command and option of thermik-manage, from its own argparse handler."""
    parser = argparse.ArgumentParser()
    manage.COMMAND.handler(parser.add_subparsers())
    words: set[str] = set()
    pending = [parser]
    while pending:
        for action in pending.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                words.update(action.choices)
                pending.extend(action.choices.values())
            words.update(o for o in action.option_strings if o.startswith("--") and o != "--help")
    return words


def test_the_service_man_pages_name_every_option_and_command() -> None:
    api_page = (SOURCE / "man" / "thermik-api.rst").read_text()
    assert [o.name for o in api_command.CLI_OPTS if f"--{o.name}" not in api_page] == []
    manage_page = (SOURCE / "man" / "thermik-manage.rst").read_text()
    assert [c for c in manage.COMMANDS if c not in manage_page] == []
    words = manage_words()
    assert "setup-domain" in words
    assert "--stack-domain-admin" in words
    assert [w for w in words if w not in manage_page] == []
    for name in ("thermik-api", "thermik-engine", "thermik-manage"):
        text = (SOURCE / "man" / f"{name}.rst").read_text()
        assert ".. include:: _common_options.rst" in text, name


def test_every_difference_from_heat_names_a_test_that_exists() -> None:
    text = (SOURCE / "reference" / "heat_differences.rst").read_text()
    items = re.findall(r"^\* \*\*", text, flags=re.MULTILINE)
    named = re.findall(r"Test: ``(tests/[\w/]+\.py)::(test_\w+)``", text)
    assert items
    assert len(named) == len(items), "every item names exactly one test"
    for path, test in named:
        source = (ROOT / path).read_text()
        assert re.search(rf"^def {test}\(", source, flags=re.MULTILINE), f"{path}::{test}"
