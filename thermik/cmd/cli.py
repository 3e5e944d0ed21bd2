"""The ``thermik`` command: run templates locally on the embedded default.

Sub-commands are cliff commands registered under the entry point group ``thermik.cli``, so
each family (template, stack, resource, event, ...) lives in its own module. Commands that
need the engine ask the application for the orchestration service: it is built on first use
from the configuration (``--config-file``, else SQLite under the user's state directory): a
client of the REST API of the state directory's engine daemon (:mod:`thermik.cmd.daemon`),
which goes on when the command ends; with ``[engine] local_daemon = false`` the engine runs in
this process and stops with the command. With
``--os-endpoint URL`` or ``--remote`` (:mod:`thermik.cmd.remote`) the service is a client of a
remote Thermik or Heat service (:class:`thermik.remote.RemoteOrchestrator`): nothing local is
opened or started.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cliff.app import App
from cliff.command import Command
from cliff.commandmanager import CommandManager

import thermik
from thermik.api.links import Links
from thermik.cmd.daemon import Launch
from thermik.cmd.remote import add_remote_options, remote_target
from thermik.conf import settings as config

if TYPE_CHECKING:
    from thermik.clients.heat_api import HeatApi, RemoteTarget
    from thermik.cmd.session import CommandService

#: Name of the console log handler (replaced when ``main`` runs again in one process).
_CONSOLE = "thermik-cli-console"
_LEVELS = {0: logging.ERROR, 1: logging.WARNING, 2: logging.INFO}
#: The help options, global wherever they are written.
HELP = ("-h", "--help")


class OneLineFormatter(logging.Formatter):
    """One line per record: an exception's type and message, never its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            message = f"{message}: {type(error).__name__}: {error}"
        return " ".join(message.split("\n", 1)[0].split()) if message else message


def with_cloud(
    settings: config.Settings, os_cloud: str | None, environ: Mapping[str, str]
) -> config.Settings:
    """``settings`` acting as cloud ``os_cloud`` (or the OS_* variables' cloud when
    ``OS_AUTH_URL`` is set); the configuration's ``cloud`` when neither is given."""
    cloud = os_cloud or (config.ENVIRONMENT_CLOUD if environ.get("OS_AUTH_URL") else None)
    if not cloud:
        return settings
    # openstacksdk reads OS_CLIENT_CONFIG_FILE only where it reads every OS_* variable; the
    # engine's clients do not (their cloud is named here), so it is passed on explicitly.
    config_file = settings.clients.cloud_config_file or environ.get("OS_CLIENT_CONFIG_FILE")
    clients = dataclasses.replace(settings.clients, cloud=cloud, cloud_config_file=config_file)
    return dataclasses.replace(settings, clients=clients)


def command_start(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """Where the command's name starts in ``argv`` (after the global options)."""
    takes_value = {
        option
        for action in parser._actions
        if action.nargs != 0
        for option in action.option_strings
    }
    index = 0
    while index < len(argv):
        word = argv[index]
        if not word.startswith("-"):
            return index
        index += 2 if word in takes_value else 1
    return index


def globals_first(
    parser: argparse.ArgumentParser,
    parse: Any,
    args: list[str] | None = None,
    namespace: Any = None,
) -> tuple[argparse.Namespace, list[str]]:
    """``parse`` (argparse's ``parse_known_args``) applied to the global options only."""
    words = list(sys.argv[1:] if args is None else args)
    start = command_start(parser, words)
    # cliff answers a command's --help itself (deferred help), so it stays global.
    helps = [word for word in words[start:] if word in HELP]
    options, unknown = parse([*words[:start], *helps], namespace)
    return options, [*unknown, *(word for word in words[start:] if word not in HELP)]


class ThermikApp(App):
    """cliff application; maps Thermik's errors to one clear line and exit status 1."""

    def __init__(self) -> None:
        super().__init__(
            description="Thermik: run OpenStack Heat templates with an actor engine.",
            version=thermik.__version__,
            command_manager=CommandManager("thermik.cli"),
            deferred_help=True,
        )
        self._service: CommandService | None = None
        self._settings: config.Settings | None = None
        #: The remote service's API client (``--os-endpoint``/``--remote``), once used.
        self._remote_api: HeatApi | None = None

    def build_option_parser(
        self, description: str | None, version: str | None, argparse_kwargs: Any = None
    ) -> Any:
        parser = super().build_option_parser(description, version, argparse_kwargs)
        parser.add_argument(
            "--config-file",
            dest="config_file",
            action="append",
            default=[],
            help="oslo.config file (repeatable). Without one, the embedded default is used.",
        )
        parser.add_argument(
            "--project",
            default="local",
            help="Project (tenant) the stacks belong to (default: local).",
        )
        parser.add_argument(
            "--os-cloud",
            dest="os_cloud",
            default=os.environ.get("OS_CLOUD"),
            metavar="NAME",
            help="Create the stacks' resources on this cloud of clouds.yaml, with its "
            "credentials (default: $OS_CLOUD; without it, the OS_* variables when "
            "OS_AUTH_URL is set, else no cloud). With --remote or --os-endpoint: the "
            "cloud whose Keystone authenticates the calls to the remote service.",
        )
        add_remote_options(parser)
        # Global options are read only before the command's name, so that a command's own
        # option of the same name (``software config create --config-file``) stays its own.
        parse = parser.parse_known_args
        parser.parse_known_args = functools.partial(globals_first, parser, parse)  # type: ignore[method-assign,assignment]
        return parser

    def configure_logging(self) -> None:
        """Warnings and errors on stderr (``-v`` for more); one handler however often run."""
        root = logging.getLogger()
        for handler in [h for h in root.handlers if h.get_name() == _CONSOLE]:
            root.removeHandler(handler)
        level = _LEVELS.get(self.options.verbose_level, logging.DEBUG)
        console = logging.StreamHandler(self.stderr)
        console.set_name(_CONSOLE)
        console.setLevel(level)
        debug = self.options.debug or self.options.verbose_level > 2
        formatter = logging.Formatter if debug else OneLineFormatter
        console.setFormatter(formatter(self.CONSOLE_MESSAGE_FORMAT))
        root.addHandler(console)
        root.setLevel(level)

    def settings(self) -> config.Settings:
        """The configuration this run uses (read once), with the cloud ``--os-cloud`` names."""
        if self._settings is None:
            settings = config.load([], config_files=self.options.config_file)
            self._settings = with_cloud(settings, self.options.os_cloud, os.environ)
        return self._settings

    def use_settings(self, settings: config.Settings) -> None:
        """Run with ``settings`` instead of the configuration (before the service starts)."""
        self._settings = settings

    def remote(self) -> RemoteTarget | None:
        """The remote service the options name (``--os-endpoint``/``--remote``), or None."""
        config_file = self.settings().clients.cloud_config_file
        return remote_target(self.options, os.environ, config_file)

    def is_remote(self) -> bool:
        """Whether the commands act on a remote service rather than the local engine."""
        return bool(self.options.os_endpoint or self.options.remote)

    def engine_goes_on(self) -> bool:
        """Whether the engine goes on with a stack when this command ends."""
        return self.is_remote() or self.settings().engine.local_daemon

    def links(self, project: str) -> Links:
        """Where the objects shown are served: the remote service's URLs, or where
        ``thermik-api`` would serve them."""
        if self.is_remote():
            self.service()
            assert self._remote_api is not None
            return Links(self._remote_api.root, self._remote_api.tenant)
        from thermik.cmd.render import links  # noqa: PLC0415 - the API's formatting is slow

        return links(self.settings().api, project)

    def service(self) -> CommandService:
        """The orchestration service (built once): a client of the remote service, of the
        state directory's engine daemon (started when none runs), or with ``[engine]
        local_daemon = false`` over an engine running in this process."""
        if self._service is None:
            settings = self.settings()
            target = self.remote()
            if target is not None:
                self._service = self._remote_service(target)
            elif settings.engine.local_daemon:
                self._service = self._daemon_service()
            else:
                from thermik.service import build_orchestration_service  # noqa: PLC0415 - slow

                self._service = build_orchestration_service(settings)
        return self._service

    def launch(self) -> Launch:
        """How this command starts the engine daemon: the same configuration and cloud."""
        settings = self.settings()
        return Launch(
            Path(settings.state_dir), tuple(self.options.config_file), settings.clients.cloud
        )

    def _remote_service(self, target: RemoteTarget) -> CommandService:
        from thermik.clients.heat_api import HeatApi  # noqa: PLC0415
        from thermik.remote import RemoteOrchestrator  # noqa: PLC0415

        self._remote_api = HeatApi.open(target)
        return RemoteOrchestrator(self._remote_api)

    def _daemon_service(self) -> CommandService:
        from thermik.cmd import daemon  # noqa: PLC0415
        from thermik.cmd.session import login_name  # noqa: PLC0415
        from thermik.remote import RemoteOrchestrator  # noqa: PLC0415

        api = daemon.api_for(self.launch(), self.options.project, login_name())
        return RemoteOrchestrator(api)

    def clean_up(self, cmd: Command, result: int, err: BaseException | None) -> None:
        """Release the service; an engine running in this process stops cleanly (what it
        recorded stays, a later command resumes it)."""
        service, self._service = self._service, None
        if service is not None:
            service.close()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``thermik`` console script."""
    return int(ThermikApp().run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
