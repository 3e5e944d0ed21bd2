"""``thermik stack graph``: a stack's dependency graph as Graphviz DOT, or SVG, PNG or PDF
rendered by Graphviz's ``dot``, the format named by ``--format`` or by the output's suffix.

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


#: The formats, by the suffix of the file they are written to (DOT is text; Graphviz's ``dot``
#: renders the others).
SUFFIXES = {".dot": "dot", ".gv": "dot", ".svg": "svg", ".png": "png", ".pdf": "pdf"}
FORMATS = ("dot", "svg", "png", "pdf")


def no_dot(fmt: str) -> str:
    """Said when ``fmt`` was asked for and Graphviz is missing."""
    return (
        f"Writing {fmt.upper()} needs Graphviz's dot command, which is not on PATH: install "
        "Graphviz (e.g. apt install graphviz), or write DOT with --format dot"
    )


def output_format(output: str | None, chosen: str | None) -> str:
    """The format to write: ``--format``, else the one the ``--output`` suffix names (DOT for
    stdout and for no --output). An unknown suffix, or one naming another format than
    ``--format``, is refused."""
    if output is None or output == "-":
        return chosen or "dot"
    suffix = Path(output).suffix.lower()
    inferred = SUFFIXES.get(suffix)
    if chosen is not None and (inferred is None or inferred == chosen):
        return chosen
    if inferred is None:
        named = f"suffix {suffix!r}" if suffix else "no suffix"
        raise InvalidInput(
            f"--output {output}: {named} names no graph format; use "
            f"{', '.join(SUFFIXES)} ({', '.join(FORMATS)}), or give --format"
        )
    if chosen is not None:
        raise InvalidInput(
            f"--output {output}: the suffix {suffix!r} is {inferred}, not the --format {chosen}"
        )
    return inferred


def render(dot_text: str, fmt: str) -> bytes:
    """Render DOT text as ``fmt`` (svg, png, pdf) with Graphviz's ``dot``."""
    dot = shutil.which("dot")
    if dot is None:
        raise InvalidInput(no_dot(fmt))
    done = subprocess.run(
        [dot, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, check=False
    )
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip()
        raise InvalidInput(f"dot could not render the graph: {reason}")
    return done.stdout


def _write(target: str, data: bytes) -> None:
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        Path(target).write_bytes(data)
    except OSError as exc:
        raise InvalidInput(f"cannot write {target}: {exc}") from None
    sys.stdout.write(f"{target}\n")


class GraphStack(ServiceCommand, Command):
    """Write a stack's dependency graph as DOT (and SVG beside it with Graphviz), or as SVG, PNG
    or PDF (with Graphviz), as ``--format`` or the ``--output`` suffix says."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "-o",
            "--output",
            metavar="<file>",
            help="File to write, - for stdout (default: <stack>.dot); its suffix chooses the "
            "format: .dot or .gv, .svg, .png, .pdf",
        )
        parser.add_argument(
            "--format",
            choices=FORMATS,
            help="dot, or svg, png, pdf (need Graphviz). Default: the --output suffix's; "
            "without --output, DOT plus an SVG beside it when Graphviz is installed",
        )
        add_stack_argument(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        output = parsed_args.output
        chosen = output_format(output, parsed_args.format)
        if chosen != "dot" and shutil.which("dot") is None:
            raise InvalidInput(no_dot(chosen))
        stack = self.stack(parsed_args.stack)
        text = to_dot(stack.name, self._definition(stack), self._states(stack))
        if chosen != "dot":
            _write(output or f"{stack.name}.{chosen}", render(text, chosen))
            return 0
        target = output or f"{stack.name}.dot"
        _write(target, text.encode("utf-8"))
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
        _write(str(svg), render(text, "svg"))

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
