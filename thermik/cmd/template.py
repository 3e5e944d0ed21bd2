"""``thermik template validate``: check a template like ``openstack orchestration template
validate`` does; without a cloud, or with ``--os-cloud`` against that cloud's images, flavors,
networks... (its custom constraints)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

import yaml

from thermik.cmd.helptext import PlainHelp
from thermik.cmd.template_files import TemplateInput, gather, parse_parameters
from thermik.errors import ThermikError
from thermik.orchestration.service_check import service_check
from thermik.orchestration.validation import known_types, validate_resources
from thermik.resources.constraints import CustomValidator
from thermik.resources.registry import Registry
from thermik.template import Template, merge_environments
from thermik.template.context import Identity
from thermik.template.definitions import build_stack
from thermik.template.parameters import parameter_types
from thermik.template.spelling import misspelt_functions
from thermik.template.validate import VALIDATE_STACK_NAME, validate_template

if TYPE_CHECKING:
    from thermik.clients.access import StackCloud
    from thermik.cmd.cli import ThermikApp


def add_template_arguments(parser: argparse.ArgumentParser) -> None:
    """The template, environment and parameter options shared by template commands."""
    parser.add_argument("-t", "--template", required=True, metavar="FILE", help="Template file")
    parser.add_argument(
        "-e",
        "--environment",
        action="append",
        default=[],
        metavar="FILE",
        help="Environment file (repeatable; later files win)",
    )
    parser.add_argument(
        "--parameter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Parameter value (repeatable, or several separated by ';')",
    )


def load_input(args: argparse.Namespace) -> tuple[Template, Any]:
    """The template and the merged environment, as Heat would get them from the client."""
    found: TemplateInput = gather(args.template, args.environment)
    template = Template.from_document(found.template, found.files)
    environment = merge_environments(
        found.environments,
        user_params=parse_parameters(args.parameter) if args.parameter else {},
        parameter_types=parameter_types(template),
        names=found.environment_names,
    )
    return template, environment


def print_data(data: Any, fmt: str) -> None:
    """Print ``data`` as YAML (the default, like the openstack client) or JSON."""
    if fmt == "json":
        sys.stdout.write(json.dumps(data, indent=4, sort_keys=True, default=str) + "\n")
    else:
        sys.stdout.write(yaml.safe_dump(data, default_flow_style=False, sort_keys=True))


def warn_misspellings(template: Template | None) -> None:
    """Say on stderr which function each probably misspelt function name meant."""
    for found in misspelt_functions(template) if template is not None else ():
        sys.stderr.write(f"WARNING: {found}\n")


def template_or_none(args: argparse.Namespace) -> Template | None:
    """The template of ``--template``, or ``None`` when it cannot be read."""
    try:
        found: TemplateInput = gather(args.template, [])
        return Template.from_document(found.template, found.files)
    except ThermikError:
        return None


def report(error: ThermikError) -> int:
    """Print one line for a user error and return the exit status."""
    sys.stderr.write(f"ERROR: {error}\n")
    return 1


class ValidateTemplate(PlainHelp):
    """Validate a template and show its parameters (as Heat's validate API does)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        add_template_arguments(parser)
        parser.add_argument(
            "-f", "--format", choices=("yaml", "json"), default="yaml", help="Output format"
        )
        parser.add_argument(
            "--ignore-errors",
            default="",
            metavar="CODES",
            help="Heat error codes to ignore, comma-separated (99001: a resource type's "
            "service is not in the cloud's catalog)",
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        if getattr(self.app, "is_remote", bool)():
            return self._remote(parsed_args)
        try:
            template, environment = load_input(parsed_args)
            registry = Registry.from_entry_points()
            result = validate_template(template, environment, known_types=known_types(registry))
            stack = build_stack(
                template, environment, {}, Identity(stack_name=VALIDATE_STACK_NAME), strict=False
            )
            ignored = [code.strip() for code in parsed_args.ignore_errors.split(",") if code]
            with cloud_access(self.app) as cloud:
                validate_resources(
                    stack,
                    registry,
                    custom_constraints=None if cloud is None else constraint_validators(cloud),
                    services=service_check(None if cloud is None else cloud.offers, ignored),
                    lenient=True,
                )
        except ThermikError as exc:
            warn_misspellings(template_or_none(parsed_args))
            return report(exc)
        warn_misspellings(template)
        print_data(result, parsed_args.format)
        return 0

    def _remote(self, args: argparse.Namespace) -> int:
        """Validate with the remote service (``--os-endpoint``/``--remote``): what it says."""
        from thermik.api.boundary import RequestContext  # noqa: PLC0415
        from thermik.api.v1.validate import validation_document  # noqa: PLC0415
        from thermik.cmd.stack_inputs import stack_request  # noqa: PLC0415

        inputs = argparse.Namespace(**vars(args), parameter_file=[], timeout=None)
        try:
            request = stack_request(inputs)
            app = cast("ThermikApp", self.app)
            ctx = RequestContext(tenant=app.options.project)
            ignored = [code.strip() for code in args.ignore_errors.split(",") if code]
            view = app.service().validate_template(ctx, request, ignore_errors=ignored)
        except ThermikError as exc:
            return report(exc)
        print_data(validation_document(view), args.format)
        return 0


def constraint_validators(cloud: StackCloud) -> Mapping[str, CustomValidator]:
    """Validators that check custom constraints (images, flavors, networks ...) with
    ``cloud``'s look-ups, as Heat's validate does."""
    from thermik.clients.access import constraint_validators as validators  # noqa: PLC0415

    return validators(cloud)


@contextlib.contextmanager
def cloud_access(app: Any) -> Iterator[StackCloud | None]:
    """With ``--os-cloud`` (or the OS_* variables), that cloud's access, to check custom
    constraints and the catalog's services against it; else none."""
    clients = app.settings().clients if hasattr(app, "settings") else None
    if clients is None or not clients.cloud:
        yield None
        return
    from thermik.clients.access import StackCloud  # noqa: PLC0415
    from thermik.clients.pool import ClientPool, Credential  # noqa: PLC0415

    pool = ClientPool(clients)
    credential = Credential.from_cloud(clients.cloud, clients.cloud_config_file)
    try:
        yield StackCloud(pool, lambda: credential)
    finally:
        pool.close()
