"""``thermik software config|deployment ...``, as ``openstack software config|deployment``.

Software configs and deployments through the orchestration service, with python-heatclient's
option names and columns. ``software deployment create`` derives a config from ``--config``
with the input values and the ``deploy_*`` inputs, as the openstack client does; the engine in
this command has no signal URL to hand out, so the only transport is ``NO_SIGNAL``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml
from cliff.command import Command
from cliff.lister import Lister
from cliff.show import ShowOne

from thermik.api import formatting
from thermik.api.boundary import DeploymentRequest, Json, SoftwareConfigRequest
from thermik.cmd.render import Row, cell, columns, rows
from thermik.cmd.session import ServiceCommand
from thermik.cmd.stack_documents import indented
from thermik.errors import InvalidInput, NotFound

CONFIG_COLUMNS = (
    "id",
    "name",
    "group",
    "config",
    "inputs",
    "outputs",
    "options",
    "creation_time",
)
DEPLOYMENT_COLUMNS = (
    "id",
    "server_id",
    "config_id",
    "creation_time",
    "updated_time",
    "status",
    "status_reason",
    "input_values",
    "action",
)
SIGNAL_TRANSPORTS = ("NO_SIGNAL",)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None


def _definition(path: str | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        found = yaml.safe_load(_read(path)) or {}
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(found, dict):
        raise InvalidInput(f"{path} must hold a mapping of inputs, outputs and options")
    return found


class CreateConfig(ServiceCommand, ShowOne):
    """Create a software config."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<config-name>", help="Name of the config")
        parser.add_argument(
            "--config-file", metavar="<config-file>", help="File holding the config itself"
        )
        parser.add_argument(
            "--definition-file",
            metavar="<destination-file>",
            help="YAML file with the config's inputs, outputs and options",
        )
        parser.add_argument(
            "--group",
            metavar="<group>",
            default="Heat::Ungrouped",
            help="Tool that applies the config (default: Heat::Ungrouped)",
        )
        return parser

    @property
    def formatter_default(self) -> str:
        return "json"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        definition = _definition(parsed_args.definition_file)
        request = SoftwareConfigRequest(
            name=parsed_args.name,
            group=parsed_args.group,
            config=_read(parsed_args.config_file) if parsed_args.config_file else "",
            inputs=tuple(definition.get("inputs") or ()),
            outputs=tuple(definition.get("outputs") or ()),
            options=definition.get("options") or {},
        )
        view = self.service.create_software_config(self.context, request)
        return columns(formatting.software_config(view))


class ListConfig(ServiceCommand, Lister):
    """List software configs."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--limit", metavar="<limit>", type=int, help="At most this many")
        parser.add_argument("--marker", metavar="<id>", help="Start after this config")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        views = self.service.list_software_configs(
            self.context, limit=parsed_args.limit, marker=parsed_args.marker
        )
        documents = (formatting.software_config(view, detail=False) for view in views)
        return rows(documents, ("id", "name", "group", "creation_time"))


class ShowConfig(ServiceCommand, ShowOne):
    """Show a software config (YAML unless -f says otherwise)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("config", metavar="<config>", help="ID of the config")
        parser.add_argument(
            "--config-only", action="store_true", help="Only print the config itself"
        )
        return parser

    @property
    def formatter_default(self) -> str:
        return "yaml"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        view = self.service.show_software_config(self.context, parsed_args.config)
        if parsed_args.config_only:
            sys.stdout.write(f"{view.config}\n")
            return (), ()
        document = formatting.software_config(view)
        names = tuple(name for name in CONFIG_COLUMNS if name in document)
        return names, tuple(document[name] for name in names)


class DeleteConfig(ServiceCommand, Command):
    """Delete software configs."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("config", metavar="<config>", nargs="+", help="IDs of the configs")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        return _delete_each(parsed_args.config, self.service.delete_software_config, self)


def _delete_each(ids: list[str], delete: Any, command: ServiceCommand) -> int:
    failed = 0
    for item in ids:
        try:
            delete(command.context, item)
        except NotFound as exc:
            sys.stderr.write(f"ERROR: {exc}\n")
            failed += 1
    if failed:
        raise InvalidInput(f"Unable to delete {failed} of the {len(ids)} given")
    return 0


class CreateDeployment(ServiceCommand, ShowOne):
    """Deploy a software config to a server (through a config derived from it)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<deployment-name>", help="Name of the deployment")
        parser.add_argument(
            "--input-value",
            metavar="<key=value>",
            action="append",
            default=[],
            help="Input value for the deployment (repeatable)",
        )
        parser.add_argument(
            "--action",
            metavar="<action>",
            default="UPDATE",
            help="Action of the deployment (default: UPDATE)",
        )
        parser.add_argument("--config", metavar="<config>", help="ID of the config to deploy")
        parser.add_argument(
            "--signal-transport",
            metavar="<signal-transport>",
            default="NO_SIGNAL",
            help="How the server signals back: only NO_SIGNAL here",
        )
        parser.add_argument(
            "--server", metavar="<server>", required=True, help="ID of the server to deploy to"
        )
        return parser

    @property
    def formatter_default(self) -> str:
        return "yaml"

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        if parsed_args.signal_transport not in SIGNAL_TRANSPORTS:
            raise InvalidInput(
                f"Signal transport {parsed_args.signal_transport} is not available from the "
                "thermik command: use NO_SIGNAL (or a stack's SoftwareDeployment resource)"
            )
        derived = self.service.create_software_config(self.context, self._derived(parsed_args))
        request = DeploymentRequest(
            config_id=derived.id,
            server_id=parsed_args.server,
            action=parsed_args.action,
            status="IN_PROGRESS",
        )
        view = self.service.create_software_deployment(self.context, request)
        document = formatting.software_deployment(view)
        return tuple(sorted(document)), tuple(document[name] for name in sorted(document))

    def _derived(self, args: argparse.Namespace) -> SoftwareConfigRequest:
        source = None
        if args.config:
            source = self.service.show_software_config(self.context, args.config)
        values: dict[str, Json] = dict(input_values(args.input_value))
        inputs = [
            {**item, "value": values.pop(str(item.get("name")), item.get("default"))}
            for item in (source.inputs if source is not None else ())
        ]
        inputs += [{"name": k, "type": "String", "value": v} for k, v in values.items()]
        inputs += [
            _deploy_input("deploy_server_id", "ID of the server being deployed to", args.server),
            _deploy_input("deploy_action", "Name of the current action deployed", args.action),
            _deploy_input(
                "deploy_signal_transport",
                "How the server should signal to heat with the deployment output values.",
                args.signal_transport,
            ),
        ]
        return SoftwareConfigRequest(
            name=args.name,
            group=source.group if source is not None else "Heat::Ungrouped",
            config=source.config if source is not None else "",
            inputs=tuple(inputs),
            outputs=tuple(source.outputs) if source is not None else (),
            options=dict(source.options) if source is not None else {},
        )


def _deploy_input(name: str, description: str, value: str) -> dict[str, Json]:
    return {"name": name, "description": description, "type": "String", "value": value}


def input_values(pairs: list[str]) -> dict[str, str]:
    """``--input-value key=value`` options."""
    found = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InvalidInput(f"Malformed input value ({pair}). Use the key=value format.")
        found[key] = value
    return found


class ListDeployment(ServiceCommand, Lister):
    """List software deployments."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--server", metavar="<server>", help="Only this server's deployments")
        parser.add_argument(
            "--long", action="store_true", help="Show the creation time and reason too"
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        views = self.service.list_software_deployments(self.context, server_id=parsed_args.server)
        names: tuple[str, ...] = ("id", "config_id", "server_id", "action", "status")
        if parsed_args.long:
            names = (*names, "creation_time", "status_reason")
        return rows((formatting.software_deployment(view) for view in views), names)


class ShowDeployment(ServiceCommand, ShowOne):
    """Show a software deployment."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("deployment", metavar="<deployment>", help="ID of the deployment")
        parser.add_argument("--long", action="store_true", help="Show the output values too")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        view = self.service.show_software_deployment(self.context, parsed_args.deployment)
        document = formatting.software_deployment(view)
        document.setdefault("updated_time", None)
        names = (*DEPLOYMENT_COLUMNS, *(("output_values",) if parsed_args.long else ()))
        return names, tuple(cell(document.get(name)) for name in names)


class DeleteDeployment(ServiceCommand, Command):
    """Delete software deployments."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument(
            "deployment", metavar="<deployment>", nargs="+", help="IDs of the deployments"
        )
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        return _delete_each(parsed_args.deployment, self.service.delete_software_deployment, self)


class ShowDeploymentMetadata(ServiceCommand, Command):
    """Show the deployment metadata a server is served (JSON)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("server", metavar="<server>", help="ID of the server")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        found = self.service.server_deployments_metadata(self.context, parsed_args.server)
        self.app.stdout.write(json.dumps(list(found), indent=2) + "\n")
        return 0


class ShowDeploymentOutput(ServiceCommand, Command):
    """Show one output of a software deployment, or all of them (--all)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("deployment", metavar="<deployment>", help="ID of the deployment")
        parser.add_argument("output", metavar="<output-name>", nargs="?", help="Output name")
        parser.add_argument("--all", action="store_true", help="Show every output")
        parser.add_argument("--long", action="store_true", help="Show whole deployment logs")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        if parsed_args.all == (parsed_args.output is not None):
            raise InvalidInput("Error: either <output-name> or --all argument is needed.")
        view = self.service.show_software_deployment(self.context, parsed_args.deployment)
        outputs = dict(view.output_values)
        names = list(outputs) if parsed_args.all else [parsed_args.output]
        if parsed_args.all and outputs:
            self.app.stdout.write("output_values:\n")
        for name in names if outputs else ():
            self.app.stdout.write(output_text(outputs, name, long=parsed_args.long))
        return 0


def output_text(outputs: dict[str, Any], name: str, *, long: bool) -> str:
    """One deployment output as the openstack client prints it (logs as indented blocks)."""
    if name in ("deploy_stdout", "deploy_stderr"):
        text = indented(
            str(outputs.get(name) or ""),
            long=long,
            prefix="...",
            suffix="(truncated, view all with --long)",
        )
        return f"  {name}: |\n{text}\n"
    return f"  {name}: {outputs.get(name)}\n"
