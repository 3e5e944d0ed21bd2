"""The template, environment and parameter options of stack commands, as a StackRequest.

Files are read the way python-heatclient reads them (:mod:`thermik.cmd.template_files`):
``get_file`` and template types relative to the template, registry entries relative to each
environment file; every environment file goes into the files map under its URL and is named in
``environment_files``, so the service merges them in order exactly as Heat's API does.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from thermik.api.boundary import StackRequest
from thermik.cmd.template_files import FileGatherer, parse_parameters, to_url
from thermik.errors import EnvironmentError_, InvalidInput, TemplateError


def add_input_arguments(parser: argparse.ArgumentParser, *, template_required: bool) -> None:
    """``-t``, ``-e``, ``--parameter``, ``--parameter-file``, ``--timeout``, ``--tags``."""
    parser.add_argument(
        "-t",
        "--template",
        required=template_required,
        metavar="<template>",
        help="Path to the template",
    )
    parser.add_argument(
        "-e",
        "--environment",
        action="append",
        default=[],
        metavar="<environment>",
        help="Path to an environment (repeatable; later files win)",
    )
    parser.add_argument(
        "--parameter",
        action="append",
        default=[],
        metavar="<key=value>",
        help="Parameter value (repeatable, or several separated by ';')",
    )
    parser.add_argument(
        "--parameter-file",
        action="append",
        default=[],
        metavar="<key=file>",
        help="Parameter whose value is the content of a file (repeatable)",
    )
    parser.add_argument("--timeout", type=int, metavar="<timeout>", help="Timeout in minutes")
    parser.add_argument("--tags", metavar="<tag1,tag2...>", help="Comma-separated stack tags")


def add_wait_arguments(parser: argparse.ArgumentParser) -> None:
    """``--wait`` (and ``--poll``, accepted for compatibility)."""
    parser.add_argument(
        "--wait",
        action="store_true",
        help="Wait, showing events and progress, until the operation finishes",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=0.2,
        metavar="SECONDS",
        help="Seconds between looks at the stored events while waiting (default 0.2)",
    )


def parse_filters(pairs: list[str]) -> dict[str, tuple[str, ...]]:
    """``--filter key=value`` options; a key given twice accepts either value."""
    found: dict[str, tuple[str, ...]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InvalidInput(f"Malformed filter({pair}). Use the key=value format.")
        found[key] = (*found.get(key, ()), value)
    return found


def parameter_files(pairs: list[str]) -> dict[str, str]:
    """``--parameter-file key=path``: each value is the file's text."""
    found = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep:
            raise EnvironmentError_(f"Malformed parameter-file({pair}). Use the key=file format.")
        try:
            found[name] = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TemplateError(f"cannot read parameter file {path}: {exc}") from None
    return found


def stack_request(args: argparse.Namespace, *, name: str | None = None) -> StackRequest:
    """The request the options describe (no template when none was given)."""
    gatherer = FileGatherer()
    template: dict[str, Any] | None = None
    if args.template:
        template = gatherer.template(args.template)
    names = []
    environments = {}
    for path in args.environment:
        document = gatherer.environment(path)
        url = to_url(path)
        names.append(url)
        environments[url] = json.dumps(document)
    parameters = parse_parameters(args.parameter) if args.parameter else {}
    parameters.update(parameter_files(args.parameter_file))
    tags = getattr(args, "tags", None)
    return StackRequest(
        name=name,
        template=template,
        parameters=parameters,
        files={**gatherer.files, **environments},
        environment_files=tuple(names),
        timeout_mins=args.timeout,
        tags=tuple(t.strip() for t in tags.split(",") if t.strip()) if tags else None,
    )
