"""``thermik demo``: create the demo stack with the engine in this process and show its outputs.

The demo runs on the embedded default in a state directory of its own (``demo`` under the
user's state directory, or ``--state-dir``), so that it never touches the user's stacks; only
``thermik --config-file F demo`` runs it on the database ``F`` configures. It follows the create
live (events and a progress bar) and prints the stack with its outputs. A previous demo stack of
the same name (in the demo's database) is deleted first, so the demo can run again.

With ``--agent COMMAND`` (what ``tools/demo.sh`` passes) it is the software deployment demo
(``thermik/demo/deployments.yaml``): a DeployedServer and three script deployments over the
builtin transport, with the real os-collect-config and heat-agents hooks as the server's agent
(:mod:`thermik.cmd.demo_agent`). Without it, ``thermik/demo/demo.yaml`` shows convergence with
types that need no agent.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from importlib import resources
from pathlib import Path

from cliff.show import ShowOne

from thermik.api.boundary import StackIdentity, StackRequest
from thermik.cmd.demo_agent import DemoAgent
from thermik.cmd.progress import OperationFailed
from thermik.cmd.render import Row
from thermik.cmd.session import template_size
from thermik.cmd.stack import StackCommand
from thermik.cmd.template_files import parse_parameters
from thermik.conf.settings import Settings, default_state_dir
from thermik.errors import StackNotFound
from thermik.template.loader import load_document

DEMO_PACKAGE = "thermik.demo"
DEMO_TEMPLATE = "demo.yaml"
DEPLOYMENT_TEMPLATE = "deployments.yaml"
#: The demo's own state directory, below the user's.
DEMO_STATE_DIR = "demo"
#: The deployment demo fails (instead of waiting for an hour) when its agent does not answer.
DEPLOYMENT_TIMEOUT_MINS = 5


def demo_text(name: str = DEMO_TEMPLATE) -> str:
    """A demo template's text."""
    return resources.files(DEMO_PACKAGE).joinpath(name).read_text(encoding="utf-8")


class Demo(StackCommand, ShowOne):
    """Create the demo stack on the embedded engine, with live progress, and show its outputs."""

    remote_ok = False

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = super().get_parser(prog_name)
        parser.add_argument("--name", default="demo", help="Stack name (default: demo)")
        parser.add_argument(
            "--state-dir",
            metavar="<dir>",
            help="Keep the demo's database here (default: demo/ below the user's state "
            "directory; with --config-file, the database it configures)",
        )
        parser.add_argument(
            "--parameter",
            action="append",
            default=[],
            metavar="<key=value>",
            help="Demo parameter (greeting, password_length, step_seconds); repeatable",
        )
        parser.add_argument(
            "--agent",
            metavar="<command>",
            help="Run the software deployment demo with this agent command (it gets the "
            "server's metadata URL as last argument), e.g. "
            "'tools/agent-run.sh --sandbox DIR --poll 2'",
        )
        parser.add_argument("--poll", type=float, default=0.2, help=argparse.SUPPRESS)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> Row:
        self._use_own_state(parsed_args.state_dir)
        self._remove_previous(parsed_args)
        agent = parsed_args.agent
        template = load_document(demo_text(DEPLOYMENT_TEMPLATE if agent else DEMO_TEMPLATE))
        request = StackRequest(
            name=parsed_args.name,
            template=template,
            parameters=parse_parameters(parsed_args.parameter) if parsed_args.parameter else {},
            timeout_mins=DEPLOYMENT_TIMEOUT_MINS if agent else None,
        )
        stack = self.service.create_stack(self.context, request)
        sys.stderr.write(f"Creating stack {stack.name} ({stack.id})\n")
        if agent:
            self._with_agent(agent, stack, template_size(template), parsed_args)
        else:
            self.wait(stack, None, template_size(template), parsed_args)
        return self.show(stack, outputs=True)

    def _use_own_state(self, state_dir: str | None) -> None:
        """Run on ``state_dir``, or the demo's own directory unless a config file says where;
        with the engine in this process either way (the demo and its agent end together, so
        it needs no daemon, nor the time one takes to start)."""
        if state_dir:
            settings = Settings.embedded(Path(state_dir))
        elif not self.thermik.options.config_file:
            settings = Settings.embedded(default_state_dir() / DEMO_STATE_DIR)
        else:
            settings = self.thermik.settings()
        engine = dataclasses.replace(settings.engine, local_daemon=False)
        self.thermik.use_settings(dataclasses.replace(settings, engine=engine))

    def _with_agent(
        self, command: str, stack: StackIdentity, total: int, parsed_args: argparse.Namespace
    ) -> None:
        log = Path(self.thermik.settings().state_dir) / "demo-agent.log"
        agent = DemoAgent(command, log, self.service, self.context, stack)
        sys.stderr.write(f"The server's agent (os-collect-config) logs to {log}\n")
        try:
            with agent.running():
                self.wait(stack, None, total, parsed_args)
        except OperationFailed:
            sys.stderr.write(f"See the agent's log: {log}\n")
            raise

    def _remove_previous(self, parsed_args: argparse.Namespace) -> None:
        try:
            stack = self.stack(parsed_args.name)
        except StackNotFound:
            return
        sys.stderr.write(f"Deleting the previous demo stack {stack.name} ({stack.id})\n")
        marker = self.newest_event(stack)
        total = self.resource_count(stack)
        self.service.delete_stack(self.context, stack)
        self.wait(stack, marker, total, parsed_args)
