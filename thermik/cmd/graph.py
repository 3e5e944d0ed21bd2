"""``thermik stack graph``: a stack's dependency graph as Graphviz DOT, or SVG (with ``dot``).

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

from thermik.api.boundary import ResourceQuery, ResourceView, StackIdentity
from thermik.cmd.session import ServiceCommand, add_stack_argument
from thermik.errors import InvalidInput
from thermik.template import Environment, Identity, StackDefinition, Template, build_stack

_COLOURS = {"COMPLETE": "palegreen", "FAILED": "salmon", "IN_PROGRESS": "lightblue"}


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def to_dot(name: str, definition: StackDefinition, states: Mapping[str, ResourceView]) -> str:
    """The DOT text of ``definition``'s graph, with the stored states."""
    lines = [f"digraph {_quote(name)} {{", "  rankdir=LR;", "  node [shape=box, style=filled];"]
    for resource in definition.creation_order():
        view = states.get(resource)
        state = f"{view.action}_{view.status}" if view else "not created"
        colour = _COLOURS.get(view.status, "white") if view else "white"
        label = f"{resource}\n{definition.resources[resource].type}\n{state}"
        lines.append(f"  {_quote(resource)} [label={_quote(label)}, fillcolor={colour}];")
    for resource, needs in sorted(definition.dependencies().items()):
        for needed in sorted(needs):
            lines.append(f"  {_quote(needed)} -> {_quote(resource)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


#: Said when SVG was asked for and Graphviz is missing.
NO_DOT = (
    "Writing SVG needs Graphviz's dot command, which is not on PATH: install Graphviz "
    "(e.g. apt install graphviz), or write DOT with --format dot"
)


def to_svg(dot_text: str) -> str:
    """Render DOT text to SVG with Graphviz's ``dot``."""
    dot = shutil.which("dot")
    if dot is None:
        raise InvalidInput(NO_DOT)
    done = subprocess.run(
        [dot, "-Tsvg"], input=dot_text, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise InvalidInput(f"dot could not render the graph: {done.stderr.strip()}")
    return done.stdout


def _write(target: str, text: str) -> None:
    if target == "-":
        sys.stdout.write(text)
        return
    try:
        Path(target).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot write {target}: {exc}") from None
    sys.stdout.write(f"{target}\n")


class GraphStack(ServiceCommand, Command):
    """Write a stack's dependency graph as DOT (and SVG beside it with Graphviz), or as SVG."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "-o",
            "--output",
            metavar="<file>",
            help="File to write, - for stdout (default: <stack>.dot, or <stack>.svg)",
        )
        parser.add_argument(
            "--format",
            choices=("dot", "svg"),
            help="dot, or svg (needs Graphviz). Default: svg for an --output ending in .svg, "
            "else DOT plus an SVG beside it when Graphviz is installed",
        )
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        output = parsed_args.output
        chosen = parsed_args.format or ("svg" if (output or "").endswith(".svg") else "dot")
        if chosen == "svg" and shutil.which("dot") is None:
            raise InvalidInput(NO_DOT)
        stack = self.stack(parsed_args.stack)
        text = to_dot(stack.name, self._definition(stack), self._states(stack))
        if chosen == "svg":
            _write(output or f"{stack.name}.svg", to_svg(text))
            return 0
        target = output or f"{stack.name}.dot"
        _write(target, text)
        if parsed_args.format is None and target != "-":
            self._svg_beside(Path(target), text)
        return 0

    @staticmethod
    def _svg_beside(target: Path, text: str) -> None:
        """The SVG next to a DOT file, when Graphviz is installed (a note when it is not)."""
        if shutil.which("dot") is None:
            sys.stderr.write("Note: no SVG written, Graphviz's dot command is not on PATH.\n")
            return
        svg = target.with_suffix(".svg")
        _write(str(svg), to_svg(text))

    def _definition(self, stack: StackIdentity) -> StackDefinition:
        ctx = self.context
        template = Template.from_document(
            self.service.stack_template(ctx, stack), self.service.stack_files(ctx, stack)
        )
        environment = Environment.from_dict(self.service.stack_environment(ctx, stack))
        identity = Identity(stack_name=stack.name, stack_id=stack.id, project_id=ctx.tenant)
        return build_stack(template, environment, None, identity, strict=False)

    def _states(self, stack: StackIdentity) -> dict[str, ResourceView]:
        views = self.service.list_resources(self.context, stack, ResourceQuery())
        return {view.name: view for view in views}
