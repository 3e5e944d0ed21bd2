"""``thermik stack snapshot create|list|show|delete|restore``, as ``openstack stack snapshot``."""

from __future__ import annotations

import argparse

from cliff.command import Command
from cliff.lister import Lister
from cliff.show import ShowOne

from thermik.api import formatting
from thermik.cmd.render import Row, columns, rows
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.cmd.stack_inputs import add_wait_arguments

LIST_COLUMNS = ("id", "name", "status", "status_reason", "creation_time")


def _snapshot_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("snapshot", metavar="<snapshot>", help="ID of the snapshot")


class CreateSnapshot(ServiceCommand, ShowOne):
    """Snapshot a stack."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--name", metavar="<name>", help="Name of the snapshot")
        add_wait_arguments(parser)
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        marker = self.newest_event(stack)
        total = self.resource_count(stack)
        view = self.service.create_snapshot(self.context, stack, parsed_args.name)
        self.follow(stack, marker, total, parsed_args)
        view = self.service.show_snapshot(self.context, stack, view.id)
        document = formatting.snapshot(view)
        document.pop("data")
        return columns(document, LIST_COLUMNS)


class ListSnapshot(ServiceCommand, Lister):
    """List a stack's snapshots."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        views = self.service.list_snapshots(self.context, stack)
        return rows((formatting.snapshot(view) for view in views), LIST_COLUMNS)


class ShowSnapshot(ServiceCommand, ShowOne):
    """Show a snapshot of a stack, with its data."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser)
        _snapshot_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        view = self.service.show_snapshot(self.context, stack, parsed_args.snapshot)
        return columns(formatting.snapshot(view), LIST_COLUMNS)


class DeleteSnapshot(ServiceCommand, Command):
    """Delete a snapshot of a stack."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("-y", "--yes", action="store_true", help="Accepted for compatibility")
        add_stack_argument(parser)
        _snapshot_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        stack = self.stack(parsed_args.stack)
        self.service.delete_snapshot(self.context, stack, parsed_args.snapshot)
        return 0


class RestoreSnapshot(ServiceCommand, Command):
    """Restore a stack to a snapshot."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_wait_arguments(parser)
        add_stack_argument(parser)
        _snapshot_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        stack = self.stack(parsed_args.stack)
        marker = self.newest_event(stack)
        self.service.restore_snapshot(self.context, stack, parsed_args.snapshot)
        self.follow(stack, marker, self.template_count(stack), parsed_args)
        return 0
