"""``thermik demo``: validate the demo template shipped with Thermik and show its graph.

(For now; running the demo stack on the embedded engine comes with the engine.)
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources

from cliff.command import Command

from thermik.cmd.template import report
from thermik.errors import ThermikError
from thermik.template import Identity, StackDefinition, Template, build_stack

DEMO_PACKAGE = "thermik.demo"
DEMO_TEMPLATE = "demo.yaml"


def demo_text() -> str:
    """The demo template's text."""
    return resources.files(DEMO_PACKAGE).joinpath(DEMO_TEMPLATE).read_text(encoding="utf-8")


def describe(stack: StackDefinition) -> str:
    """The stack's resources in creation order with what each requires."""
    lines = [f"Template: {DEMO_TEMPLATE} ({stack.template.version.label})", "Resources:"]
    requires = stack.dependencies()
    for name in stack.creation_order():
        deps = ", ".join(sorted(requires[name])) or "-"
        lines.append(f"  {name} ({stack.resources[name].type}) <- {deps}")
    lines.append("Outputs: " + ", ".join(stack.outputs))
    return "\n".join(lines) + "\n"


class Demo(Command):
    """Validate the bundled demo template and print its dependency graph."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--name", default="demo", help="Stack name")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        try:
            template = Template.load(demo_text())
            stack = build_stack(template, None, {}, Identity(stack_name=parsed_args.name))
        except ThermikError as exc:
            return report(exc)
        sys.stdout.write(describe(stack))
        return 0
