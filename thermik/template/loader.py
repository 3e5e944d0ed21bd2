"""Turning template and environment text into plain Python data, with Heat's parsing rules.

Heat reads a template as JSON first and falls back to YAML; its YAML loader is PyYAML's safe
loader except that timestamps and dates stay strings, so ``heat_template_version: 2013-05-23``
is the string ``"2013-05-23"``. The document must be a mapping. On top of that Thermik bounds
what a user can make it hold in memory: the text size, the nesting depth and the number of
nodes (YAML aliases can make a small text expand into a huge tree).
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
from collections.abc import Iterator
from typing import Any

import yaml

from thermik.errors import TemplateSyntaxError, TemplateTooLarge

#: Heat's default ``max_template_size`` (bytes).
DEFAULT_MAX_SIZE = 524288
#: Deepest nesting of mappings and lists accepted in one document.
DEFAULT_MAX_DEPTH = 100

_SCALARS = (str, int, float, bool, type(None))
#: What no string of a document may hold: NUL (which PostgreSQL cannot store, and which no
#: template means) and halves of surrogate pairs (which are not text at all).
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_TAG = "tag:yaml.org,2002:"


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building a large tree.

    Loading creates hundreds of thousands of containers and no reference cycles; CPython's
    collector would rescan them over and over (5,000 resources: 3.7 s instead of 0.5 s).
    Collection resumes afterwards, unless someone else had switched it off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _scalar(node: yaml.ScalarNode) -> Any:
    tag = node.tag
    if tag in (_TAG + "str", _TAG + "timestamp"):
        # Heat keeps timestamps and dates as text: ``heat_template_version: 2013-05-23``.
        return node.value
    if tag == _TAG + "int":
        return _CONSTRUCTOR.construct_yaml_int(node)
    if tag == _TAG + "float":
        return _CONSTRUCTOR.construct_yaml_float(node)
    if tag == _TAG + "bool":
        return _CONSTRUCTOR.construct_yaml_bool(node)
    if tag == _TAG + "null":
        return None
    raise _unsupported(node)


def _unsupported(node: yaml.Node) -> TemplateSyntaxError:
    mark = node.start_mark
    return TemplateSyntaxError(
        f"unsupported YAML tag {node.tag} at line {mark.line + 1}, column {mark.column + 1}"
    )


def _to_data(node: yaml.Node, memo: dict[int, Any]) -> Any:
    """Plain data from a composed YAML node (what PyYAML's safe loader would build)."""
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node)
    key = id(node)
    if key in memo:  # an alias: share the object, as PyYAML does
        return memo[key]
    if isinstance(node, yaml.SequenceNode):
        if node.tag != _TAG + "seq":
            raise _unsupported(node)
        items: list[Any] = []
        memo[key] = items
        items.extend(_to_data(item, memo) for item in node.value)
        return items
    if not isinstance(node, yaml.MappingNode) or node.tag != _TAG + "map":
        raise _unsupported(node)
    if any(k.tag in (_TAG + "merge", _TAG + "value") for k, _ in node.value):
        _CONSTRUCTOR.flatten_mapping(node)  # ``<<: *anchor`` merge keys
    mapping: dict[Any, Any] = {}
    memo[key] = mapping
    for key_node, value_node in node.value:
        name = _to_data(key_node, memo)
        if not isinstance(name, _SCALARS):
            mark = key_node.start_mark
            raise TemplateSyntaxError(
                f"a mapping key must be a scalar, at line {mark.line + 1}, column "
                f"{mark.column + 1}"
            )
        mapping[name] = _to_data(value_node, memo)
    return mapping


def load_document(
    text: str | bytes,
    *,
    what: str = "template",
    json_first: bool = True,
    max_size: int = DEFAULT_MAX_SIZE,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> dict[Any, Any]:
    """Parse ``text`` (JSON or YAML) into a mapping.

    ``what`` names the document in error messages ("template", "environment"). Raises
    :class:`TemplateTooLarge` when the text exceeds ``max_size`` bytes or the tree is nested
    deeper than ``max_depth`` (or expands past the node budget), and
    :class:`TemplateSyntaxError` (with line and column) when it is not well-formed or not a
    mapping. An empty YAML document is an empty mapping, as in Heat.
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if len(raw) > max_size:
        raise TemplateTooLarge(
            f"{what} size ({len(raw)} bytes) exceeds maximum allowed size ({max_size} bytes)"
        )
    try:
        decoded = raw.decode("utf-8") if isinstance(text, bytes) else text
    except UnicodeDecodeError as exc:
        raise TemplateSyntaxError(f"{what} is not valid UTF-8: {exc.reason}") from None
    with collection_paused():
        data = _parse(decoded, what, json_first)
        if not isinstance(data, dict):
            raise TemplateSyntaxError(f"the {what} is not a JSON object or YAML mapping")
        check_shape(data, what=what, max_depth=max_depth, max_nodes=max(max_size, 1024))
        # Only an escape (YAML's "\0", JSON's "\u0000") or the character itself makes one.
        if "\\" in decoded or "\x00" in decoded:
            check_text(data, what=what)
    return data


def _parse(text: str, what: str, json_first: bool) -> Any:
    try:
        if json_first:
            try:
                return json.loads(text)
            except ValueError:
                pass
        node = yaml.compose(text, Loader=_Loader)
        data = None if node is None else _to_data(node, {})
    except RecursionError:
        raise TemplateTooLarge(f"{what} is nested too deeply") from None
    except yaml.MarkedYAMLError as exc:
        raise TemplateSyntaxError(_describe_yaml_error(what, exc)) from None
    except yaml.YAMLError as exc:
        raise TemplateSyntaxError(f"error parsing {what}: {exc}") from None
    except (ValueError, TypeError) as exc:
        # PyYAML's scalar constructors raise these for a few malformed values.
        raise TemplateSyntaxError(f"error parsing {what}: {exc}") from None
    return {} if data is None else data


def _describe_yaml_error(what: str, exc: yaml.MarkedYAMLError) -> str:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "malformed YAML"
    if mark is None:
        return f"error parsing {what}: {problem}"
    return f"error parsing {what} at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def check_shape(data: Any, *, what: str, max_depth: int, max_nodes: int) -> None:
    """Reject trees deeper than ``max_depth``, larger than ``max_nodes`` or holding non-JSON data.

    YAML can produce values JSON cannot hold (binary, sets, ordered pairs); Heat would store
    them and fail later, so they are refused here with the place they occur.
    """
    for nodes, (value, depth, where) in enumerate(_walk(data), start=1):
        if nodes > max_nodes:
            raise TemplateTooLarge(f"{what} has more than {max_nodes} values (alias expansion?)")
        if depth > max_depth:
            raise TemplateTooLarge(f"{what} is nested deeper than {max_depth} levels", path=where)
        if not isinstance(value, (dict, list, *_SCALARS)):
            raise TemplateSyntaxError(
                f"unsupported YAML value of type {type(value).__name__}", path=where
            )


def check_text(data: Any, *, what: str) -> None:
    """Reject a string (value or key) holding NUL or a lone surrogate, naming its place."""
    for value, _, where in _walk(data):
        if isinstance(value, dict):
            strings = [key for key in value if isinstance(key, str)]
        else:
            strings = [value] if isinstance(value, str) else []
        for text in strings:
            found = _NOT_TEXT.search(text)
            if found is not None:
                kind = "a NUL character" if found.group() == "\x00" else "a lone surrogate"
                at = found.start()
                raise TemplateSyntaxError(
                    f"a string of the {what} must not contain {kind} (at character {at})",
                    path=where,
                )


def _walk(data: Any) -> Iterator[tuple[Any, int, tuple[str | int, ...]]]:
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(data, 0, ())]
    while stack:
        value, depth, where = stack.pop()
        yield value, depth, where
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, _SCALARS):
                    raise TemplateSyntaxError(
                        f"unsupported mapping key of type {type(key).__name__}", path=where
                    )
                stack.append((item, depth + 1, (*where, str(key))))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, (*where, i)) for i, item in enumerate(value))
