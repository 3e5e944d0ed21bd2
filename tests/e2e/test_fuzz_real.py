"""Fuzzing the API over the REAL service: no body, query string or path makes it answer 500.

The request strategies are the API layer's own (tests/unit/api/test_fuzz.py); here they reach
the engine: the Store on SQLite, the template layer, the plugins and the runtime. Whatever
arrives, the answer is JSON (or an empty 204) and errors have Heat's shape. Requests that
delete or change the target stack are fine: the next example gets a live, settled one.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import falcon.testing
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.e2e.support import TEMPLATE
from tests.unit.api.test_fuzz import (
    COLLECTIONS,
    FIELD_VALUES,
    OPERATIONS,
    as_json,
    bodies,
    check,
    json_values,
    methods,
    query_strings,
)
from thermik.api.app import make_app
from thermik.api.boundary import EventQuery, RequestContext
from thermik.conf.settings import ApiSettings, LimitSettings
from thermik.errors import StackNotFound
from thermik.orchestration import Orchestrator

#: Bounded for CI; more locally with THERMIK_FUZZ_EXAMPLES=2000.
FUZZ = settings(
    max_examples=int(os.environ.get("THERMIK_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
#: How long an example waits for the previous one's operation on the target stack.
SETTLE = 5.0
#: A target stack with a resource of every kind the requests name (server, handle, ...).
TARGET: dict[str, Any] = {
    **TEMPLATE,
    "resources": {
        **TEMPLATE["resources"],
        "server": {"type": "OS::Heat::TestResource", "metadata": {"deployments": []}},
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
    },
}


class Target:
    """The live stack (and a software config and deployment) that fuzzed requests address.

    A request may delete it, abandon it or start an operation on it: before each example the
    stack's operation is waited for, and a stack that is gone is replaced by a fresh one in a
    fresh tenant.
    """

    def __init__(self, service: Orchestrator) -> None:
        self.service = service
        self._tenants = (f"fuzz{n}" for n in itertools.count())
        self.tenant = ""
        self.stack_id = ""
        self.values: dict[str, str] = {}
        self._fresh()

    def _fresh(self) -> None:
        self.tenant = next(self._tenants)
        ctx = RequestContext(self.tenant)
        client = falcon.testing.TestClient(make_app(self.service, ApiSettings(), limits=LIMITS))
        created = client.simulate_post(
            f"/v1/{self.tenant}/stacks", json={"stack_name": "s1", "template": TARGET}
        )
        assert created.status_code == 201, created.text
        self.stack_id = created.json["stack"]["id"]
        assert self.service.runtime.wait(self.stack_id, 60).settled
        config = client.simulate_post(
            f"/v1/{self.tenant}/software_configs", json={"name": "c", "config": "x"}
        ).json["software_config"]
        deployment = client.simulate_post(
            f"/v1/{self.tenant}/software_deployments",
            json={"config_id": config["id"], "server_id": "srv"},
        ).json["software_deployment"]
        stack = self.service.identify_stack(ctx, "s1")
        snapshot = self.service.create_snapshot(ctx, stack, "snap")
        assert self.service.runtime.wait(self.stack_id, 60).settled
        events = self.service.list_events(ctx, stack, EventQuery(resource_name="server"))
        self.values = {
            **FIELD_VALUES,
            "stack_id": self.stack_id,
            "output_key": "echo",
            "snapshot_id": snapshot.id,
            "config_id": config["id"],
            "deployment_id": deployment["id"],
            "event_id": events[-1].id,
        }

    def ready(self) -> None:
        """Wait a little for the stack's running operation; replace the stack if it is gone
        or still busy (a fuzzed update may have asked a resource to wait for hours)."""
        state = self.service.runtime.wait(self.stack_id, SETTLE)
        try:
            self.service.store.get_stack(self.stack_id, tenant=self.tenant)
        except StackNotFound:
            self._fresh()
            return
        if not state.settled:
            self._fresh()

    def path(self, template: str) -> str:
        """``/v1/<tenant>`` + ``template`` filled with the target's names and ids."""
        return f"/v1/{self.tenant}" + template.format(**self.values)


LIMITS = LimitSettings(max_json_body_size=8192)


@pytest.fixture(scope="module")
def client(shared_service: Orchestrator) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(make_app(shared_service, ApiSettings(), limits=LIMITS))


@pytest.fixture(scope="module")
def target(shared_service: Orchestrator) -> Target:
    return Target(shared_service)


@FUZZ
@given(operation=st.sampled_from(OPERATIONS), body=bodies, query=query_strings)
def test_every_operation(
    client: falcon.testing.TestClient,
    target: Target,
    operation: tuple[str, str],
    body: Any,
    query: str,
) -> None:
    target.ready()
    method, template = operation
    check(
        client.simulate_request(method, target.path(template), **as_json(body), query_string=query)
    )


@FUZZ
@given(method=methods, path=st.sampled_from(COLLECTIONS), body=bodies, query=query_strings)
def test_collections(
    client: falcon.testing.TestClient,
    target: Target,
    method: str,
    path: str,
    body: Any,
    query: str,
) -> None:
    target.ready()
    check(client.simulate_request(method, target.path(path), **as_json(body), query_string=query))


RESOURCE_TYPES = [
    "OS::Heat::None",
    "OS::Heat::Value",
    "OS::Heat::TestResource",
    "OS::Heat::RandomString",
    "OS::Heat::WaitConditionHandle",
    "OS::Heat::WaitCondition",
    "OS::No::Such",
]
VERSIONS = ["2013-05-23", "2016-10-14", "2018-08-31", "2021-04-16", "wallaby", "1999-01-01", 7]
resource_definitions = st.fixed_dictionaries(
    {"type": st.sampled_from(RESOURCE_TYPES)},
    optional={
        "properties": st.dictionaries(
            st.sampled_from(["value", "length", "wait_secs", "fail", "handle", "timeout", "x"]),
            json_values,
            max_size=3,
        ),
        "depends_on": st.sampled_from(["a", "b", "nope"]) | json_values,
        "metadata": json_values,
    },
)
templates = st.fixed_dictionaries(
    {
        "heat_template_version": st.sampled_from(VERSIONS),
        "resources": st.dictionaries(st.sampled_from(["a", "b", "c"]), resource_definitions),
    },
    optional={
        "parameters": st.dictionaries(
            st.sampled_from(["p", "q"]),
            st.fixed_dictionaries(
                {"type": st.sampled_from(["string", "number", "json", "boolean", "list", "x"])},
                optional={"default": json_values, "hidden": json_values},
            ),
        ),
        "outputs": st.dictionaries(
            st.sampled_from(["o"]), st.fixed_dictionaries({"value": json_values})
        ),
        "conditions": json_values,
    },
)
#: Mostly well-formed top-level fields, so that the template itself is what gets judged.
stack_bodies = st.fixed_dictionaries(
    {
        "stack_name": st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True) | st.text(max_size=8),
        "template": templates,
    },
    optional={
        "parameters": st.dictionaries(st.sampled_from(["p", "q", "r"]), json_values),
        "environment": st.fixed_dictionaries(
            {},
            optional={
                "parameters": st.dictionaries(st.sampled_from(["p", "q"]), json_values),
                "parameter_defaults": json_values,
                "resource_registry": json_values,
            },
        )
        | json_values,
        "timeout_mins": st.integers(min_value=-1, max_value=100) | json_values,
        "tags": st.text(max_size=10) | json_values,
        "disable_rollback": st.booleans() | json_values,
    },
)


@FUZZ
@given(
    body=stack_bodies,
    where=st.sampled_from(
        ["/stacks", "/stacks/preview", "/validate", "/stacks/s1/{stack_id}", "/stacks/s1"]
    ),
    update=st.sampled_from(["PUT", "PATCH"]),
)
def test_template_bodies(
    client: falcon.testing.TestClient, target: Target, body: Any, where: str, update: str
) -> None:
    """Template-shaped bodies get past the request parsing into the template layer and the
    plugins' validation (and, when valid, into the engine)."""
    target.ready()
    method = update if where.startswith("/stacks/s1") else "POST"
    result = client.simulate_request(method, target.path(where), **as_json(body))
    check(result)
    if result.status_code == 201:
        # A stack that really started: give it a moment before the next example.
        target.service.runtime.wait(result.json["stack"]["id"], SETTLE)
