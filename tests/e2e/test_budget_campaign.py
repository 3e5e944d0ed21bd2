"""A hypothesis campaign of amplifying templates against ``thermik-api`` in a subprocess.

Each example gives up to 12 resources and an output a value that nests ``list_join``,
``str_replace``, ``repeat``, ``map_replace``, ``list_concat``, ``str_split`` and ``yaql`` over
parameters, and sends the template to validate, preview and create (then shows the created
stack, which resolves its outputs).
Whatever the template, the server never answers 5xx, a refusal is a 400 naming a function,
and its peak resident memory (``VmHWM``) stays under 500 MiB. The server runs under an
address-space cap so that a regression cannot exhaust the machine.

Bounded for CI; more locally with ``THERMIK_BUDGET_EXAMPLES=500``.
"""

from __future__ import annotations

import collections
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.e2e.api_process import ApiProcess
from tests.e2e.test_function_budget import bomb, call
from tests.memory_cap import MIB, peak_rss

EXAMPLES = int(os.environ.get("THERMIK_BUDGET_EXAMPLES", "40"))
PEAK_LIMIT = 500 * MIB
#: The server's address space (thread stacks and arenas map far more than they use).
ADDRESS_SPACE = 3072 * MIB
FUNCTIONS = (
    "list_join", "str_replace", "repeat", "map_replace", "list_concat", "str_split", "yaql",
    "get_param",
)  # fmt: skip
PARAMETERS = {
    "word": {"type": "string", "default": "%k%" * 60},
    "words": {"type": "comma_delimited_list", "default": ",".join(["ab%k%cd" * 3] * 60)},
}
DOUBLING = [
    "let(a => [$.data.s, $.data.s]) -> let(b => [$a, $a]) -> let(c => [$b, $b]) -> [$c, $c]",
    "$.data.s + $.data.s + $.data.s + $.data.s",
    "$.data.s * 1000",
    "range(150).select(range(150))",
]
WORDS = st.sampled_from(["", "x", "%k%", "%k%%k%%k%%k%", "ab" * 20])
LEAVES = st.one_of(WORDS, st.just({"get_param": "word"}), st.just({"get_param": "words"}))


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    some = st.lists(inner, min_size=1, max_size=4)
    return st.one_of(
        st.builds(lambda x: {"list_join": ["", [[x]]]}, inner),
        st.builds(lambda d, xs: {"list_join": [d, xs]}, WORDS, some),
        st.builds(
            lambda t, v: {"str_replace": {"template": t, "params": {"%k%": v}}}, inner, inner
        ),
        st.builds(
            lambda t, vs: {"repeat": {"template": t, "for_each": {"%k%": vs}}},
            inner,
            st.one_of(some, st.just({"get_param": "words"})),
        ),
        st.builds(
            lambda t: {
                "repeat": {
                    "template": t,
                    "for_each": {"%k%": {"get_param": "words"}, "ab": {"get_param": "words"}},
                }
            },
            inner,
        ),
        st.builds(
            lambda m, v: {"map_replace": [{"a": m, "b": m}, {"values": {"x": v}}]}, inner, inner
        ),
        st.builds(lambda xs: {"list_concat": [xs, xs, xs, xs]}, some),
        st.builds(lambda x: {"list_concat_unique": [[x], [x]]}, inner),
        st.builds(lambda x: {"str_split": ["%", x]}, inner),
        st.builds(
            lambda e, x: {"yaql": {"expression": e, "data": {"s": x}}},
            st.sampled_from(DOUBLING),
            inner,
        ),
    )


EXPRESSIONS = st.recursive(LEAVES, _extend, max_leaves=40)


def template(value: Any, copies: int = 1) -> dict[str, Any]:
    """``copies`` resources and an output holding ``value``."""
    resources = {
        f"r{n}": {"type": "OS::Heat::None", "properties": {"bar": value}} for n in range(copies)
    }
    return {
        "heat_template_version": "2018-08-31",
        "parameters": PARAMETERS,
        "resources": resources,
        "outputs": {"out": {"value": value}},
    }


#: About 470 KB, just within the value limit: 12 copies make every answer and row large.
NEAR_LIMIT: dict[str, Any] = {
    "list_join": [
        "",
        [
            {
                "str_replace": {
                    "template": {"get_param": "word"},
                    "params": {"%k%": {"list_join": ["", {"get_param": "words"}]}},
                }
            }
        ]
        * 6,
    ]
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    directory = tmp_path_factory.mktemp("budget")
    config = directory / "thermik.conf"
    config.write_text(
        f"[DEFAULT]\nstate_dir = {directory / 'state'}\n[api]\nauth_strategy = noauth\n",
        encoding="utf-8",
    )
    api = ApiProcess(Path(config), memory_limit=ADDRESS_SPACE)
    try:
        yield api
    finally:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(ANSWERS.items()))
        peak = peak_rss(api.process.pid) / MIB
        print(f"\nbudget campaign: {counts}; server peak RSS {peak:.1f} MiB")
        api.close()


#: How many answers of each kind the campaign got (printed at the end).
ANSWERS: collections.Counter[str] = collections.Counter()


def check(status: int, answer: Any, what: str) -> None:
    assert status < 500, (what, status, str(answer)[:2000])
    if status != 400:
        ANSWERS["successes"] += 1
        return
    message = answer["error"]["message"]
    ANSWERS["refused by the budget" if "max_function_" in message else "other 400s"] += 1
    # The function is named in quotes, as the path's last part, or (a preview's Heat wording,
    # "Property error: : <path>: : yaql evaluation failed") as the reason's first word.
    named = any(
        f'"{name}"' in message or f".{name}" in message or f": {name} " in message
        for name in FUNCTIONS
    )
    assert named, (what, message)


NAMES = (f"c{n}" for n in itertools.count())


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(value=EXPRESSIONS, copies=st.integers(min_value=1, max_value=12))
@example(value=bomb()["resources"]["foo"]["properties"]["value"], copies=3)
@example(value=NEAR_LIMIT, copies=12)
@example(
    value={
        "repeat": {
            "template": {"get_param": "word"},
            "for_each": {"%k%": {"get_param": "words"}, "ab": {"get_param": "words"}},
        }
    },
    copies=12,
)
@example(
    value={"yaql": {"expression": DOUBLING[0], "data": {"s": {"get_param": "word"}}}}, copies=2
)
def test_amplifying_templates_keep_the_server_small(
    server: ApiProcess, value: Any, copies: int
) -> None:
    tenant = f"{server.root}/v1/campaign"
    body = {"stack_name": next(NAMES), "template": template(value, copies)}
    for route in ("validate", "stacks/preview"):
        check(*call("POST", f"{tenant}/{route}", body), route)
    status, created = call("POST", f"{tenant}/stacks", body)
    check(status, created, "create")
    if status == 201:
        stack = created["stack"]
        check(*call("GET", f"{tenant}/stacks/{body['stack_name']}/{stack['id']}"), "show")
    assert peak_rss(server.process.pid) < PEAK_LIMIT
