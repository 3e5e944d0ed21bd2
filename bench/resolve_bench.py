"""Time resolving resource properties: the template layer's hot path at run time.

Each resource of a generated stack has the properties a typical template gives a server:
``get_param``, ``get_resource``, ``get_attr`` (with a path), ``str_replace`` of a script and a
``list_join``. Prints the CPU time of one resource's resolution (the fastest and the median of
``--runs`` rounds over every resource: the machine may be shared), and the time to refuse the
1 KB nested ``list_join`` of issue 14 (or how far it got, under a 1 GiB address-space cap, on
code without the function budget).

    .venv/bin/python bench/resolve_bench.py [--resources 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.errors import ThermikError
from thermik.template import Template, build_stack, select_path

ATTRIBUTES: dict[str, Any] = {"first_address": "10.0.0.1", "networks": {"private": ["10.0.0.1"]}}
SCRIPT = "#!/bin/sh\necho $name > /etc/hostname\nsystemctl restart $service\n" * 20


class Context:
    """Runtime data as the engine would hand it over: ids and attributes of every resource."""

    def reference_id(self, name: str) -> str | None:
        return f"id-{name}"

    def attribute(self, name: str, attr: str, path: Sequence[str | int]) -> Any:
        return select_path(ATTRIBUTES[attr], path)

    def all_attributes(self, name: str) -> Mapping[str, Any]:
        return {}

    def facade(self, key: str) -> Any:
        return None

    def availability_zones(self) -> list[str]:
        return ["nova"]


def properties(index: int) -> dict[str, Any]:
    previous = f"r{index - 1}" if index else "base"
    return {
        "name": {"get_param": "name"},
        "image": {"get_param": "image"},
        "port": {"get_resource": previous},
        "address": {"get_attr": [previous, "networks", "private", 0]},
        "user_data": {
            "str_replace": {
                "template": SCRIPT,
                "params": {"$name": {"get_param": "name"}, "$service": "nginx"},
            }
        },
        "tags": {
            "list_join": [
                ",",
                ["web", {"get_param": "name"}, {"get_attr": [previous, "first_address"]}],
            ]
        },
    }


def stack(count: int) -> Any:
    resources = {"base": {"type": "OS::Heat::None"}}
    for index in range(count):
        resources[f"r{index}"] = {"type": "OS::Heat::None", "properties": properties(index)}
    document = {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "name": {"type": "string", "default": "web"},
            "image": {"type": "string", "default": "cirros"},
        },
        "resources": resources,
    }
    return build_stack(Template.from_document(document))


def bomb_seconds() -> str:
    value: Any = "x"
    for _ in range(30):
        value = {"list_join": ["", [[value]]]}
    document = {
        "heat_template_version": "2018-08-31",
        "resources": {"foo": {"type": "OS::Heat::None", "properties": {"bar": value}}},
    }
    definition = build_stack(Template.from_document(document))
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.RLIM_INFINITY))
    started = time.perf_counter()
    try:
        definition.resolve_properties("foo")
        outcome = "resolved"
    except ThermikError as exc:
        outcome = f"refused ({type(exc).__name__})"
    except MemoryError:
        outcome = "MemoryError at the 1 GiB cap"
    return f"{outcome} in {time.perf_counter() - started:.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    definition = stack(args.resources)
    ctx = Context()
    names = [f"r{index}" for index in range(args.resources)]
    rounds = []
    for _ in range(args.runs):
        started = time.process_time()
        for name in names:
            definition.resolve_properties(name, ctx)
        rounds.append((time.process_time() - started) / len(names))
    print(
        f"resolve_properties: {min(rounds) * 1e6:.1f} us CPU per resource (fastest of "
        f"{args.runs} rounds of {args.resources}; median {statistics.median(rounds) * 1e6:.1f})"
    )
    print(f"nested list_join bomb (1 KB, 30 deep): {bomb_seconds()}")


if __name__ == "__main__":
    main()
