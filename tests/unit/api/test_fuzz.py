"""Fuzzing: no request body, query string or path makes the API answer 500.

Whatever arrives, the answer is JSON (or an empty 204) and errors have Heat's shape.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote, urlencode

import falcon.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.api.conftest import TEMPLATE, TENANT, local, tenant_path
from tests.unit.api.memory_service import MemoryService
from thermik.api.app import all_routes, make_app
from thermik.api.v1.endpoint import Deps
from thermik.conf.settings import ApiSettings, LimitSettings

#: More examples locally with THERMIK_FUZZ_EXAMPLES=2000.
FUZZ = settings(max_examples=int(os.environ.get("THERMIK_FUZZ_EXAMPLES", "150")), deadline=None)

#: Text no database stores, or that breaks naive code: NUL, unpaired surrogates, bidi controls.
NASTY_TEXT = [
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfff",
    "\u202e\u200b",
    "日本語",
    "🙂" * 3,
    "' OR 1=1 --",
    "%00",
    "../../etc/passwd",
    "t" * 300,
]
#: Integers at and past the edges of the 32- and 64-bit columns.
NASTY_NUMBERS = [2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**40, -1, 0]
texts = st.text(max_size=20) | st.sampled_from(NASTY_TEXT)
numbers = st.integers() | st.sampled_from(NASTY_NUMBERS)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)

BODY_KEYS = [
    "stack_name",
    "template",
    "template_url",
    "parameters",
    "environment",
    "files",
    "environment_files",
    "files_container",
    "disable_rollback",
    "timeout_mins",
    "tags",
    "adopt_stack_data",
    "clear_parameters",
    "converge",
    "existing",
    "suspend",
    "resume",
    "check",
    "cancel_update",
    "mark_unhealthy",
    "resource_status_reason",
    "name",
    "group",
    "config",
    "inputs",
    "outputs",
    "options",
    "config_id",
    "server_id",
    "input_values",
    "output_values",
    "action",
    "status",
    "status_reason",
]
bodies = json_values | st.dictionaries(st.sampled_from(BODY_KEYS), json_values, max_size=6)

QUERY_KEYS = [
    "limit",
    "marker",
    "sort_keys",
    "sort_dir",
    "show_deleted",
    "show_nested",
    "with_count",
    "global_tenant",
    "tags",
    "tags_any",
    "not_tags",
    "resolve_outputs",
    "nested_depth",
    "with_detail",
    "with_attr",
    "type",
    "status",
    "resource_status",
    "template_type",
    "with_description",
    "with_condition_func",
    "ignore_errors",
    "server_id",
    "name",
    "x",
]
query_strings = st.lists(
    st.tuples(
        st.sampled_from(QUERY_KEYS),
        st.sampled_from(["True", "false", "-1", "0", "7", "", "desc", "x,y", "\u00e9", "9" * 30]),
    ),
    max_size=5,
).map(urlencode)

FIELD_VALUES = {
    "stack_name": "s1",
    "resource_name": "server",
    "output_key": "greeting",
    "event_id": "e",
    "snapshot_id": "x",
    "config_id": "x",
    "deployment_id": "x",
    "server_id": "srv",
    "type_name": "OS::Heat::None",
    "template_version": "heat_template_version.2018-08-31",
}


def operations() -> list[tuple[str, str]]:
    """Every (method, path template) the app serves below the tenant."""
    deps = Deps(MemoryService(), LimitSettings())
    return [
        (method, route.template)
        for route in all_routes(deps)
        if route.tenant_scoped
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE")
        if hasattr(route.responder, f"on_{method.lower()}")
    ]


OPERATIONS = operations()
COLLECTIONS = [
    "/stacks",
    "/stacks/s1",
    "/stacks/s1/events",
    "/validate",
    "/software_configs",
    "/software_deployments/metadata/srv",
    "/resource_types",
    "/build_info",
]
methods = st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"])


def fresh_client() -> tuple[falcon.testing.TestClient, str]:
    app = make_app(MemoryService(), ApiSettings(), limits=LimitSettings(max_json_body_size=8192))
    client = falcon.testing.TestClient(app)
    created = client.simulate_post(
        tenant_path("/stacks"), json={"stack_name": "s1", "template": TEMPLATE}
    )
    return client, local(created.headers["location"])


def as_json(body: Any) -> dict[str, Any]:
    """Request arguments sending ``body`` as JSON with ASCII escapes: an unpaired surrogate
    travels as ``\\ud800``, as a real client encodes it."""
    return {"body": json.dumps(body), "headers": {"Content-Type": "application/json"}}


def check(result: Any) -> None:
    assert result.status_code < 500, result.text
    if result.status_code == 204:
        assert result.text == ""
        return
    assert result.headers["content-type"] == "application/json", result.headers
    document = json.loads(result.text)
    if result.status_code >= 400:
        assert set(document) == {"code", "title", "explanation", "error"}
        assert document["code"] == result.status_code
        assert document["error"]["message"]


@FUZZ
@given(operation=st.sampled_from(OPERATIONS), body=bodies, query=query_strings)
def test_every_operation(operation: tuple[str, str], body: Any, query: str) -> None:
    client, stack = fresh_client()
    method, template = operation
    stack_id = stack.rsplit("/", 1)[1]
    path = template.format(stack_id=stack_id, **FIELD_VALUES)
    check(client.simulate_request(method, tenant_path(path), **as_json(body), query_string=query))


@FUZZ
@given(method=methods, path=st.sampled_from(COLLECTIONS), body=bodies, query=query_strings)
def test_any_method(method: str, path: str, body: Any, query: str) -> None:
    client, _ = fresh_client()
    check(client.simulate_request(method, tenant_path(path), **as_json(body), query_string=query))


@FUZZ
@given(
    method=methods,
    path=st.sampled_from([*COLLECTIONS, "/stacks/s1/x/actions"]),
    raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode),
)
def test_raw_bodies(method: str, path: str, raw: bytes) -> None:
    client, _ = fresh_client()
    check(client.simulate_request(method, tenant_path(path), body=raw))


@FUZZ
@given(segments=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=6), method=methods)
def test_arbitrary_paths(segments: list[str], method: str) -> None:
    client, _ = fresh_client()
    joined = "/".join(quote(segment, safe="") for segment in segments)
    check(client.simulate_request(method, "/v1/" + joined))
    check(client.simulate_request(method, f"/v1/{TENANT}/stacks/" + joined))
