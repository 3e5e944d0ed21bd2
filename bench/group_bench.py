"""Time ``OS::Heat::ResourceGroup`` stacks end to end through the orchestration service.

For each size N: create a stack holding a group of N ``OS::Heat::TestResource`` members whose
``refs`` and member attribute list are stack outputs, read the outputs, scale the group to
N + N/2 members, then delete the stack, on the embedded default (SQLite file, engine
in-process). Prints seconds per phase and milliseconds per member.

    .venv/bin/python bench/group_bench.py [--sizes 50,200,600]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from thermik.api.boundary import RequestContext, StackIdentity, StackRequest, StackUpdate
from thermik.conf.settings import Settings
from thermik.orchestration import Orchestrator
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.service import build_orchestration_service

CTX = RequestContext(tenant="bench", user="bench")
WAIT = 3600.0


def template(count: int) -> dict[str, Any]:
    """A group of ``count`` TestResources whose refs and values are outputs."""
    member = {"type": "OS::Heat::TestResource", "properties": {"value": "m-%index%"}}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {"count": count, "resource_def": member},
            }
        },
        "outputs": {
            "refs": {"value": {"get_attr": ["group", "refs"]}},
            "values": {"value": {"get_attr": ["group", "output"]}},
        },
    }


def settled(service: Orchestrator, stack: StackIdentity, expected: str) -> None:
    service.runtime.wait(stack.id, WAIT)
    view = service.show_stack(CTX, stack, resolve_outputs=False)
    if (view.action, view.status) != (expected, "COMPLETE"):
        raise SystemExit(f"{expected} ended {view.action}_{view.status}: {view.status_reason}")


def run(service: Orchestrator, size: int) -> dict[str, float]:
    """Seconds per phase for one group of ``size`` members."""
    times: dict[str, float] = {}
    start = time.perf_counter()
    stack = service.create_stack(CTX, StackRequest(name=f"g{size}", template=template(size)))
    settled(service, stack, "CREATE")
    times["create"] = time.perf_counter() - start
    start = time.perf_counter()
    outputs = {o.key: o.value for o in service.show_stack(CTX, stack).outputs or ()}
    times["outputs"] = time.perf_counter() - start
    values = outputs["values"]
    if not isinstance(values, list) or len(values) != size:
        raise SystemExit(f"the group's output list is {values!r}")
    start = time.perf_counter()
    bigger = StackRequest(name=f"g{size}", template=template(size + size // 2))
    service.update_stack(CTX, stack, StackUpdate(bigger))
    settled(service, stack, "UPDATE")
    times["scale"] = time.perf_counter() - start
    start = time.perf_counter()
    service.delete_stack(CTX, stack)
    settled(service, stack, "DELETE")
    times["delete"] = time.perf_counter() - start
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,200,600")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.embedded(Path(tmp))
        db = Database(settings.database)
        migration.upgrade(db)
        db.dispose()
        service = build_orchestration_service(settings)
        try:
            print(
                f"{'N':>6} {'create s':>9} {'ms/member':>9} {'outputs s':>9} "
                f"{'scale s':>8} {'delete s':>8}"
            )
            for size in (int(s) for s in args.sizes.split(",")):
                t = run(service, size)
                print(
                    f"{size:>6} {t['create']:>9.2f} {1000 * t['create'] / size:>9.2f} "
                    f"{t['outputs']:>9.3f} {t['scale']:>8.2f} {t['delete']:>8.2f}",
                    flush=True,
                )
        finally:
            service.close()


if __name__ == "__main__":
    main()
