"""The ``thermik`` command: run templates locally on the embedded default.

Sub-commands are cliff commands registered under the entry point group ``thermik.cli``, so
each family (template, stack, resource, event, ...) lives in its own module.
"""

from __future__ import annotations

import sys
from typing import Any

from cliff.app import App
from cliff.commandmanager import CommandManager

import thermik


class ThermikApp(App):
    """cliff application; maps Thermik's errors to one clear line and exit status 1."""

    def __init__(self) -> None:
        super().__init__(
            description="Thermik: run OpenStack Heat templates with an actor engine.",
            version=thermik.__version__,
            command_manager=CommandManager("thermik.cli"),
            deferred_help=True,
        )

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
        return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``thermik`` console script."""
    return int(ThermikApp().run(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
