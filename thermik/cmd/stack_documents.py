"""``thermik stack environment show|file list|export|failures list``, as ``openstack stack``.

What a stack was made from (its environment and files map), its export document, and the
resources that failed, recursing into failed nested stacks, with the output a failed software
deployment left (the openstack client's layout of ``stack failures list``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

from cliff.command import Command
from cliff.show import ShowOne

from thermik.api.boundary import ResourceQuery, ResourceView, StackIdentity
from thermik.cmd.render import Row
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.errors import InvalidInput, NotFound

#: The environment sections ``stack environment show`` shows, in its order.
ENVIRONMENT_SECTIONS = ("parameters", "resource_registry", "parameter_defaults")
#: Resource types whose failure shows the deployment's output.
DEPLOYMENT_TYPES = ("OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment")
#: Lines of a long reason or deployment log shown without --long.
TRUNCATE_LINES = 10


class ShowEnvironment(ServiceCommand, ShowOne):
    """Show the environment of a stack (YAML unless -f says otherwise)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser, help="Name or ID of the stack to query")
        return parser

    @property
    def formatter_default(self) -> str:
        return "yaml"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        environment = self.service.stack_environment(self.context, stack)
        names = tuple(name for name in ENVIRONMENT_SECTIONS if name in environment)
        return names, tuple(environment[name] for name in names)


class ListFile(ServiceCommand, ShowOne):
    """Show the files map of a stack (YAML unless -f says otherwise)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser, help="Name or ID of the stack to query")
        return parser

    @property
    def formatter_default(self) -> str:
        return "yaml"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        return ("files",), (dict(self.service.stack_files(self.context, stack)),)


class ExportStack(ServiceCommand, ShowOne):
    """Show (or save) the export data of a stack; the stack stays as it is."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser, help="Name or ID of the stack to export")
        parser.add_argument(
            "--output-file", metavar="<output-file>", help="File to write the export data to"
        )
        return parser

    @property
    def formatter_default(self) -> str:
        return "json"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        data = self.service.export_stack(self.context, stack)
        if parsed_args.output_file is not None:
            try:
                Path(parsed_args.output_file).write_text(
                    json.dumps(data, indent=2) + "\n", encoding="utf-8"
                )
            except OSError as exc:
                raise InvalidInput(f"cannot write {parsed_args.output_file}: {exc}") from None
            return (), ()
        return tuple(data), tuple(data.values())


class ListFailures(ServiceCommand, Command):
    """Show the failed resources of a stack, nested ones included, with deployment logs."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser, help="Stack to display (name or ID)")
        parser.add_argument(
            "--long", action="store_true", help="Show the whole reasons and deployment logs"
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        stack = self.stack(parsed_args.stack)
        shown = self.service.show_stack(self.context, stack)
        if shown.status != "FAILED":
            return 0
        for path, view in self._failed(stack, (stack.name,)):
            self.app.stdout.write(self._describe(path, view, long=parsed_args.long))
        return 0

    def _failed(
        self, stack: StackIdentity, path: tuple[str, ...]
    ) -> Iterator[tuple[str, ResourceView]]:
        """Failed resources; a failed nested stack stands for itself only when none of its
        own resources failed."""
        for view in self.service.list_resources(self.context, stack, ResourceQuery()):
            if view.status != "FAILED":
                continue
            inner: list[tuple[str, ResourceView]] = []
            if view.nested_stack is not None:
                inner = list(self._failed(view.nested_stack, (*path, view.name)))
            yield from inner or [(".".join((*path, view.name)), view)]

    def _describe(self, path: str, view: ResourceView, *, long: bool) -> str:
        lines = [
            f"{path}:",
            f"  resource_type: {view.type}",
            f"  physical_resource_id: {view.physical_resource_id or ''}",
            f"  status: {view.action}_{view.status}",
            "  status_reason: |",
            indented(view.status_reason, long=long, prefix="..."),
        ]
        if view.type in DEPLOYMENT_TYPES and view.physical_resource_id:
            lines += self._deployment_logs(view.physical_resource_id, long=long)
        return "\n".join(lines) + "\n"

    def _deployment_logs(self, deployment_id: str, *, long: bool) -> list[str]:
        try:
            deployment = self.service.show_software_deployment(self.context, deployment_id)
        except NotFound:
            return []
        lines = []
        for name in ("deploy_stdout", "deploy_stderr"):
            text = deployment.output_values.get(name)
            lines.append(f"  {name}: |")
            lines.append(
                indented(
                    "" if text is None else str(text),
                    long=long,
                    prefix="...",
                    suffix="(truncated, view all with --long)",
                )
            )
        return lines


def indented(text: str, *, long: bool, prefix: str, suffix: str | None = None) -> str:
    """``text`` indented by four spaces; without ``long``, its last lines only."""
    lines = text.splitlines()
    if not long and len(lines) > TRUNCATE_LINES:
        lines = [prefix, *lines[-TRUNCATE_LINES:], *([suffix] if suffix else [])]
    return "\n".join(f"    {line}" for line in lines)
