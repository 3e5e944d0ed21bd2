"""``thermik stack hook poll|clear``, and the ``--pre-create``/``--pre-update`` options of
``stack create``/``stack update``, as ``openstack stack`` has them.

A hook is named by a resource path: ``my_resource``, or ``nested/another/my_resource`` for a
resource of a nested stack, each part a name or an fnmatch pattern (``nested/an*/*_server``).
Polling reads the events, as the openstack client does: a resource waits at a hook when the
current operation recorded "<ACTION> paused until Hook <hook> is cleared" for it and no "Hook
<hook> is cleared" after that. Clearing sends the resource the signal ``{"unset_hook": hook}``.
"""

from __future__ import annotations

import argparse
import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from cliff.command import Command
from cliff.lister import Lister

from thermik.api import formatting
from thermik.api.boundary import EventQuery, EventView, ResourceQuery, SortDir, StackIdentity
from thermik.api.responses import isotime
from thermik.cmd.render import Row
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.engine.operations import hook_cleared_reason, paused_reason
from thermik.errors import InvalidBreakPointHook, InvalidInput

#: ``openstack stack hook poll`` columns.
POLL_COLUMNS = (
    "Resource Name",
    "ID",
    "Resource Status Reason",
    "Resource Status",
    "Event Time",
)
#: The hooks ``stack hook clear`` clears, by option.
CLEARABLE = ("pre-create", "pre-update", "pre-delete")


def path_of(declaration: str) -> list[str]:
    """The parts of a hook's resource path (empty parts are dropped, as openstack does)."""
    parts = [part for part in declaration.split("/") if part]
    if not parts:
        raise InvalidInput(f"{declaration!r} names no resource")
    return parts


def add_hooks(
    environment: Mapping[str, Any] | None, declarations: Sequence[str], hook: str
) -> dict[str, Any] | None:
    """``environment`` with ``hook`` set on each resource path of ``declarations`` in its
    ``resource_registry`` (what ``openstack stack create --pre-create`` sends)."""
    if not declarations:
        return dict(environment) if environment is not None else None
    document: dict[str, Any] = dict(environment or {})
    registry = dict(document.get("resource_registry") or {})
    resources = dict(registry.get("resources") or {})
    for declaration in declarations:
        level = resources
        for part in path_of(declaration):
            level[part] = dict(level.get(part) or {})
            level = level[part]
        level["hooks"] = hook
    registry["resources"] = resources
    document["resource_registry"] = registry
    return document


def add_hook_option(parser: argparse.ArgumentParser, hook: str) -> None:
    """The ``--pre-create``/``--pre-update`` option of ``stack create``/``stack update``."""
    parser.add_argument(
        f"--{hook}",
        dest=hook.replace("-", "_"),
        action="append",
        default=[],
        metavar="<resource>",
        help=f"Set a {hook} hook on a resource (repeatable); a resource of a nested stack as "
        "nested_stack/another/my_resource; each part may be an fnmatch pattern",
    )


def hook_of_status(action: str, status: str) -> str:
    """The hook an operation in progress stops at, as the openstack client infers it."""
    if status != "IN_PROGRESS":
        raise InvalidInput(f"Stack status {action}_{status} not IN_PROGRESS")
    if action not in ("CREATE", "UPDATE", "DELETE"):
        raise InvalidInput(
            f"Unexpected stack status {action}_{status}, only create, update and delete supported"
        )
    return f"pre-{action.lower()}"


def pending(events: Sequence[EventView], stack: StackIdentity, hook: str) -> list[EventView]:
    """The events of resources still waiting at ``hook`` in the current operation."""
    action = hook.split("-", 1)[1].upper()
    started = f"Stack {action} started"
    begin = 0
    for index, event in enumerate(events):
        if event.status_reason == started and event.stack.id == stack.id:
            begin = index
    waiting: dict[tuple[str, str], EventView] = {}
    for event in events[begin:]:
        key = (event.stack.id, event.resource_name)
        if event.status_reason == paused_reason(hook):
            waiting[key] = event
        elif event.status_reason == hook_cleared_reason(hook):
            waiting.pop(key, None)
    return list(waiting.values())


class PollHook(ServiceCommand, Lister):
    """List the resources of a stack that wait at a hook."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "--nested-depth",
            type=int,
            default=0,
            metavar="<nested-depth>",
            help="Depth of nested stacks to look for hooks in",
        )
        add_stack_argument(parser, help="Stack to display (name or ID)")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        view = self.service.show_stack(self.context, stack)
        hook = hook_of_status(view.action, view.status)
        query = EventQuery(sort_dir=SortDir.ASC, nested_depth=parsed_args.nested_depth)
        events = self.service.list_events(self.context, stack, query)
        found = tuple(
            (
                e.resource_name,
                e.id,
                e.status_reason,
                formatting.status_text(e.action, e.status),
                isotime(e.event_time),
            )
            for e in pending(events, stack, hook)
        )
        return POLL_COLUMNS, found


class ClearHook(ServiceCommand, Command):
    """Clear the hooks resources of a stack wait at."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        for hook in CLEARABLE:
            parser.add_argument(
                f"--{hook}",
                dest="hook",
                action="store_const",
                const=hook,
                help=f"Clear the {hook} hooks (default: the hook of the operation running)",
            )
        add_stack_argument(parser)
        parser.add_argument(
            "resources",
            metavar="<resource>",
            nargs="+",
            help="Resource names with hooks to clear; nested_stack/another/my_resource for "
            "a resource of a nested stack; each part may be an fnmatch pattern",
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        stack = self.stack(parsed_args.stack)
        hook = parsed_args.hook
        if hook is None:
            view = self.service.show_stack(self.context, stack)
            hook = hook_of_status(view.action, view.status)
        for declaration in parsed_args.resources:
            parts = path_of(declaration)
            for where, name, named in self._matches(stack, parts[:-1], parts[-1]):
                self._clear(where, name, hook, explicit=named)
        return 0

    def _matches(
        self, stack: StackIdentity, stacks: Sequence[str], pattern: str
    ) -> Iterator[tuple[StackIdentity, str, bool]]:
        """(stack, resource, named without a wildcard) for each resource the path matches."""
        views = self.service.list_resources(self.context, stack, ResourceQuery())
        if stacks:
            for view in views:
                if view.nested_stack is not None and fnmatch.fnmatchcase(view.name, stacks[0]):
                    yield from self._matches(view.nested_stack, stacks[1:], pattern)
            return
        if not _has_wildcard(pattern):
            yield stack, pattern, True
            return
        for view in views:
            if fnmatch.fnmatchcase(view.name, pattern):
                yield stack, view.name, False

    def _clear(self, stack: StackIdentity, name: str, hook: str, *, explicit: bool) -> None:
        try:
            self.service.signal_resource(self.context, stack, name, {"unset_hook": hook})
        except InvalidBreakPointHook:
            # A pattern also matches resources that wait at nothing: only a resource named
            # outright must be waiting.
            if explicit:
                raise


def _has_wildcard(pattern: str) -> bool:
    return any(char in pattern for char in "*?[")
