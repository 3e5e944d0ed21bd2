"""Throughput of resource property validation (runs for every resource on every traversal).

Usage: .venv/bin/python bench/resources_validation_bench.py [SECONDS_PER_CASE]
Prints validations per second and microseconds per validation for typical property sets.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from thermik.resources import Registry


def cases(registry: Registry) -> dict[str, Callable[[], Any]]:
    random_string = registry.get("OS::Heat::RandomString")
    deployment = registry.get("OS::Heat::SoftwareDeployment")
    config = registry.get("OS::Heat::SoftwareConfig")
    group = registry.get("OS::Heat::ResourceGroup")
    inputs = [{"name": f"in{i}", "type": "String", "default": "x"} for i in range(20)]
    return {
        "RandomString, defaults": lambda: random_string.check_properties({}),
        "RandomString, 3 classes + 2 sequences": lambda: random_string.check_properties(
            {
                "length": "24",
                "character_classes": [{"class": "digits", "min": 2}, {"class": "lowercase"}, {}],
                "character_sequences": [{"sequence": "!@#", "min": 1}, {"sequence": "xyz"}],
            }
        ),
        "SoftwareDeployment, 10 input values": lambda: deployment.check_properties(
            {"server": "abc", "config": "cfg", "input_values": {f"k{i}": i for i in range(10)}}
        ),
        "SoftwareConfig, 20 inputs": lambda: config.check_properties(
            {"config": "#!/bin/sh\necho hi", "inputs": inputs}
        ),
        "ResourceGroup": lambda: group.check_properties(
            {"count": 50, "resource_def": {"type": "OS::Heat::None", "properties": {"a": 1}}}
        ),
    }


def measure(run: Callable[[], Any], seconds: float) -> tuple[int, float]:
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            run()
        count += 100
    return count, time.perf_counter() - start


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    registry = Registry.from_entry_points()
    print(f"{'case':42} {'per second':>12} {'us each':>9}")
    for name, run in cases(registry).items():
        count, elapsed = measure(run, seconds)
        print(f"{name:42} {count / elapsed:12,.0f} {elapsed / count * 1e6:9.1f}")


if __name__ == "__main__":
    main()
