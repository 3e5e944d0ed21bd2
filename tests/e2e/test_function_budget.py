"""The memory bomb of issue 14 through the real API: a 400 naming the function, nothing stored.

A body under 1 KB nesting ``list_join`` 30 deep doubled an escaped string at every level
until the server was killed; validate, preview, create and update now refuse it at once.
The server runs in this process under an address-space cap, so that a regression fails the
test instead of exhausting the machine.
"""

from __future__ import annotations

import dataclasses
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import DEADLINE, TEMPLATE, TENANT
from tests.loopback import serve
from tests.memory_cap import address_space_capped
from thermik.api.app import make_app
from thermik.conf.settings import ApiSettings, LimitSettings, Settings
from thermik.service import build_orchestration_service

BOMB_PATH = "resources.foo.properties.value.list_join"


def bomb(depth: int = 30) -> dict[str, Any]:
    value: Any = "x"
    for _ in range(depth):
        value = {"list_join": ["", [[value]]]}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"foo": {"type": "OS::Heat::TestResource", "properties": {"value": value}}},
    }


def call(method: str, url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


@pytest.fixture
def capped() -> Iterator[None]:
    with address_space_capped():
        yield


def assert_refused(status: int, answer: Any) -> None:
    assert status == 400, answer
    message = answer["error"]["message"]
    assert message.startswith(BOMB_PATH), message
    assert '"list_join" would produce a value larger than 524288 bytes' in message
    assert answer["error"]["type"] == "RequestLimitExceeded"


def test_the_bomb_fits_in_under_a_kilobyte() -> None:
    assert len(json.dumps({"stack_name": "bomb", "template": bomb()})) < 1024


@pytest.mark.parametrize("route", ["validate", "stacks/preview", "stacks"])
def test_the_bomb_is_refused_with_a_400(endpoint: str, capped: None, route: str) -> None:
    assert_refused(*call("POST", f"{endpoint}/{route}", {"stack_name": "b", "template": bomb()}))
    status, listed = call("GET", f"{endpoint}/stacks")
    assert status == 200
    assert listed["stacks"] == []


def test_an_update_to_the_bomb_is_refused_and_the_stack_kept(endpoint: str, capped: None) -> None:
    status, created = call("POST", f"{endpoint}/stacks", {"stack_name": "s", "template": TEMPLATE})
    assert status == 201, created
    stack = f"{endpoint}/stacks/s/{created['stack']['id']}"
    assert_refused(*call("PUT", stack, {"template": bomb()}))
    status, template = call("GET", f"{stack}/template")
    assert status == 200
    assert template == TEMPLATE


def test_a_template_within_the_budget_still_validates(endpoint: str, capped: None) -> None:
    status, answer = call("POST", f"{endpoint}/validate", {"template": bomb(depth=4)})
    assert status == 200, answer


def doubled(what: Any) -> Any:
    return {"str_replace": {"template": "%a%%a%", "params": {"%a%": what}}}


#: Within the default budget; over a value limit of 100 bytes only once ``first`` exists.
RUNTIME = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "first": {"type": "OS::Heat::TestResource", "properties": {"value": "y" * 60}},
        "second": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": doubled({"get_attr": ["first", "output"]})},
        },
    },
    "outputs": {"twice": {"value": doubled({"get_attr": ["first", "output"]})}},
}


def test_the_configured_budget_fails_a_resource_and_an_output_at_run_time(
    tmp_path: Path,
) -> None:
    limits = LimitSettings(max_function_value_size=100)
    settings = dataclasses.replace(Settings.embedded(tmp_path / "state"), limits=limits)
    service = build_orchestration_service(settings)
    try:
        with serve(make_app(service, ApiSettings(), limits=limits)) as root:
            endpoint = f"{root}/v1/{TENANT}"
            status, created = call(
                "POST", f"{endpoint}/stacks", {"stack_name": "r", "template": RUNTIME}
            )
            assert status == 201, created
            stack = f"{endpoint}/stacks/r/{created['stack']['id']}"
            shown = settled(stack)
            assert shown["stack_status"] == "CREATE_FAILED", shown
            status, second = call("GET", f"{stack}/resources/second")
            reason = second["resource"]["resource_status_reason"]
            assert "resources.second.properties.value.str_replace" in reason, reason
            assert "max_function_value_size" in reason
            output = {o["output_key"]: o for o in shown["outputs"]}["twice"]
            assert "outputs.twice.value.str_replace" in output["output_error"], output
    finally:
        service.close()


def settled(stack: str) -> Any:
    start = time.monotonic()
    while time.monotonic() - start < DEADLINE:
        status, shown = call("GET", stack)
        assert status == 200, shown
        if shown["stack"]["stack_status"].endswith("IN_PROGRESS"):
            time.sleep(0.05)
            continue
        return shown["stack"]
    raise AssertionError(f"{stack} did not settle")
