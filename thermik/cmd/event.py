"""``thermik event list``, as ``openstack stack event list``."""

from __future__ import annotations

import argparse

from cliff.lister import Lister

from thermik.api import formatting
from thermik.api.boundary import EventQuery, SortDir
from thermik.cmd.render import Row, links, rows
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.cmd.stack_inputs import parse_filters

LIST_COLUMNS = (
    "id",
    "resource_name",
    "resource_status",
    "resource_status_reason",
    "event_time",
)


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
            "--sort", choices=("asc", "desc"), default="asc", help="Oldest (asc) or newest first"
        )
        parser.add_argument(
            "--nested-depth",
            type=int,
            default=0,
            metavar="<depth>",
            help="Include events of nested stacks to this depth",
        )
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        query = EventQuery(
            resource_name=parsed_args.resource,
            filters=parse_filters(parsed_args.filter),
            sort_dir=SortDir(parsed_args.sort),
            marker=parsed_args.marker,
            limit=parsed_args.limit,
            nested_depth=parsed_args.nested_depth,
        )
        views = self.service.list_events(self.context, stack, query)
        where = links(self.thermik.settings().api, self.context.tenant)
        return rows((formatting.event(view, where, detail=False) for view in views), LIST_COLUMNS)
