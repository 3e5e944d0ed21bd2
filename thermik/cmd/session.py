"""What every engine-backed ``thermik`` command shares: the service, the caller, errors.

:class:`ServiceCommand` is mixed into cliff's ``Command``/``Lister``/``ShowOne``: it hands the
command the application's orchestration service and request context, and turns any
:class:`~thermik.errors.ThermikError` (or configuration error) into one ``ERROR:`` line on
stderr and exit status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast

from oslo_config import cfg

from thermik.api.boundary import (
    OrchestrationService,
    RequestContext,
    ResourceQuery,
    StackIdentity,
    StackView,
)
from thermik.api.links import Links
from thermik.cmd.helptext import PlainHelp
from thermik.cmd.progress import OperationFailed, Watch, newest_event
from thermik.cmd.template import report
from thermik.errors import ConfigError, NotRemote, ThermikError

if TYPE_CHECKING:
    from thermik.cmd.cli import ThermikApp


class CommandService(OrchestrationService, Protocol):
    """What commands call: the local engine's service (:class:`thermik.orchestration.
    Orchestrator`) or a remote one's (:class:`thermik.remote.RemoteOrchestrator`)."""

    def close(self) -> None:
        """Release the service (an engine running in this process stops)."""


#: Said when a command starts an operation and does not wait for it, the engine running in
#: the command (``[engine] local_daemon = false``).
DETACHED = (
    "Note: the engine runs inside this thermik command and stops with it; stack {name} goes "
    "on when a later thermik command starts the engine (--wait follows it to the end).\n"
)


class ServiceCommand(PlainHelp):
    """Base of commands that use the engine; put it before ``Lister``/``ShowOne``."""

    #: Whether the command works against a remote service (``--os-endpoint``/``--remote``).
    remote_ok: ClassVar[bool] = True

    @property
    def thermik(self) -> ThermikApp:
        """The ``thermik`` application running this command."""
        return cast("ThermikApp", self.app)

    def run(self, parsed_args: argparse.Namespace) -> int:
        try:
            if not self.remote_ok and self.thermik.is_remote():
                raise NotRemote(
                    f"thermik {self.cmd_name} acts on this machine's own engine and state: it "
                    "is not available against a remote service (--os-endpoint/--remote)"
                )
            result = super().run(parsed_args)
        except ThermikError as exc:
            return report(exc)
        except cfg.Error as exc:
            return report(ConfigError(str(exc)))
        except OperationFailed as exc:
            sys.stderr.write(f"ERROR: {exc}\n")
            return 1
        return result

    @property
    def service(self) -> CommandService:
        """The orchestration service (the engine starts with the first use)."""
        return self.thermik.service()

    @property
    def links(self) -> Links:
        """Where the objects shown are served (the ``links`` of what commands show)."""
        return self.thermik.links(self.context.tenant)

    @property
    def context(self) -> RequestContext:
        """The local caller: the ``--project`` tenant and the login name."""
        project = self.thermik.options.project
        return RequestContext(tenant=project, user=login_name(), is_admin=True)

    def stack(self, name_or_id: str) -> StackIdentity:
        """The stack a name or id names (deleted stacks by id only, as in Heat)."""
        return self.service.identify_stack(self.context, name_or_id)

    def newest_event(self, stack: StackIdentity) -> str | None:
        """Where waiting for the next operation on ``stack`` starts."""
        return newest_event(self.service, self.context, stack)

    def resource_count(self, stack: StackIdentity) -> int:
        """How many resources the stack has now."""
        return len(self.service.list_resources(self.context, stack, ResourceQuery()))

    def template_count(self, stack: StackIdentity) -> int:
        """How many resources the stack's template declares."""
        return template_size(self.service.stack_template(self.context, stack))

    def follow(
        self,
        stack: StackIdentity,
        marker: str | None,
        total: int,
        args: argparse.Namespace,
        *,
        rollback_succeeds: bool = False,
    ) -> None:
        """With ``--wait``, follow the operation to its end; without, say how it goes on.

        A wait that ends rolled back fails (exit status 1) unless ``rollback_succeeds``.
        """
        if args.wait:
            self.wait(stack, marker, total, args, rollback_succeeds=rollback_succeeds)
        elif not self.thermik.engine_goes_on():
            sys.stderr.write(DETACHED.format(name=stack.name))

    def wait(
        self,
        stack: StackIdentity,
        marker: str | None,
        total: int,
        args: argparse.Namespace,
        *,
        rollback_succeeds: bool = False,
    ) -> StackView:
        """Follow the operation just started on ``stack`` until it settles."""
        watch = Watch(
            self.service,
            self.context,
            stack,
            total,
            marker,
            poll=args.poll,
            rollback_succeeds=rollback_succeeds,
            engine_goes_on=self.thermik.engine_goes_on(),
        )
        return watch.run()


def login_name() -> str | None:
    """The name of the user at the terminal (None when the system cannot tell)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


def add_stack_argument(parser: argparse.ArgumentParser, **kwargs: Any) -> None:
    """The positional stack name-or-id argument."""
    kwargs.setdefault("help", "Name or ID of the stack")
    parser.add_argument("stack", metavar="<stack>", **kwargs)


def template_size(template: Mapping[str, Any]) -> int:
    """How many resources a template declares (the progress bar's total)."""
    section = template.get("resources", template.get("Resources"))
    return len(section) if isinstance(section, Mapping) else 0
