"""Policy in code: the committed policy.yaml.sample is current and the oslopolicy tools find the
rules through the entry points."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from thermik.conf import policies

ROOT = Path(__file__).resolve().parents[3]


def oslopolicy(tool: str, *args: str) -> str:
    script = Path(sys.executable).with_name(tool)
    done = subprocess.run(
        [str(script), *args], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout


def test_sample_policy_is_current(tmp_path: Path) -> None:
    out = tmp_path / "policy.yaml.sample"
    oslopolicy("oslopolicy-sample-generator", "--namespace", "thermik", "--output-file", str(out))
    committed = (ROOT / "etc" / "thermik" / "policy.yaml.sample").read_text()
    assert out.read_text() == committed, "run `tox -e genpolicy` and commit the sample"


def test_policy_generator_uses_the_thermik_enforcer() -> None:
    effective = oslopolicy("oslopolicy-policy-generator", "--namespace", "thermik")
    assert '"stacks:create": "role:member and project_id:%(project_id)s"' in effective
    assert '"stacks:global_index": "rule:context_is_admin"' in effective


def test_rule_names_are_unique() -> None:
    names = [rule.name for rule in policies.list_rules()]
    assert len(names) == len(set(names))
