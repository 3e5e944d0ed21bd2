"""``thermik stack create|update|delete|list|show``, as ``openstack stack ...`` has them.

The engine runs in this process. With ``--wait`` a command follows the operation live (events
and a progress bar on stderr) and then shows the stack with its outputs; without it, the
command returns once the operation started, and the engine stops with the command (the stack
stays as recorded, and the next ``thermik`` command resumes it).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from cliff.command import Command
from cliff.lister import Lister
from cliff.show import ShowOne

from thermik.api import formatting
from thermik.api.boundary import (
    ListQuery,
    ResourceChanges,
    SortDir,
    StackIdentity,
    StackUpdate,
)
from thermik.api.links import Links
from thermik.cmd.hook import add_hook_option, add_hooks
from thermik.cmd.render import (
    Row,
    cell,
    columns,
    rows,
    stack_columns,
    stack_document,
)
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.cmd.stack_inputs import (
    add_input_arguments,
    add_wait_arguments,
    parse_filters,
    stack_request,
)
from thermik.errors import InvalidInput, ThermikError

LIST_COLUMNS = ("id", "stack_name", "stack_status", "creation_time", "updated_time")
_ROLLBACK = {"enabled": False, "disabled": True, "keep": None}


class StackCommand(ServiceCommand):
    """What the stack commands share: showing a stack after an operation."""

    def show(self, stack: StackIdentity, *, outputs: bool) -> Row:
        """The short stack columns, with the outputs when the operation was waited for."""
        view = self.service.show_stack(self.context, stack, resolve_outputs=outputs)
        return stack_columns(view, self.links, short=True)


class CreateStack(StackCommand, ShowOne):
    """Create a stack."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_input_arguments(parser, template_required=True)
        add_hook_option(parser, "pre-create")
        parser.add_argument(
            "--enable-rollback", action="store_true", help="Roll back when the create fails"
        )
        add_wait_arguments(parser)
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would be created, create nothing"
        )
        parser.add_argument("name", metavar="<stack-name>", help="Name of the stack to create")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        request = stack_request(parsed_args, name=parsed_args.name)
        request = dataclasses.replace(
            request,
            disable_rollback=not parsed_args.enable_rollback,
            environment=add_hooks(None, parsed_args.pre_create, "pre-create"),
        )
        if parsed_args.dry_run:
            preview = self.service.preview_stack(self.context, request)
            where = self.links
            document = formatting.stack_preview(preview, where)
            # All of it, sorted, template_description included: openstack shows it so here.
            names = tuple(sorted(document))
            return names, tuple(cell(document[name]) for name in names)
        stack = self.service.create_stack(self.context, request)
        self.follow(stack, None, self.template_count(stack), parsed_args)
        return self.show(stack, outputs=parsed_args.wait)


class UpdateStack(StackCommand, ShowOne):
    """Update a stack (PUT; ``--existing`` keeps what is not given, like PATCH)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_input_arguments(parser, template_required=False)
        add_hook_option(parser, "pre-update")
        parser.add_argument(
            "--rollback",
            choices=sorted(_ROLLBACK),
            default="keep",
            help="Roll back on failure: enabled, disabled, or keep the stack's setting",
        )
        parser.add_argument(
            "--existing",
            action="store_true",
            help="Keep the stored template, environment and parameters where none are given",
        )
        parser.add_argument(
            "--clear-parameter",
            action="append",
            default=[],
            metavar="<parameter>",
            help="With --existing: forget a stored parameter value (repeatable)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would change, change nothing"
        )
        parser.add_argument(
            "--show-nested",
            action="store_true",
            help="With --dry-run: show the changes in nested stacks too",
        )
        parser.add_argument(
            "--converge",
            action="store_true",
            help="Check each resource against what the cloud really has, as it updates",
        )
        add_wait_arguments(parser)
        add_stack_argument(parser, help="Name or ID of the stack to update")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        if not parsed_args.template and not parsed_args.existing:
            raise InvalidInput("Give a template (-t), or --existing to keep the stored one")
        request = stack_request(parsed_args)
        request = dataclasses.replace(
            request,
            disable_rollback=_ROLLBACK[parsed_args.rollback],
            environment=add_hooks(None, parsed_args.pre_update, "pre-update"),
        )
        update = StackUpdate(
            request,
            existing=parsed_args.existing,
            clear_parameters=tuple(parsed_args.clear_parameter),
            converge=parsed_args.converge,
        )
        stack = self.stack(parsed_args.stack)
        if parsed_args.dry_run:
            changes = self.service.preview_update(
                self.context, stack, update, show_nested=parsed_args.show_nested
            )
            return _changes(changes, self.links)
        marker = self.newest_event(stack)
        self.service.update_stack(self.context, stack, update)
        self.follow(stack, marker, self.template_count(stack), parsed_args)
        return self.show(stack, outputs=parsed_args.wait)


def _changes(changes: ResourceChanges, where: Links) -> Row:
    """The resources an update would add, delete, replace, keep and update, as the API's
    ``resource_changes`` (what ``openstack stack update --dry-run`` shows)."""
    document = {
        kind: formatting.resources(getattr(changes, kind), where, detail=True)
        for kind in ("added", "deleted", "replaced", "unchanged", "updated")
    }
    return columns(document)


class DeleteStack(ServiceCommand, Command):
    """Delete stacks."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "-y", "--yes", action="store_true", help="Skip the confirmation question"
        )
        add_wait_arguments(parser)
        parser.add_argument("stacks", metavar="<stack>", nargs="+", help="Stacks to delete")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        if not parsed_args.yes and sys.stdin.isatty():
            answer = input("Are you sure you want to delete this stack(s) [y/N]? ")
            if answer.strip().lower() not in ("y", "yes"):
                return 0
        failed = 0
        for name in parsed_args.stacks:
            try:
                self._delete(name, parsed_args)
            except ThermikError as exc:
                sys.stderr.write(f"ERROR: {exc}\n")
                failed += 1
        if failed:
            sys.stderr.write(
                f"Unable to delete {failed} of the {len(parsed_args.stacks)} stacks.\n"
            )
        return 1 if failed else 0

    def _delete(self, name: str, args: argparse.Namespace) -> None:
        stack = self.stack(name)
        marker = self.newest_event(stack)
        total = self.resource_count(stack)
        self.service.delete_stack(self.context, stack)
        self.follow(stack, marker, total, args)


class ListStack(ServiceCommand, Lister):
    """List stacks."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--deleted", action="store_true", help="Include deleted stacks")
        parser.add_argument("--nested", action="store_true", help="Include nested stacks")
        parser.add_argument("--hidden", action="store_true", help="Include hidden stacks")
        parser.add_argument(
            "--property",
            action="append",
            default=[],
            metavar="<key=value>",
            help="Filter (id, name, status, action, ...); repeatable",
        )
        parser.add_argument("--tags", metavar="<tag1,tag2...>", help="Only stacks with tags")
        parser.add_argument(
            "--tag-mode",
            choices=("any", "not", "not-any"),
            help="How --tags match: any of them, not all, not any (default: all)",
        )
        parser.add_argument("--limit", type=int, metavar="<limit>", help="At most this many")
        parser.add_argument("--marker", metavar="<id>", help="Start after this stack")
        parser.add_argument(
            "--sort", metavar="<key>[:<direction>]", help="Sort by a key, asc or desc"
        )
        parser.add_argument(
            "--all-projects", action="store_true", help="Include the stacks of every project"
        )
        parser.add_argument("--short", action="store_true", help="List fewer columns")
        parser.add_argument(
            "--long",
            action="store_true",
            help="Show the owner too (implied by --all-projects)",
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        query = list_query(parsed_args)
        page = self.service.list_stacks(self.context, query)
        where = self.links
        documents = [stack_document(view, where) for view in page.items]
        return rows(documents, list_columns(parsed_args, documents), titled=True)


def list_columns(args: argparse.Namespace, documents: list[dict[str, Any]]) -> tuple[str, ...]:
    """The columns ``openstack stack list`` shows for these options and stacks."""
    names = list(LIST_COLUMNS[:3] if args.short else LIST_COLUMNS)
    if args.long:
        names.insert(2, "stack_owner")
    if args.nested:
        names.append("parent")
    if args.deleted:
        names.append("deletion_time")
    if any("project" in document for document in documents):
        names.insert(2, "project")
    return tuple(names)


def list_query(args: argparse.Namespace) -> ListQuery:
    """The stack listing the options ask for."""
    filters = parse_filters(args.property)
    tags = tuple(t for t in (args.tags or "").split(",") if t)
    mode = args.tag_mode or "all"
    sort_keys: tuple[str, ...] = ()
    sort_dir = None
    if args.sort:
        key, _, direction = args.sort.partition(":")
        sort_keys = (key,)
        sort_dir = SortDir.ASC if direction == "asc" else SortDir.DESC if direction else None
    return ListQuery(
        filters=filters,
        sort_keys=sort_keys,
        sort_dir=sort_dir,
        marker=args.marker,
        limit=args.limit,
        tags=tags if mode == "all" else (),
        tags_any=tags if mode == "any" else (),
        not_tags=tags if mode == "not" else (),
        not_tags_any=tags if mode == "not-any" else (),
        show_deleted=args.deleted,
        show_nested=args.nested,
        show_hidden=args.hidden,
        global_tenant=args.all_projects or args.long,
    )


class ShowStack(ServiceCommand, ShowOne):
    """Show a stack, with its outputs resolved."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "--no-resolve-outputs", action="store_true", help="Do not resolve the outputs"
        )
        add_stack_argument(parser, help="Name or ID of the stack to show")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        view = self.service.show_stack(
            self.context, stack, resolve_outputs=not parsed_args.no_resolve_outputs
        )
        return stack_columns(view, self.links)
