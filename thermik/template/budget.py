"""How much one evaluation of a template's functions may build, and what it has spent.

A template of a few hundred bytes can describe values of gigabytes: each ``list_join`` of a
list holding the one inside JSON-encodes it, so the escaped text doubles at every level;
``repeat`` multiplies its body by the product of its lists; ``str_replace`` multiplies a
value by the occurrences of its key. Every evaluation therefore runs under a
:class:`Budget` (a value the composition root derives from the configured limits) through a
:class:`Meter`:

* every value a function returns is at most ``max_value_size`` (estimated as JSON bytes by
  :func:`size_of`, which stops counting past the limit); functions that can build far more
  than they read bound the result *before* building it;
* functions nest at most ``max_depth`` calls deep;
* one evaluation (a resource's properties, an output, a whole validation) spends at most
  ``max_work`` units: the sizes of everything functions return, values looked up included,
  plus the scanning and iterating amplifying functions do.

Exceeding any of them is a :class:`~thermik.errors.TemplateTooLarge` naming the function at
its place in the template (``resources.web.properties.user_data.str_replace``).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from thermik.errors import TemplateTooLarge
from thermik.template.loader import DEFAULT_MAX_SIZE

if TYPE_CHECKING:
    from thermik.template.functions.base import Function

#: Deepest nesting of function calls by default (templates written by hand stay under 10).
DEFAULT_MAX_DEPTH = 32
#: How many times ``max_value_size`` one evaluation may spend by default.
WORK_PER_VALUE = 32


@dataclasses.dataclass(frozen=True, slots=True)
class Budget:
    """The limits of one evaluation of template functions.

    Attributes:
        max_value_size: largest value (about its JSON size in bytes) a function may return.
        max_depth: deepest nesting of function calls.
        max_work: units one evaluation may spend (bytes returned, characters scanned,
            items iterated).
    """

    max_value_size: int = DEFAULT_MAX_SIZE
    max_depth: int = DEFAULT_MAX_DEPTH
    max_work: int = WORK_PER_VALUE * DEFAULT_MAX_SIZE

    @classmethod
    def scaled(
        cls,
        max_value_size: int,
        *,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_work: int | None = None,
    ) -> Budget:
        """A budget whose work limit, unless given, follows ``max_value_size``."""
        work = WORK_PER_VALUE * max_value_size if max_work is None else max_work
        return cls(max_value_size, max_depth, work)


def size_of(value: Any, limit: int) -> int:
    """About how many bytes ``value`` takes as JSON, counted up to a little past ``limit``.

    Shared references count each time they appear (as they would once serialized), and the
    walk stops as soon as the count passes ``limit``: measuring never costs more than the
    limit, whatever the value pretends to hold.
    """
    total = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, Mapping):
            total += 2 + 2 * len(item)
            if total > limit:
                return total
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + len(item)
            if total > limit:
                return total
            pending.extend(item)
        elif isinstance(item, int):
            # Digits without formatting them (a huge int refuses str() anyway).
            total += 1 + item.bit_length() // 3
        else:
            total += 8
        if total > limit:
            return total
    return total


class Meter:
    """What one evaluation has spent of its :class:`Budget`; raises once it is exceeded."""

    __slots__ = ("budget", "depth", "max_depth", "max_value_size", "max_work", "spent")

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = Budget() if budget is None else budget
        # Copied out of the budget: read on every function call.
        self.max_depth = self.budget.max_depth
        self.max_value_size = self.budget.max_value_size
        self.max_work = self.budget.max_work
        #: Function calls currently being evaluated, one inside the other.
        self.depth = 0
        #: Units spent so far.
        self.spent = 0

    def enter(self, fn: Function) -> None:
        """``fn`` starts evaluating inside the calls already running."""
        if self.depth >= self.max_depth:
            raise _exceeded(
                fn,
                f"functions are nested more than {self.max_depth} deep (max_function_depth)",
            )
        self.depth += 1

    def leave(self) -> None:
        """The innermost call ended."""
        self.depth -= 1

    def charge(self, fn: Function, units: int) -> None:
        """Spend ``units`` of work on behalf of ``fn``."""
        self.spent += units
        if self.spent > self.max_work:
            raise _exceeded(
                fn,
                f"evaluating the template's functions takes more than {self.max_work} "
                "units of work (max_function_work)",
            )

    def bound(self, fn: Function, size: int) -> None:
        """Refuse a value of about ``size`` bytes that ``fn`` is about to build."""
        if size > self.max_value_size:
            raise _exceeded(
                fn,
                f"would produce a value larger than {self.max_value_size} bytes "
                "(max_function_value_size)",
            )

    def measure(self, value: Any) -> int:
        """The size of ``value``, counted up to just past the value limit."""
        if type(value) is str:
            return len(value) + 2
        return size_of(value, self.max_value_size)

    def returned(self, fn: Function, value: Any) -> None:
        """``fn`` returned ``value``: spend its size, and refuse it if ``fn`` built it and it
        is too large. A value that exists already (``fn.lookup``: a parameter, an attribute,
        a file) may have any size, but every use of it is spent."""
        if type(value) is str:
            size = len(value) + 2
        elif fn.lookup:
            size = size_of(value, self.max_work - self.spent)
        else:
            size = size_of(value, self.max_value_size)
        if size > self.max_value_size and not fn.lookup:
            self.bound(fn, size)
        self.charge(fn, size)


class Tally:
    """The size of a value ``fn`` is building, checked against the limit as it grows."""

    __slots__ = ("fn", "meter", "size")

    def __init__(self, meter: Meter, fn: Function) -> None:
        self.meter = meter
        self.fn = fn
        self.size = 0

    def check(self, more: int) -> None:
        """Refuse to grow by ``more`` if that passes the limit (before building it)."""
        self.meter.bound(self.fn, self.size + more)

    def add(self, units: int) -> None:
        """The value grew by ``units``."""
        self.size += units
        self.meter.bound(self.fn, self.size)


def brief(value: Any, limit: int = 200) -> str:
    """A short rendering of ``value`` for an error message, cheap whatever its size."""
    return _BRIEF.repr(value)[:limit]


_BRIEF = reprlib.Repr()
_BRIEF.maxstring = _BRIEF.maxother = 120
_BRIEF.maxlevel = 4


def _exceeded(fn: Function, message: str) -> TemplateTooLarge:
    return TemplateTooLarge(f'"{fn.name}" {message}', path=fn.path)
