"""``thermik orchestration ...``: what the engine offers, as ``openstack orchestration ...``.

Resource types, template versions and their functions, the build revision and the engine
processes, with the option names and columns of python-heatclient's commands.
"""

from __future__ import annotations

import argparse

from cliff.lister import Lister
from cliff.show import ShowOne

import thermik
from thermik.api.responses import isotime
from thermik.cmd.render import Row, cell, columns
from thermik.cmd.session import ServiceCommand
from thermik.cmd.stack_inputs import parse_filters
from thermik.errors import InvalidInput

TEMPLATE_TYPES = ("hot", "cfn")


class ShowBuildInfo(ServiceCommand, ShowOne):
    """Show the API's and the engine's build revisions."""

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        info = {
            "api": {"revision": thermik.__version__},
            "engine": {"revision": self.service.engine_revision(self.context)},
        }
        return columns(info)


class ListService(ServiceCommand, Lister):
    """List the engine processes."""

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        found = tuple(
            (
                view.host,
                view.binary,
                view.engine_id,
                view.host,
                view.topic,
                isotime(view.updated_at),
                view.status,
            )
            for view in self.service.list_services(self.context)
        )
        headers = ("Hostname", "Binary", "Engine ID", "Host", "Topic", "Updated At", "Status")
        return headers, found


class ListResourceType(ServiceCommand, Lister):
    """List resource types."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "--filter",
            action="append",
            default=[],
            metavar="<key=value>",
            help="Filter by name (a regular expression), version or support_status (repeatable)",
        )
        parser.add_argument(
            "--long", action="store_true", help="Show each type's description as well"
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        filters = {key: values[-1] for key, values in parse_filters(parsed_args.filter).items()}
        unknown = sorted(set(filters) - {"name", "version", "support_status"})
        if unknown:
            raise InvalidInput(
                f"Unknown filter {unknown[0]!r}: use name, version or support_status"
            )
        views = self.service.list_resource_types(
            self.context,
            name=filters.get("name"),
            version=filters.get("version"),
            support_status=filters.get("support_status"),
        )
        if parsed_args.long:
            long_rows = tuple(sorted((view.name, cell(view.description)) for view in views))
            return ("Resource Type", "Description"), long_rows
        return ("Resource Type",), tuple(sorted((view.name,) for view in views))


class ShowResourceType(ServiceCommand, ShowOne):
    """Show a resource type's schema, or a template wrapping it (--template-type)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "resource_type", metavar="<resource-type>", help="Resource type to show"
        )
        parser.add_argument(
            "--template-type", metavar="<template-type>", help="Template to generate: hot or cfn"
        )
        parser.add_argument(
            "--long", action="store_true", help="Show the type's description as well"
        )
        return parser

    @property
    def formatter_default(self) -> str:
        return "yaml"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        kind = parsed_args.template_type
        if kind is not None and parsed_args.long:
            raise InvalidInput("Cannot use --template-type and --long in one time.")
        if kind is not None:
            if kind.lower() not in TEMPLATE_TYPES:
                raise InvalidInput(f"Template type invalid: {kind}")
            document = self.service.resource_type_template(
                self.context, parsed_args.resource_type, kind.lower()
            )
        else:
            shown = self.service.show_resource_type(
                self.context, parsed_args.resource_type, with_description=parsed_args.long
            )
            document = dict(shown)
        return tuple(document), tuple(document.values())


class ListTemplateVersion(ServiceCommand, Lister):
    """List the template versions."""

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        found = tuple(
            (view.version, view.type, ",".join(view.aliases))
            for view in self.service.list_template_versions(self.context)
        )
        return ("Version", "Type", "Aliases"), found


class ListTemplateFunction(ServiceCommand, Lister):
    """List the functions a template version offers."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "template_version",
            metavar="<template-version>",
            help="Template version to list the functions of",
        )
        parser.add_argument(
            "--with_conditions",
            action="store_true",
            help="Show the condition functions as well",
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        views = self.service.list_template_functions(
            self.context,
            parsed_args.template_version,
            with_condition_func=parsed_args.with_conditions,
        )
        found = tuple((view.name, cell(view.description)) for view in views)
        return ("Functions", "Description"), found
