"""Loading template text the way Heat does, with bounded size and depth."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from thermik.errors import TemplateSyntaxError, TemplateTooLarge
from thermik.template.loader import load_document


def test_dates_stay_strings() -> None:
    doc = load_document("heat_template_version: 2013-05-23\nwhen: 2001-12-14t21:59:43.10-05:00\n")
    assert doc == {"heat_template_version": "2013-05-23", "when": "2001-12-14t21:59:43.10-05:00"}


def test_json_is_read() -> None:
    assert load_document('{"a": [1, 2.5, true, null]}') == {"a": [1, 2.5, True, None]}


def test_yaml_11_booleans_are_kept_like_heat() -> None:
    assert load_document("a: yes\nb: off\n") == {"a": True, "b": False}


def test_empty_document_is_an_empty_mapping() -> None:
    assert load_document("") == {}
    assert load_document("# only a comment\n") == {}


def test_bytes_are_decoded() -> None:
    assert load_document("a: é".encode()) == {"a": "é"}


def test_invalid_utf8_is_a_syntax_error() -> None:
    with pytest.raises(TemplateSyntaxError, match="not valid UTF-8"):
        load_document(b"a: \xff")


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string", "42", "[1, 2]"])
def test_top_level_must_be_a_mapping(text: str) -> None:
    with pytest.raises(TemplateSyntaxError, match="not a JSON object or YAML mapping"):
        load_document(text)


def test_syntax_error_names_line_and_column() -> None:
    with pytest.raises(TemplateSyntaxError) as info:
        load_document("a: 1\nb: [1, 2\nc: 3\n")
    assert "line 3, column 2" in str(info.value)


def test_size_limit_counts_bytes() -> None:
    with pytest.raises(
        TemplateTooLarge, match=r"template size \(14 bytes\) exceeds .* \(10 bytes\)"
    ):
        load_document("a: ééééé\n", max_size=10)
    assert load_document("a: b\n", max_size=5) == {"a": "b"}


def test_environment_names_itself_in_errors() -> None:
    with pytest.raises(TemplateTooLarge, match="environment size"):
        load_document("a: b\n", what="environment", max_size=2)


def test_depth_limit() -> None:
    deep = "a: " + "[" * 20 + "]" * 20
    with pytest.raises(TemplateTooLarge, match="nested deeper than 10"):
        load_document(deep, max_depth=10)
    assert load_document(deep, max_depth=30)


def test_very_deep_json_is_too_large_not_a_crash() -> None:
    text = '{"a": ' + "[" * 100000 + "]" * 100000 + "}"
    with pytest.raises(TemplateTooLarge):
        load_document(text, max_size=10**6)


def test_alias_expansion_is_bounded() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    with pytest.raises(TemplateTooLarge, match="alias expansion"):
        load_document("\n".join(lines))


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("a: !!binary aGVsbG8=\n", "binary"),
        ("a: !!set {x: null}\n", "set"),
        ("a: !!omap [{x: 1}]\n", "omap"),
        ("a: !Ref x\n", "!Ref"),
        ("a: !!python/tuple [1]\n", "python/tuple"),
    ],
)
def test_values_json_cannot_hold_are_refused(text: str, tag: str) -> None:
    with pytest.raises(TemplateSyntaxError, match=f"unsupported YAML tag .*{tag}.* at line 1"):
        load_document(text)


def test_scalars_follow_yaml_11() -> None:
    doc = load_document(
        "i: 0x1f\nj: 1_000\nk: 017\nf: 1.5e+3\nt1: 0o17\nt2: 1.5e3\ninf: .inf\nn: ~\n"
        "s: '1'\nt: 2001-12-14\n"
    )
    # PyYAML (and so Heat) reads YAML 1.1: 0o17 and 1.5e3 stay strings.
    assert doc == {"i": 31, "j": 1000, "k": 15, "f": 1500.0, "t1": "0o17", "t2": "1.5e3",
                   "inf": float("inf"), "n": None, "s": "1", "t": "2001-12-14"}  # fmt: skip


def test_anchors_aliases_and_merge_keys() -> None:
    doc = load_document("base: &b {x: 1, y: 2}\nuse: *b\nmerged: {<<: *b, y: 3}\n")
    assert doc["use"] is doc["base"]
    assert doc["merged"] == {"x": 1, "y": 3}


def test_unsafe_tags_are_refused() -> None:
    with pytest.raises(TemplateSyntaxError):
        load_document("a: !!python/object/apply:os.system ['true']\n")


def test_unhashable_key_is_a_syntax_error() -> None:
    with pytest.raises(TemplateSyntaxError):
        load_document("? [a, b]\n: c\n")


class _Reference(yaml.SafeLoader):
    """PyYAML's safe loader with Heat's one change: timestamps stay strings."""


_Reference.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
)

CORPUS = sorted((Path(__file__).parent / "conformance").glob("*.yaml"))


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_same_data_as_pyyaml_on_the_corpus(path: Path) -> None:
    text = path.read_text()
    assert load_document(text) == yaml.load(text, Loader=_Reference)


#: Text a template may hold: neither NUL nor halves of surrogate pairs (refused, tested above).
TEXT = st.characters(exclude_characters="\x00", exclude_categories=("Cs",))

JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(TEXT, max_size=8),
              st.floats(allow_nan=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(TEXT, max_size=5), inner, max_size=4)),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(TEXT, max_size=5), JSONISH, max_size=4), st.booleans())
def test_same_data_as_pyyaml_on_random_documents(data: dict[str, Any], flow: bool) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow)
    assert load_document(text) == yaml.load(text, Loader=_Reference)


@pytest.mark.parametrize(
    ("text", "where", "kind"),
    [
        ('a:\n  b: "x\\0"\n', "a.b", "a NUL character"),
        ('"k\\x00": 1\n', "", "a NUL character"),
        ('{"a": ["ok", "\\u0000"]}', "a.1", "a NUL character"),
        ('{"a": "\\ud800"}', "a", "a lone surrogate"),
    ],
)
def test_a_string_that_is_not_text_is_refused_with_its_place(
    text: str, where: str, kind: str
) -> None:
    with pytest.raises(TemplateSyntaxError, match=f"must not contain {kind}") as caught:
        load_document(text)
    assert ".".join(str(part) for part in caught.value.path) == where


def test_backslashes_that_make_text_are_kept() -> None:
    assert load_document("a: \"C:\\\\dir\\tx\"\nb: '\\0'\n") == {"a": "C:\\dir\tx", "b": "\\0"}
