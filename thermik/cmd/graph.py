"""``thermik stack graph``: a stack's dependency graph as Graphviz DOT (and SVG with ``dot``).

Nodes are the resources of the stack's current template, labelled with their type and state
and coloured by status; an edge ``a -> b`` means ``b`` needs ``a`` (``a`` is created first).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from cliff.command import Command

from thermik.api.boundary import ResourceQuery, ResourceView
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.errors import InvalidInput
from thermik.template import Environment, Identity, StackDefinition, Template, build_stack

_COLOURS = {"COMPLETE": "palegreen", "FAILED": "salmon", "IN_PROGRESS": "lightblue"}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(name: str, definition: StackDefinition, states: Mapping[str, ResourceView]) -> str:
    """The DOT text of ``definition``'s graph, with the stored states."""
    lines = [f"digraph {_quote(name)} {{", "  rankdir=LR;", "  node [shape=box, style=filled];"]
    for resource in definition.creation_order():
        view = states.get(resource)
        state = f"{view.action}_{view.status}" if view else "not created"
        colour = _COLOURS.get(view.status, "white") if view else "white"
        label = f"{resource}\\n{definition.resources[resource].type}\\n{state}"
        lines.append(f"  {_quote(resource)} [label={_quote(label)}, fillcolor={colour}];")
    for resource, needs in sorted(definition.dependencies().items()):
        for needed in sorted(needs):
            lines.append(f"  {_quote(needed)} -> {_quote(resource)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_svg(dot_file: Path) -> Path | None:
    """Render ``dot_file`` to SVG beside it when Graphviz is installed."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    svg = dot_file.with_suffix(".svg")
    done = subprocess.run(
        [dot, "-Tsvg", "-o", str(svg), str(dot_file)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.stderr.write(f"WARNING: dot could not render {dot_file}: {done.stderr.strip()}\n")
        return None
    return svg


class GraphStack(ServiceCommand, Command):
    """Write a stack's dependency graph as DOT, and as SVG when Graphviz is installed."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "-o", "--output", metavar="<file>", help="DOT file to write (default: <stack>.dot)"
        )
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        stack = self.stack(parsed_args.stack)
        ctx = self.context
        template = Template.from_document(
            self.service.stack_template(ctx, stack), self.service.stack_files(ctx, stack)
        )
        environment = Environment.from_dict(self.service.stack_environment(ctx, stack))
        identity = Identity(stack_name=stack.name, stack_id=stack.id, project_id=ctx.tenant)
        definition = build_stack(template, environment, None, identity, strict=False)
        states = {
            view.name: view for view in self.service.list_resources(ctx, stack, ResourceQuery())
        }
        target = Path(parsed_args.output or f"{stack.name}.dot")
        try:
            target.write_text(to_dot(stack.name, definition, states), encoding="utf-8")
        except OSError as exc:
            raise InvalidInput(f"cannot write {target}: {exc}") from None
        sys.stdout.write(f"{target}\n")
        svg = render_svg(target)
        if svg is not None:
            sys.stdout.write(f"{svg}\n")
        return 0
