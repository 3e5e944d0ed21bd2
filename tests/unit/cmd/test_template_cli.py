"""``thermik template validate``: files, environments, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from thermik.cmd.cli import main
from thermik.cmd.template_files import FileGatherer, base_url, parse_parameters, to_url
from thermik.errors import EnvironmentError_, TemplateError

THERMIK = str(Path(sys.executable).with_name("thermik"))

MAIN = """\
heat_template_version: 2018-03-02
description: cli test
parameters:
  name: {type: string, default: x, label: Name}
  count: {type: number}
resources:
  cfg:
    type: OS::Heat::SoftwareConfig
    properties:
      config: {get_file: sub/script.sh}
  nested:
    type: sub/nested.yaml
  custom:
    type: My::Thing
"""
NESTED = """\
heat_template_version: 2018-03-02
parameters:
  inner: {type: string, default: i}
resources:
  c:
    type: OS::Heat::Value
    properties: {value: {get_file: data.txt}}
"""
ENV = """\
parameters:
  count: 3
resource_registry:
  My::Thing: ../sub/nested.yaml
  resources:
    custom: {hooks: pre-create}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "envs").mkdir()
    (tmp_path / "main.yaml").write_text(MAIN)
    (tmp_path / "sub" / "script.sh").write_text("echo hi\n")
    (tmp_path / "sub" / "nested.yaml").write_text(NESTED)
    (tmp_path / "sub" / "data.txt").write_text("data\n")
    (tmp_path / "envs" / "env.yaml").write_text(ENV)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_validate_reads_files_relative_to_their_file(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "template", "validate", "-t", str(tree / "main.yaml"),
        "-e", str(tree / "envs" / "env.yaml"), "--parameter", "name=y", "-f", "json",
    )  # fmt: skip
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert result["Description"] == "cli test"
    assert result["Parameters"]["count"]["Value"] == 3
    assert result["Parameters"]["name"] == {
        "Type": "String", "Description": "", "NoEcho": "false", "Label": "Name", "Default": "x",
        "Value": "y",
    }  # fmt: skip
    registry = result["Environment"]["resource_registry"]
    assert registry["My::Thing"] == (tree / "sub" / "nested.yaml").as_uri()
    assert registry["resources"] == {"custom": {"hooks": "pre-create"}}


def test_validate_prints_yaml_by_default(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # My::Thing is known through the environment: validate checks resource types.
    env = str(tree / "envs" / "env.yaml")
    status, out, _ = run(capsys, "template", "validate", "-t", str(tree / "main.yaml"), "-e", env)
    assert status == 0
    assert yaml.safe_load(out)["Parameters"]["count"]["Type"] == "Number"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("heat_template_version: 2018-03-02\nresources: [\n", "error parsing template at line 3"),
        (
            "heat_template_version: 2018-03-02\n"
            "resources:\n  a: {type: OS::Heat::None, depends_on: a}\n",
            "Circular Dependency Found: a -> a",
        ),
        ("resources: {}\n", "Template format version not found"),
        (
            "heat_template_version: 2018-03-02\noutputs:\n  o: {value: {get_file: nope.txt}}\n",
            "cannot read file://",
        ),
    ],
)
def test_invalid_templates_give_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    status, out, err = run(capsys, "template", "validate", "-t", str(path))
    assert status == 1
    assert out == ""
    assert err.startswith("ERROR: ")
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_bad_environment(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = tree / "bad.yaml"
    env.write_text("params: {}\n")
    status, _, err = run(capsys, "template", "validate", "-t", str(tree / "main.yaml"),
                         "-e", str(env))  # fmt: skip
    assert status == 1
    assert 'environment has wrong section "params"' in err


def test_gatherer_stores_files_under_urls_and_rewrites_references(tree: Path) -> None:
    gatherer = FileGatherer()
    template = gatherer.template(str(tree / "main.yaml"))
    script = (tree / "sub" / "script.sh").as_uri()
    nested = (tree / "sub" / "nested.yaml").as_uri()
    assert template["resources"]["cfg"]["properties"]["config"] == {"get_file": script}
    assert template["resources"]["nested"]["type"] == nested
    assert gatherer.files[script] == "echo hi\n"
    stored = json.loads(gatherer.files[nested])
    data = (tree / "sub" / "data.txt").as_uri()
    assert stored["resources"]["c"]["properties"]["value"] == {"get_file": data}
    assert gatherer.files[data] == "data\n"


def test_registry_base_url_and_builtin_values(tree: Path) -> None:
    env = tree / "envs" / "b.yaml"
    env.write_text(
        "resource_registry:\n  base_url: " + (tree / "sub").as_uri() + "/\n"
        "  A::B: nested.yaml\n  C::D: OS::Heat::None\n"
    )
    gatherer = FileGatherer()
    document = gatherer.environment(str(env))
    registry = document["resource_registry"]
    assert registry["A::B"] == (tree / "sub" / "nested.yaml").as_uri()
    assert registry["C::D"] == "OS::Heat::None"


def test_template_that_includes_itself(tmp_path: Path) -> None:
    path = tmp_path / "loop.yaml"
    path.write_text("heat_template_version: 2018-03-02\nresources:\n  r: {type: loop.yaml}\n")
    template = FileGatherer().template(str(path))
    assert template["resources"]["r"]["type"] == path.as_uri()


def test_only_local_files() -> None:
    with pytest.raises(TemplateError, match="only local files"):
        FileGatherer().template("http://example.invalid/t.yaml")


def test_urls() -> None:
    assert to_url("file:///a/b.yaml") == "file:///a/b.yaml"
    assert base_url("file:///a/b/c.yaml") == "file:///a/b/"


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        (["a=1"], {"a": "1"}),
        (["a=1;b=2=3"], {"a": "1", "b": "2=3"}),
        (["a=1", "a=2", "a=3"], {"a": ["1", "2", "3"]}),
        (["a=x;y", "b=1"], {"a": "x;y", "b": "1"}),
    ],
)
def test_parameters(pairs: list[str], expected: dict[str, object]) -> None:
    assert parse_parameters(pairs) == expected


def test_malformed_parameter() -> None:
    with pytest.raises(EnvironmentError_, match="Use the key=value format"):
        parse_parameters(["novalue"])


def run_console(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [THERMIK, *args], check=False, capture_output=True, text=True, timeout=60
    )


def test_invalid_property_is_one_line_without_traceback(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n  r:\n    type: OS::Heat::RandomString\n"
        "    properties: {character_classes: [{class: nope}]}\n"
    )
    done = run_console("template", "validate", "-t", str(template))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "resources.r.properties.character_classes[0].class" in done.stderr


def test_unknown_type_is_rejected(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\nresources:\n  web:\n    type: OS::Nova::Server\n"
    )
    done = run_console("template", "validate", "-t", str(template))
    assert done.returncode == 1
    assert "resources.web" in done.stderr
    assert "OS::Nova::Server" in done.stderr


def test_valid_template_prints_parameters(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\nparameters:\n  n: {type: number, default: 3}\n"
        "resources:\n  r:\n    type: OS::Heat::RandomString\n"
        "    properties: {length: {get_param: n}}\n"
    )
    done = run_console("template", "validate", "-t", str(template), "-f", "json")
    assert done.returncode == 0, done.stderr
    assert '"n"' in done.stdout
