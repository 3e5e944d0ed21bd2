"""Passed, failed and skipped tests per module of heat-tempest-plugin runs, from subunit v2.

Run with .venv-tempest's Python (python-subunit): ``summarize.py RESULTS.subunit...``. Prints a
table with a row per module (a gabbi YAML file for the API tests, a test module for the
functional ones) and the totals, then every failed test; exits 1 when a test failed or none ran.
"""

from __future__ import annotations

import collections
import re
import sys
from typing import Any

import subunit  # type: ignore[import-not-found]
import testtools  # type: ignore[import-not-found]

OUTCOMES = {"success": "passed", "fail": "failed", "skip": "skipped", "uxsuccess": "failed"}


class Outcomes(testtools.StreamResult):  # type: ignore[misc]
    """The last outcome of each test in a stream."""

    def __init__(self) -> None:
        super().__init__()
        self.of: dict[str, str] = {}

    def status(self, test_id: str | None = None, test_status: str | None = None, **_: Any) -> None:
        if test_id is not None and test_status in OUTCOMES:
            self.of[test_id] = OUTCOMES[test_status]


def module_of(test_id: str) -> str:
    """``api/<file>.yaml`` for a gabbi test, ``functional/<module>`` for the others."""
    parts = re.sub(r"\[.*\]$", "", test_id).split(".")
    if ".tests.api." in test_id:
        return "api/" + parts[4].split("_", 1)[0] + ".yaml"
    return "functional/" + parts[3]


def read(paths: list[str]) -> dict[str, str]:
    outcomes = Outcomes()
    for path in paths:
        with open(path, "rb") as stream:
            outcomes.startTestRun()
            subunit.ByteStreamToStreamResult(stream, non_subunit_name="stdout").run(outcomes)
            outcomes.stopTestRun()
    # tempest's setUpClass failures are reported as tests of their own; keep real tests only
    return {t: o for t, o in outcomes.of.items() if "heat_tempest_plugin" in t}


def table(outcomes: dict[str, str]) -> list[str]:
    rows: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for test_id, outcome in outcomes.items():
        rows[module_of(test_id)][outcome] += 1
    lines = ["| module | passed | failed | skipped |", "|---|---|---|---|"]
    total: collections.Counter[str] = collections.Counter()
    for module in sorted(rows):
        total.update(rows[module])
        counts = rows[module]
        lines.append(
            f"| {module} | {counts['passed']} | {counts['failed']} | {counts['skipped']} |"
        )
    lines.append(
        f"| **total** | **{total['passed']}** | **{total['failed']}** | **{total['skipped']}** |"
    )
    return lines


def main(paths: list[str]) -> int:
    outcomes = read(paths)
    print("\n".join(table(outcomes)))
    failed = sorted(t for t, o in outcomes.items() if o == "failed")
    for test_id in failed:
        print("FAILED", re.sub(r"\[.*\]$", "", test_id))
    return 1 if failed or not outcomes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
