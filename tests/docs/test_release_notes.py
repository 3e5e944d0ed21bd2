"""Each release note is one reno accepts: known sections, texts where reno expects them, and a
name made by ``reno new``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

#: The sections reno knows; a note's prelude is one text, every other section a list of them.
NOTE_SECTIONS = frozenset(
    {"prelude", "features", "issues", "upgrade", "deprecations", "critical", "security"}
    | {"fixes", "other"}
)


@pytest.mark.parametrize(
    "note", sorted((ROOT / "releasenotes" / "notes").glob("*.yaml")), ids=lambda p: p.stem
)
def test_each_release_note_is_one_reno_accepts(note: Path) -> None:
    document = yaml.safe_load(note.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    assert document, "an empty note"
    assert set(document) <= NOTE_SECTIONS, set(document) - NOTE_SECTIONS
    for section, value in document.items():
        if section == "prelude":
            assert isinstance(value, str)
        else:
            assert isinstance(value, list), section
            assert all(isinstance(item, str) and item.strip() for item in value), section
    assert re.fullmatch(r"[a-z0-9-]+-[0-9a-f]{16}", note.stem), "made by reno new"
