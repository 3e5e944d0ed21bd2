"""Time parsing, validating and graphing generated templates of 100, 1,000 and 5,000 resources.

Prints, per size, the median of several runs for each phase (parse = YAML text to a checked
Template; validate = build_stack with parameters, conditions, functions, references and
types; graph = dependencies and creation order), the total per resource, and the peak memory
of one full run (tracemalloc). Target: <= 0.2 ms per resource.

    .venv/bin/python bench/template_bench.py [--sizes 100 1000 5000] [--runs 5]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import yaml

from thermik.template import Identity, StackDefinition, Template, build_stack

HEADER = """\
heat_template_version: 2021-04-16
parameters:
  prefix: {type: string, default: web}
  size: {type: number, default: 3, constraints: [{range: {min: 1, max: 10}}]}
  tags: {type: comma_delimited_list, default: "a,b,c"}
conditions:
  big: {equals: [{get_param: size}, 3]}
resources:
"""


def resource(i: int) -> dict[str, Any]:
    """A resource referring to up to three earlier ones, with a typical mix of functions."""
    name = {"str_replace": {"template": f"$p-{i}", "params": {"$p": {"get_param": "prefix"}}}}
    props: dict[str, Any] = {
        "name": name,
        "tags": {"list_join": [",", {"get_param": "tags"}, [f"r{i}"]]},
        "size": {"if": ["big", {"get_param": "size"}, 1]},
    }
    body: dict[str, Any] = {"type": "OS::Heat::TestResource", "properties": props}
    if i >= 1:
        props["parent"] = {"get_resource": f"r{i - 1}"}
    if i >= 10:
        props["value"] = {"get_attr": [f"r{i - 10}", "output"]}
    if i >= 100 and i % 7 == 0:
        body["depends_on"] = [f"r{i - 100}"]
    return body


def generate_text(count: int) -> str:
    """YAML text of a template with ``count`` resources."""
    resources = {f"r{i}": resource(i) for i in range(count)}
    return HEADER + "".join(
        f"  {name}: {yaml.safe_dump(body, default_flow_style=True, width=10**6).strip()}\n"
        for name, body in resources.items()
    )


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def one_run(text: str) -> tuple[float, float, float]:
    parse, template = timed(lambda: Template.load(text, max_size=len(text) + 1))
    validate, stack = timed(lambda: build_stack(template, None, {}, Identity("bench", "1")))
    graph, _ = timed(lambda: graph_phase(stack))
    return parse, validate, graph


def graph_phase(stack: StackDefinition) -> list[str]:
    stack._requires = None  # measure the graph from scratch (build already checked it once)
    stack.dependencies()
    return stack.creation_order()


def peak_memory(text: str) -> int:
    gc.collect()
    tracemalloc.start()
    template = Template.load(text, max_size=len(text) + 1)
    stack = build_stack(template, None, {}, Identity("bench", "1"))
    graph_phase(stack)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'resources':>9} {'KiB':>7} {'parse ms':>9} {'validate ms':>12} {'graph ms':>9}"
          f" {'total ms':>9} {'ms/res':>7} {'peak MiB':>9}")  # fmt: skip
    for size in args.sizes:
        text = generate_text(size)
        runs = [one_run(text) for _ in range(args.runs)]
        parse, validate, graph = (statistics.median(r[i] for r in runs) for i in range(3))
        total = parse + validate + graph
        peak = peak_memory(text)
        print(
            f"{size:>9} {len(text) / 1024:>7.0f} {parse * 1e3:>9.1f} {validate * 1e3:>12.1f}"
            f" {graph * 1e3:>9.1f} {total * 1e3:>9.1f} {total * 1e3 / size:>7.3f}"
            f" {peak / 2**20:>9.1f}"
        )


if __name__ == "__main__":
    main()
