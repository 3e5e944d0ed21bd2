"""Help for a terminal: the docstrings that document commands, shown without reStructuredText.

The command classes and service modules keep their docstrings in reStructuredText for the
source and the docs; ``--help`` prints them through :func:`plain`, which keeps the words and
drops the markup (a role's target, a literal's text, the paragraph that introduces a block).
"""

from __future__ import annotations

import argparse
import re

from cliff._argparse import SmartHelpFormatter
from cliff.command import Command

#: ``:class:`~a.b.C``` shows ``C``; ``:func:`a.b``` shows ``a.b``.
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``([^`]+)``")
_INTERPRETED = re.compile(r"`([^`]+)`_{0,2}")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_DIRECTIVE = re.compile(r"^\s*\.\. [a-z-]+::.*\n?", re.MULTILINE)
_BLOCK_INTRO = re.compile(r"(\S)::$", re.MULTILINE)


def _role_text(match: re.Match[str]) -> str:
    tilde, target = match.groups()
    return target.rsplit(".", 1)[-1] if tilde else target


def plain(text: str) -> str:
    """``text`` (reStructuredText) as plain text for a terminal."""
    text = _DIRECTIVE.sub("", text)
    text = _ROLE.sub(_role_text, text)
    text = _LITERAL.sub(r"\1", text)
    text = _INTERPRETED.sub(r"\1", text)
    text = _STRONG.sub(r"\1", text)
    return _BLOCK_INTRO.sub(r"\1:", text)


class PlainHelpFormatter(SmartHelpFormatter):
    """cliff's help layout, with descriptions, epilogs and option help as plain text."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return super()._fill_text(plain(text), width, indent)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return super()._split_lines(plain(text), width)


class PlainHelp(Command):
    """Base of every ``thermik`` command: its ``--help`` and one-line summary in plain text.

    Put it before ``Lister``/``ShowOne`` among the bases, so it wraps their parser.
    """

    def get_description(self) -> str:
        return plain(super().get_description())

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.formatter_class = PlainHelpFormatter
        return parser
