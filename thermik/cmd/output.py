"""``thermik output list|show``, as ``openstack stack output list|show``."""

from __future__ import annotations

import argparse

from cliff.lister import Lister
from cliff.show import ShowOne

from thermik.api import formatting
from thermik.cmd.render import Row, columns, rows
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.errors import InvalidInput


class ListOutput(ServiceCommand, Lister):
    """List a stack's outputs (keys and descriptions)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        views = self.service.list_outputs(self.context, stack)
        documents = (formatting.output_summary(view) for view in views)
        return rows(documents, ("output_key", "description"))


class ShowOutput(ServiceCommand, ShowOne):
    """Show one output of a stack, resolved (or all of them with --all)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--all", action="store_true", help="Show every output")
        add_stack_argument(parser)
        parser.add_argument("output", metavar="<output>", nargs="?", help="Output key")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        if parsed_args.all:
            shown = self.service.show_stack(self.context, stack)
            outputs = {o.key: formatting.output(o) for o in shown.outputs or ()}
            return columns(outputs)
        if not parsed_args.output:
            raise InvalidInput("Give an output key, or --all")
        view = self.service.show_output(self.context, stack, parsed_args.output)
        return columns(formatting.output(view), ("output_key", "output_value", "description"))
