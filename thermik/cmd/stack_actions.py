"""``thermik stack cancel|check|suspend|resume|abandon|adopt``, as ``openstack stack ...``.

Actions on several stacks show each stack's state afterwards, like the openstack client;
``--wait`` follows each operation live before moving to the next stack.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from cliff.lister import Lister
from cliff.show import ShowOne

from thermik.api.boundary import StackAction
from thermik.cmd.render import Row, columns, rows, stack_document
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.cmd.stack import LIST_COLUMNS, StackCommand
from thermik.cmd.stack_inputs import add_input_arguments, add_wait_arguments, stack_request
from thermik.errors import InvalidInput


class _ActionCommand(ServiceCommand, Lister):
    """An action on one or more stacks, then their states."""

    action: StackAction

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_wait_arguments(parser)
        parser.add_argument("stacks", metavar="<stack>", nargs="+", help="Names or IDs of stacks")
        return parser

    def act(self, parsed_args: argparse.Namespace) -> StackAction:
        """The action to run (fixed, except for cancel)."""
        return self.action

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        action = self.act(parsed_args)
        where = self.links
        documents = []
        for name in parsed_args.stacks:
            stack = self.stack(name)
            marker = self.newest_event(stack)
            total = self.resource_count(stack)
            self.service.stack_action(self.context, stack, action)
            cancelled = action is StackAction.CANCEL_UPDATE
            self.follow(stack, marker, total, parsed_args, rollback_succeeds=cancelled)
            view = self.service.show_stack(self.context, stack, resolve_outputs=False)
            documents.append(stack_document(view, where))
        return rows(documents, LIST_COLUMNS, titled=True)


class CheckStack(_ActionCommand):
    """Check that the resources of stacks still exist and are healthy."""

    action = StackAction.CHECK


class SuspendStack(_ActionCommand):
    """Suspend stacks."""

    action = StackAction.SUSPEND


class ResumeStack(_ActionCommand):
    """Resume suspended stacks."""

    action = StackAction.RESUME


class CancelStack(_ActionCommand):
    """Cancel the running update (rolling back), or with --no-rollback a create or update."""

    action = StackAction.CANCEL_UPDATE

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            "--no-rollback",
            action="store_true",
            help="Stop the create or update where it is, without rolling back",
        )
        return parser

    def act(self, parsed_args: argparse.Namespace) -> StackAction:
        if parsed_args.no_rollback:
            return StackAction.CANCEL_WITHOUT_ROLLBACK
        return StackAction.CANCEL_UPDATE


def _dump(data: Any, path: str | None) -> None:
    text = json.dumps(data, indent=2, sort_keys=True)
    if path:
        Path(path).write_text(text + "\n", encoding="utf-8")
    else:
        sys.stdout.write(text + "\n")


class AbandonStack(ServiceCommand, ShowOne):
    """Forget a stack without deleting its resources; show (or save) its abandon data."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "--output-file", metavar="<output-file>", help="Write the abandon data to this file"
        )
        add_stack_argument(parser, help="Name or ID of the stack to abandon")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        data = self.service.abandon_stack(self.context, stack)
        if parsed_args.output_file:
            _dump(data, parsed_args.output_file)
            return ("output_file",), (parsed_args.output_file,)
        return columns(data)


class AdoptStack(StackCommand, ShowOne):
    """Make a stack of the resources an abandon document describes."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_input_arguments(parser, template_required=False)
        parser.add_argument(
            "--adopt-file",
            required=True,
            metavar="<adopt-file>",
            help="Abandon data (JSON) of the stack to adopt",
        )
        parser.add_argument(
            "--enable-rollback", action="store_true", help="Roll back when the adopt fails"
        )
        add_wait_arguments(parser)
        parser.add_argument("name", metavar="<stack-name>", help="Name of the stack to adopt")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        request = dataclasses.replace(
            stack_request(parsed_args, name=parsed_args.name),
            adopt_data=_adopt_data(parsed_args.adopt_file),
            disable_rollback=not parsed_args.enable_rollback,
        )
        stack = self.service.adopt_stack(self.context, request)
        self.follow(stack, None, self.template_count(stack), parsed_args)
        return self.show(stack, outputs=parsed_args.wait)


def _adopt_data(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read adopt file {path}: {exc}") from None
    except ValueError as exc:
        raise InvalidInput(f"adopt file {path} is not JSON: {exc}") from None
