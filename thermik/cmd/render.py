"""How ``thermik`` commands show things: the documents the REST API would return, as columns.

The data is exactly what ``openstack stack ...`` shows for the same objects (the API's own
formatting, with links to where ``thermik-api`` would serve them), so ``-f json``/``-f yaml``
output reads the same; nested values are YAML in tables and raw in JSON and YAML.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import yaml
from cliff.columns import FormattableColumn

from thermik.api import formatting
from thermik.api.boundary import StackView
from thermik.api.links import Links
from thermik.conf.settings import ApiSettings

#: The columns ``openstack stack show`` puts first, in its order.
STACK_COLUMNS = (
    "id",
    "stack_name",
    "description",
    "creation_time",
    "updated_time",
    "stack_status",
    "stack_status_reason",
)
#: Left out of ``stack show``, as the openstack client does.
_HIDDEN = ("template_description",)

#: Where long text wraps in tables.
TEXT_WIDTH = 72

Row = tuple[tuple[str, ...], tuple[Any, ...]]


class DocumentColumn(FormattableColumn[Any]):
    """A nested value: YAML in tables, the value itself in JSON and YAML output."""

    def human_readable(self) -> str:
        text = yaml.safe_dump(
            self._value, default_flow_style=False, sort_keys=False, width=TEXT_WIDTH
        )
        return text.removesuffix("\n...\n").rstrip("\n")


class TextColumn(FormattableColumn[str]):
    """Long text: wrapped in tables, as it is elsewhere."""

    def human_readable(self) -> str:
        return "\n".join(textwrap.wrap(self._value, TEXT_WIDTH))


def cell(value: Any) -> Any:
    """A value as a column: nested ones as YAML and long text wrapped in tables."""
    if isinstance(value, dict | list):
        return DocumentColumn(value)
    if isinstance(value, str) and len(value) > TEXT_WIDTH:
        return TextColumn(value)
    return value


def links(api: ApiSettings, project: str) -> Links:
    """Links to where ``thermik-api`` serves the same objects."""
    return Links(f"http://{api.bind_host}:{api.bind_port}/v1", project)


def columns(document: Mapping[str, Any], first: Sequence[str] = ()) -> Row:
    """A document as ShowOne columns: ``first`` in order, then the rest as they come."""
    names = [name for name in first if name in document]
    names += [name for name in document if name not in names and name not in _HIDDEN]
    return tuple(names), tuple(cell(document[name]) for name in names)


def title(name: str) -> str:
    """A column header as the openstack client titles stack lists: ``Stack Name``, ``ID``."""
    return "ID" if name == "id" else name.replace("_", " ").title()


def rows(
    documents: Iterable[Mapping[str, Any]], names: Sequence[str], *, titled: bool = False
) -> Row:
    """Documents as Lister rows of the given columns (headers titled when ``titled``)."""
    found = tuple(tuple(cell(doc.get(name)) for name in names) for doc in documents)
    headers = tuple(title(name) if titled else name for name in names)
    return headers, found


def stack_document(view: StackView, where: Links) -> dict[str, Any]:
    """A stack as the API's ``GET /stacks/{name}/{id}`` shows it."""
    return formatting.stack_detail(view, where)


def stack_columns(view: StackView, where: Links, *, short: bool = False) -> Row:
    """``openstack stack show`` columns; ``short`` keeps the first ones (and the outputs)."""
    document = stack_document(view, where)
    if short:
        keep = (*STACK_COLUMNS, "outputs")
        document = {k: v for k, v in document.items() if k in keep}
    return columns(document, (*STACK_COLUMNS, "parameters", "outputs", "links"))
