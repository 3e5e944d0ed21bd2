"""``thermik resource list|show|signal``, as ``openstack stack resource ...``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cliff.command import Command
from cliff.lister import Lister
from cliff.show import ShowOne

from thermik.api import formatting
from thermik.api.boundary import ResourceQuery
from thermik.cmd.render import Row, columns, rows
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.cmd.stack_inputs import parse_filters
from thermik.errors import InvalidInput, InvalidSignal

LIST_COLUMNS = (
    "resource_name",
    "physical_resource_id",
    "resource_type",
    "resource_status",
    "updated_time",
)
SHOW_FIRST = (
    "resource_name",
    "logical_resource_id",
    "physical_resource_id",
    "resource_type",
    "resource_status",
    "resource_status_reason",
    "required_by",
    "creation_time",
    "updated_time",
)


def _resource_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("resource", metavar="<resource>", help="Name of the resource")


class ListResource(ServiceCommand, Lister):
    """List the resources of a stack."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--long", action="store_true", help="Show the stack name too")
        parser.add_argument(
            "-n",
            "--nested-depth",
            type=int,
            default=0,
            metavar="<nested-depth>",
            help="Depth of nested stacks to list resources of",
        )
        parser.add_argument(
            "--filter",
            action="append",
            default=[],
            metavar="<key=value>",
            help="Filter by type, status, name, action or physical_resource_id (repeatable)",
        )
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        query = ResourceQuery(
            nested_depth=parsed_args.nested_depth, filters=parse_filters(parsed_args.filter)
        )
        views = self.service.list_resources(self.context, stack, query)
        where = self.links
        documents = []
        for view in views:
            document = formatting.resource(view, where, detail=False)
            document["stack_name"] = view.stack.name
            documents.append(document)
        names: tuple[str, ...] = LIST_COLUMNS
        if parsed_args.long or parsed_args.nested_depth:
            names = (*LIST_COLUMNS, "stack_name")
        return rows(documents, names)


class ShowResource(ServiceCommand, ShowOne):
    """Show a resource of a stack with its attributes."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "--with-attr",
            action="append",
            default=[],
            metavar="<attribute>",
            help="Attribute to show as well (repeatable)",
        )
        add_stack_argument(parser)
        _resource_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        view = self.service.show_resource(
            self.context, stack, parsed_args.resource, with_attr=parsed_args.with_attr
        )
        where = self.links
        return columns(formatting.resource(view, where, detail=True), SHOW_FIRST)


def signal_data(data: str | None, data_file: str | None) -> Any:
    """The signal's JSON from ``--data`` or ``--data-file`` (``None`` when neither)."""
    if data is not None and data_file is not None:
        raise InvalidInput("Give --data or --data-file, not both")
    text = data
    if data_file is not None:
        try:
            text = Path(data_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"cannot read {data_file}: {exc}") from None
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InvalidSignal(f"Signal data is not valid JSON: {exc}") from None


class SignalResource(ServiceCommand, Command):
    """Send a signal to a resource of a stack."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--data", metavar="<data>", help="JSON data to send")
        parser.add_argument("--data-file", metavar="<data-file>", help="File with JSON to send")
        add_stack_argument(parser)
        _resource_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        stack = self.stack(parsed_args.stack)
        data = signal_data(parsed_args.data, parsed_args.data_file)
        self.service.signal_resource(self.context, stack, parsed_args.resource, data)
        return 0


class ShowResourceMetadata(ServiceCommand, ShowOne):
    """Show the metadata of a resource of a stack (JSON unless -f says otherwise)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser)
        _resource_argument(parser)
        return parser

    @property
    def formatter_default(self) -> str:
        return "json"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        metadata = self.service.resource_metadata(self.context, stack, parsed_args.resource)
        return tuple(metadata), tuple(metadata.values())


class MarkResourceUnhealthy(ServiceCommand, Command):
    """Mark a resource of a stack unhealthy (CHECK_FAILED), or healthy again (--reset)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--reset", action="store_true", help="Set the resource as healthy")
        add_stack_argument(parser)
        _resource_argument(parser)
        parser.add_argument(
            "reason", metavar="<reason>", nargs="?", default="", help="Reason for the change"
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        stack = self.stack(parsed_args.stack)
        self.service.mark_resource_unhealthy(
            self.context,
            stack,
            parsed_args.resource,
            unhealthy=not parsed_args.reset,
            reason=parsed_args.reason,
        )
        return 0
