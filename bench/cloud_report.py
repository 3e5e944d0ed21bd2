"""The measurements of bench/cloud_bench.py and their side-by-side table (medians of runs)."""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Sequence

HEAT = "Heat 27"
THERMIK = "Thermik"
DIRECT = "critical path"
COLUMNS = (HEAT, THERMIK, DIRECT)
#: The targets of issue 15.
TIME_TARGET = 1.10
REQUESTS_TARGET = 2.0
CPU_TARGET = 0.10


@dataclasses.dataclass
class Measure:
    """One create and delete of the stack of ``servers`` servers by ``engine``.

    Requests are by service type; ``own_*`` are what the engine sent itself (None: not
    known), ``served_*`` what the cloud's APIs served meanwhile (all clients).
    """

    engine: str
    servers: int
    status: str = ""
    reason: str = ""
    create_seconds: float = math.nan
    delete_seconds: float = math.nan
    span: float | None = None
    network_seconds: float | None = None
    cpu_create: float | None = None
    cpu_delete: float | None = None
    own_create: dict[str, int] | None = None
    own_delete: dict[str, int] | None = None
    served_create: dict[str, int] | None = None
    served_delete: dict[str, int] | None = None
    background: float = 0.0
    left: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status in ("COMPLETE", "CREATE_COMPLETE") and not self.left


def _median(values: Sequence[float | None]) -> float | None:
    found = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.median(found) if found else None


def _median_counts(values: Sequence[dict[str, int] | None]) -> dict[str, float] | None:
    found = [v for v in values if v is not None]
    if not found:
        return None
    keys = sorted({k for v in found for k in v})
    return {k: statistics.median([v.get(k, 0) for v in found]) for k in keys}


@dataclasses.dataclass
class Column:
    """The medians of one engine's successful runs of one size."""

    runs: int
    failed: list[str]
    numbers: dict[str, float | None]
    counts: dict[str, dict[str, float] | None]


NUMBERS = (
    "create_seconds",
    "delete_seconds",
    "span",
    "network_seconds",
    "cpu_create",
    "cpu_delete",
    "background",
)
COUNTS = ("own_create", "own_delete", "served_create", "served_delete")


def column(measures: Sequence[Measure]) -> Column:
    good = [m for m in measures if m.ok]
    failed = [f"{m.status} {m.reason} {' '.join(m.left)}".strip() for m in measures if not m.ok]
    return Column(
        len(good),
        failed,
        {name: _median([getattr(m, name) for m in good]) for name in NUMBERS},
        {name: _median_counts([getattr(m, name) for m in good]) for name in COUNTS},
    )


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _cpu(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _total(counts: dict[str, float] | None, resources: int) -> str:
    if counts is None:
        return "-"
    total = sum(counts.values())
    return f"{total:.0f} ({total / resources:.1f}/res)"


def _by_service(counts: dict[str, float] | None) -> str:
    if not counts:
        return "-"
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])
    return " ".join(f"{k[:4]} {v:.0f}" for k, v in ordered)


def _row(label: str, cells: Sequence[str]) -> str:
    return f"{label:<30}" + "".join(f"  {cell:>34}" for cell in cells)


def _table(columns: dict[str, Column], resources: int) -> list[str]:
    present = [columns.get(name) for name in COLUMNS]

    def line(label: str, show: Callable[[Column], str]) -> str:
        return _row(label, [show(c) if c is not None and c.runs else "" for c in present])

    lines = [_row("", COLUMNS), _row("runs ok", [_runs(c) for c in present])]
    lines += [
        line("create wall (s)", lambda c: _seconds(c.numbers["create_seconds"])),
        line("  first -> last event (s)", lambda c: _seconds(c.numbers["span"])),
        line("  network part (s)", lambda c: _seconds(c.numbers["network_seconds"])),
        line("delete wall (s)", lambda c: _seconds(c.numbers["delete_seconds"])),
        line("engine CPU create (s)", lambda c: _cpu(c.numbers["cpu_create"])),
        line("engine CPU delete (s)", lambda c: _cpu(c.numbers["cpu_delete"])),
        line("own requests, create", lambda c: _total(c.counts["own_create"], resources)),
        line("  by service", lambda c: _by_service(c.counts["own_create"])),
        line("own requests, delete", lambda c: _total(c.counts["own_delete"], resources)),
        line("  by service", lambda c: _by_service(c.counts["own_delete"])),
        line(
            "served by the cloud, create", lambda c: _total(c.counts["served_create"], resources)
        ),
        line("  by service", lambda c: _by_service(c.counts["served_create"])),
        line("served, delete", lambda c: _total(c.counts["served_delete"], resources)),
        line("  background (req/s)", lambda c: _cpu(c.numbers["background"])),
    ]
    return lines


def _runs(c: Column | None) -> str:
    if c is None:
        return "not run"
    if c.failed and not c.runs:
        return "n/a" if c.failed[0].startswith("n/a") else c.failed[0][:25]
    return f"{c.runs}" + (f" ({len(c.failed)} failed)" if c.failed else "")


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _ratios(columns: dict[str, Column], resources: int) -> list[str]:
    def num(engine: str, name: str) -> float | None:
        c = columns.get(engine)
        return c.numbers[name] if c is not None and c.runs else None

    def per_resource(engine: str) -> float | None:
        c = columns.get(engine)
        own = c.counts["own_create"] if c is not None and c.runs else None
        return None if own is None else sum(own.values()) / resources

    def show(value: float | None, fmt: str = ".2f") -> str:
        return "n/a" if value is None else format(value, fmt)

    direct = num(DIRECT, "create_seconds")
    thermik_time = _ratio(num(THERMIK, "create_seconds"), direct)
    cpu = _ratio(num(THERMIK, "cpu_create"), num(HEAT, "cpu_create"))
    thermik_requests = per_resource(THERMIK)
    heat_time = _ratio(num(HEAT, "create_seconds"), direct)
    return [
        f"create / critical path: Thermik {show(thermik_time)} (target <= {TIME_TARGET:.2f}"
        f"{_verdict(thermik_time, TIME_TARGET)}), Heat {show(heat_time)}",
        f"delete / critical path: Thermik "
        f"{show(_ratio(num(THERMIK, 'delete_seconds'), num(DIRECT, 'delete_seconds')))}, Heat "
        f"{show(_ratio(num(HEAT, 'delete_seconds'), num(DIRECT, 'delete_seconds')))}",
        f"own requests per resource on create: Thermik {show(thermik_requests, '.1f')} (target <="
        f" {REQUESTS_TARGET:.0f}{_verdict(thermik_requests, REQUESTS_TARGET)}), Heat"
        f" {show(per_resource(HEAT), '.1f')}, critical path {show(per_resource(DIRECT), '.1f')}",
        f"engine CPU on create, Thermik / Heat: {show(cpu, '.3f')} (target <= {CPU_TARGET:.2f}"
        f"{_verdict(cpu, CPU_TARGET)})",
    ]


def _verdict(value: float | None, target: float) -> str:
    if value is None:
        return ""
    return ": met" if value <= target else ": MISSED"


def report(measures: Sequence[Measure], resource_count: Callable[[int], int]) -> None:
    """Print a table per size, and the ratios against the targets."""
    for servers in sorted({m.servers for m in measures}):
        resources = resource_count(servers)
        mine = [m for m in measures if m.servers == servers]
        columns = {
            name: column([m for m in mine if m.engine == name])
            for name in COLUMNS
            if any(m.engine == name for m in mine)
        }
        print(
            f"\nN = {servers} servers ({resources} resources); medians of the runs that succeeded"
        )
        for line in _table(columns, resources) + _ratios(columns, resources):
            print(line)
        for name, c in columns.items():
            for failure in c.failed:
                print(
                    f"{name}: {failure}"
                    if failure.startswith("n/a")
                    else f"{name} failed: {failure}"
                )
