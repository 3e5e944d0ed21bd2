"""How ``thermik`` commands show things: the documents the REST API would return, as columns.

The data is exactly what ``openstack stack ...`` shows for the same objects (the API's own
formatting, with links to where ``thermik-api`` would serve them), so ``-f json``/``-f yaml``
output reads the same; nested values are YAML in tables and raw in JSON and YAML.
"""

from __future__ import annotations

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

Row = tuple[tuple[str, ...], tuple[Any, ...]]


class DocumentColumn(FormattableColumn[Any]):
    """A nested value: YAML in tables, the value itself in JSON and YAML output."""

    def human_readable(self) -> str:
        text = yaml.safe_dump(self._value, default_flow_style=False, sort_keys=False)
        return text.removesuffix("\n...\n").rstrip("\n")


def cell(value: Any) -> Any:
    """A value as a column: nested ones formatted, scalars as they are."""
    return DocumentColumn(value) if isinstance(value, dict | list) else value


def links(api: ApiSettings, project: str) -> Links:
    """Links to where ``thermik-api`` serves the same objects."""
    return Links(f"http://{api.bind_host}:{api.bind_port}/v1", project)


def columns(document: Mapping[str, Any], first: Sequence[str] = ()) -> Row:
    """A document as ShowOne columns: ``first`` in order, then the rest as they come."""
    names = [name for name in first if name in document]
    names += [name for name in document if name not in names and name not in _HIDDEN]
    return tuple(names), tuple(cell(document[name]) for name in names)


def rows(documents: Iterable[Mapping[str, Any]], names: Sequence[str]) -> Row:
    """Documents as Lister rows of the given columns."""
    found = tuple(tuple(cell(doc.get(name)) for name in names) for doc in documents)
    return tuple(names), found


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
