"""Time one policy check per API request: the rules in code, and with a policy.yaml override.

Prints the median cost of ``Policy.authorize`` over ``--calls`` checks, for a noauth member
(``stacks:show``: one role check and one project match) and a keystone admin
(``stacks:global_index``: the rule reference to ``context_is_admin``), each median of
``--runs`` runs. Every v1 request makes one such check (a global list or a PATCH, two).

    .venv/bin/python bench/policy_bench.py [--calls 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from oslo_config import cfg

from thermik.api.policy import Credentials, Policy, noauth_credentials
from thermik.conf import opts, policies

ADMIN = Credentials(
    values={"project_id": "ops", "roles": ["admin", "member", "reader"], "is_admin_project": True},
    project_id="ops",
)


def with_file(directory: Path) -> Policy:
    """The Policy of a thermik.conf with a policy.yaml beside it."""
    (directory / "policy.yaml").write_text('"stacks:create": "!"\n', encoding="utf-8")
    conf_file = directory / "thermik.conf"
    conf_file.write_text("", encoding="utf-8")
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    conf(args=[], default_config_files=[str(conf_file)], default_config_dirs=[])
    return Policy(policies.build_enforcer(conf))


def per_check_us(policy: Policy, rule: str, credentials: Credentials, calls: int) -> float:
    """Microseconds per check."""
    policy.authorize(rule, credentials)
    start = time.perf_counter()
    for _ in range(calls):
        policy.authorize(rule, credentials)
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    member = noauth_credentials("tenant", "user")
    with tempfile.TemporaryDirectory() as tmp:
        cases = {"rules in code": Policy(), "with policy.yaml": with_file(Path(tmp))}
        for label, policy in cases.items():
            for rule, who, credentials in (
                ("stacks:show", "member", member),
                ("stacks:global_index", "admin", ADMIN),
            ):
                runs = [
                    per_check_us(policy, rule, credentials, args.calls) for _ in range(args.runs)
                ]
                print(f"{label:17} {rule:20} {who:7} {statistics.median(runs):7.1f} us/check")


if __name__ == "__main__":
    main()
