"""``thermik template validate`` as a user runs it: one clear line and exit 1 on bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

THERMIK = str(Path(sys.executable).with_name("thermik"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
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
    done = run("template", "validate", "-t", str(template))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "resources.r.properties.character_classes[0].class" in done.stderr


def test_unknown_type_is_rejected(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\nresources:\n  web:\n    type: OS::Nova::NoSuchType\n"
    )
    done = run("template", "validate", "-t", str(template))
    assert done.returncode == 1
    assert "resources.web" in done.stderr
    assert "OS::Nova::NoSuchType" in done.stderr


def test_valid_template_prints_parameters(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\nparameters:\n  n: {type: number, default: 3}\n"
        "resources:\n  r:\n    type: OS::Heat::RandomString\n"
        "    properties: {length: {get_param: n}}\n"
    )
    done = run("template", "validate", "-t", str(template), "-f", "json")
    assert done.returncode == 0, done.stderr
    assert '"n"' in done.stdout
