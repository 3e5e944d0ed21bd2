"""Turning template and environment text into plain Python data, with Heat's parsing rules.

Heat reads a template as JSON first and falls back to YAML; its YAML loader is PyYAML's safe
loader except that timestamps and dates stay strings, so ``heat_template_version: 2013-05-23``
is the string ``"2013-05-23"``. The document must be a mapping. On top of that Thermik bounds
what a user can make it hold in memory: the text size, the nesting depth and the number of
nodes (YAML aliases can make a small text expand into a huge tree).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import yaml

from thermik.errors import TemplateSyntaxError, TemplateTooLarge

#: Heat's default ``max_template_size`` (bytes).
DEFAULT_MAX_SIZE = 524288
#: Deepest nesting of mappings and lists accepted in one document.
DEFAULT_MAX_DEPTH = 100

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _HeatLoader(_Base):  # type: ignore[misc,valid-type]
    """Safe YAML loader that keeps timestamps and dates as strings, as Heat's does."""


def _construct_str(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


_HeatLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)
_HeatLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_str)

_SCALARS = (str, int, float, bool, type(None))


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
    data = _parse(decoded, what, json_first)
    if not isinstance(data, dict):
        raise TemplateSyntaxError(f"the {what} is not a JSON object or YAML mapping")
    check_shape(data, what=what, max_depth=max_depth, max_nodes=max(max_size, 1024))
    return data


def _parse(text: str, what: str, json_first: bool) -> Any:
    try:
        if json_first:
            try:
                return json.loads(text)
            except ValueError:
                pass
        data = yaml.load(text, Loader=_HeatLoader)
    except RecursionError:
        raise TemplateTooLarge(f"{what} is nested too deeply") from None
    except yaml.MarkedYAMLError as exc:
        raise TemplateSyntaxError(_describe_yaml_error(what, exc)) from None
    except yaml.YAMLError as exc:
        raise TemplateSyntaxError(f"error parsing {what}: {exc}") from None
    except (ValueError, TypeError) as exc:
        # PyYAML's constructors raise these for a few malformed scalars (e.g. bad base64).
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
