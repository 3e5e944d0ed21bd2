"""``thermik template show``: a stack's template, as ``openstack stack template show``."""

from __future__ import annotations

import argparse

from cliff.show import ShowOne

from thermik.cmd.render import Row
from thermik.cmd.session import ServiceCommand, add_stack_argument


class ShowTemplate(ServiceCommand, ShowOne):
    """Show the template of a stack (YAML unless -f says otherwise)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_stack_argument(parser)
        return parser

    @property
    def formatter_default(self) -> str:
        return "yaml"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        stack = self.stack(parsed_args.stack)
        template = self.service.stack_template(self.context, stack)
        return tuple(template), tuple(template.values())
