"""``thermik stack event list|show``, as ``openstack stack event list|show``.

The columns, ``--sort <key>[:<direction>]`` and ``--follow`` are the openstack client's. With
``--follow`` the command prints each new event as a log line until Ctrl-C; as the engine runs in
this process, a stack whose operation an earlier command left running goes on meanwhile.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from cliff.lister import Lister
from cliff.show import ShowOne

from thermik.api import formatting
from thermik.api.boundary import EventQuery, EventView, SortDir, StackIdentity
from thermik.api.responses import isotime
from thermik.cmd.render import Row, columns, rows
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.cmd.stack_inputs import parse_filters
from thermik.errors import InvalidInput

#: ``openstack stack event list`` columns, in its order (``stack_name`` with --nested-depth).
LIST_COLUMNS = (
    "resource_name",
    "id",
    "resource_status",
    "resource_status_reason",
    "event_time",
    "physical_resource_id",
    "logical_resource_id",
)
SORT_KEYS = (*LIST_COLUMNS, "stack_name")
#: Seconds between looks at the stored events with --follow.
FOLLOW_POLL = 1.0


@dataclasses.dataclass(frozen=True, slots=True)
class Sort:
    """One ``--sort`` key and its direction."""

    key: str
    descending: bool = False


def parse_sort(specs: Sequence[str]) -> tuple[Sort, ...]:
    """``<key>[:<direction>]`` options (an empty key, or a bare direction, is event_time)."""
    found = []
    for spec in specs:
        key, _, direction = spec.partition(":")
        if key in ("asc", "desc") and not direction:
            key, direction = "", key
        key = key or "event_time"
        if key not in SORT_KEYS:
            raise InvalidInput(f"Unknown sort key {key!r}: use one of {', '.join(SORT_KEYS)}")
        if direction not in ("", "asc", "desc"):
            raise InvalidInput(f"Unknown sort direction {direction!r}: use asc or desc")
        found.append(Sort(key, direction == "desc"))
    return tuple(found)


def sort_documents(documents: list[dict[str, Any]], sorts: Sequence[Sort]) -> list[dict[str, Any]]:
    """Sorted by the keys in order (the first one decides most), as the openstack client does."""
    for sort in reversed(sorts):
        documents.sort(key=lambda d: str(d.get(sort.key) or ""), reverse=sort.descending)
    return documents


def log_line(view: EventView) -> str:
    """An event as ``openstack stack event list --follow`` logs it."""
    when = (isotime(view.event_time) or "").replace("T", " ")
    status = formatting.status_text(view.action, view.status)
    return f"{when} {view.id} [{view.resource_name}]: {status}  {view.status_reason}"


class ListEvent(ServiceCommand, Lister):
    """List the events of a stack (or of one of its resources), oldest first."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--resource", metavar="<resource>", help="Only this resource's")
        parser.add_argument(
            "--filter",
            action="append",
            default=[],
            metavar="<key=value>",
            help="Filter by resource_status, resource_action, resource_name or resource_type",
        )
        parser.add_argument("--limit", type=int, metavar="<limit>", help="At most this many")
        parser.add_argument("--marker", metavar="<id>", help="Start after this event")
        parser.add_argument(
            "--sort",
            action="append",
            default=[],
            metavar="<key>[:<direction>]",
            help="Sort by a column, asc or desc (repeatable); ':desc' is newest first",
        )
        parser.add_argument(
            "--nested-depth",
            type=int,
            default=0,
            metavar="<depth>",
            help="Include events of nested stacks to this depth",
        )
        parser.add_argument(
            "--follow",
            action="store_true",
            help="Print events as log lines as they come, until Ctrl-C (the engine runs)",
        )
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        if parsed_args.resource and parsed_args.nested_depth:
            raise InvalidInput("--nested-depth cannot be specified with --resource")
        sorts = parse_sort(parsed_args.sort)
        stack = self.stack(parsed_args.stack)
        first_desc = bool(sorts) and sorts[0].key == "event_time" and sorts[0].descending
        query = EventQuery(
            resource_name=parsed_args.resource,
            filters=parse_filters(parsed_args.filter),
            sort_dir=SortDir.DESC if first_desc else SortDir.ASC,
            marker=parsed_args.marker,
            limit=parsed_args.limit,
            nested_depth=parsed_args.nested_depth,
        )
        if parsed_args.follow:
            self._follow(stack, dataclasses.replace(query, sort_dir=SortDir.ASC, limit=None))
            return (), ()
        views = self.service.list_events(self.context, stack, query)
        where = self.links
        documents = [
            _document(view, formatting.event(view, where, detail=False)) for view in views
        ]
        names: tuple[str, ...] = LIST_COLUMNS
        if parsed_args.nested_depth:
            names = (*LIST_COLUMNS[:-1], "stack_name", LIST_COLUMNS[-1])
        return rows(sort_documents(documents, sorts), names)

    def _follow(self, stack: StackIdentity, query: EventQuery) -> None:
        """Print new events until Ctrl-C."""
        try:
            while True:
                for view in self.service.list_events(self.context, stack, query):
                    query = dataclasses.replace(query, marker=view.id)
                    sys.stdout.write(log_line(view) + "\n")
                sys.stdout.flush()
                time.sleep(FOLLOW_POLL)
        except KeyboardInterrupt:
            return


def _document(view: EventView, document: Mapping[str, Any]) -> dict[str, Any]:
    """The API's event document, with the name of the stack it belongs to."""
    return {**document, "stack_name": view.stack.name}


class ShowEvent(ServiceCommand, ShowOne):
    """Show one event of a resource of a stack."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser, help="Name or ID of the stack to show events for")
        parser.add_argument(
            "resource", metavar="<resource>", help="Name of the resource the event belongs to"
        )
        parser.add_argument("event", metavar="<event>", help="ID of the event to show")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        view = self.service.show_event(
            self.context, stack, parsed_args.resource, parsed_args.event
        )
        where = self.links
        return columns(formatting.event(view, where, detail=True))
