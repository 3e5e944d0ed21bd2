"""A hostile client against the real ``thermik-api`` process, over HTTP, under a memory limit.

The console script runs in a subprocess with its address space limited, on SQLite and on
PostgreSQL. Hypothesis sends it bodies, query strings, headers and paths built to hurt: NUL
characters, unpaired surrogates, huge and negative integers, infinite numbers, any Unicode,
JSON nested far deeper than Python recurses, bodies that are not JSON at all. Every answer must
be below 500, free of tracebacks and of internals (the database URL, its host, port, user and
name, the names of the SQL libraries), and in Heat's error shape; a refused request must leave
what the API shows of the tenant's stacks, configs and deployments as it was; at the end the
server's peak resident memory (``VmHWM``) must be under :data:`RSS_LIMIT` and its log free of
tracebacks. ``THERMIK_PROCESS_FUZZ_EXAMPLES`` sets the examples per database (CI: 150, well
under 90 s for both); the figures are printed (``pytest -s``).
"""

from __future__ import annotations

import dataclasses
import http.client
import itertools
import json
import os
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import dbservers
from tests.contract.conftest import require_backend
from tests.e2e.api_process import ApiProcess
from tests.e2e.test_boundary_databases import internals_of
from tests.e2e.test_fuzz_real import TARGET, stack_bodies
from tests.memory_cap import peak_rss
from tests.unit.api.test_fuzz import (
    BODY_KEYS,
    FIELD_VALUES,
    OPERATIONS,
    QUERY_KEYS,
    check,
    numbers,
    texts,
)
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration
from thermik.persistence.database import Database

EXAMPLES = int(os.environ.get("THERMIK_PROCESS_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: The server's address space: room for its threads' stacks and arenas, not for a runaway.
MEMORY_LIMIT = 2 << 30
#: Its peak resident memory must stay below this through the campaign.
RSS_LIMIT = 400 << 20
#: How long an example waits for the operations earlier ones started.
SETTLE = 5.0

# -- what a hostile client sends ----------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | numbers
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
    | numbers.map(str)
)
documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=16,
)
#: Bodies that are not what a JSON encoder writes.
RAW_BODIES = [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
    b'{"timeout_mins": 1e999}',
    b'{"stack_name": "s", "x": NaN}',
    b'{"stack_name": "s\\u0000"}',
    b'{"name": "\\ud800"}',
    b'{"timeout_mins": ' + b"9" * 5_000 + b"}",
    b"\xff\xfe\x00",
    b"null",
    b'"\\u0000"',
]


def encoded(document: Any) -> bytes:
    return json.dumps(document).encode("ascii")


bodies = (
    st.dictionaries(st.sampled_from(BODY_KEYS) | texts, documents, max_size=6).map(encoded)
    | documents.map(encoded)
    | stack_bodies.map(encoded)
    | st.fixed_dictionaries(
        {"stack_name": st.sampled_from(["s2", "s\x00"]), "template": st.just(TARGET)},
        optional={
            "timeout_mins": numbers,
            "tags": texts | st.lists(texts, max_size=3),
            "parameters": st.dictionaries(st.sampled_from(["word", "x"]), scalars),
        },
    ).map(encoded)
    | st.sampled_from(RAW_BODIES)
    | st.binary(max_size=64)
    | st.just(b"")
)
query_values = texts | numbers.map(str) | st.sampled_from(["True", "false", "desc", "x,y"])
queries = st.lists(st.tuples(st.sampled_from(QUERY_KEYS) | texts, query_values), max_size=5).map(
    lambda pairs: urlencode(pairs, quote_via=quote, errors="surrogatepass")
)
HEADER_NAMES = [
    "X-Auth-User",
    "X-Auth-Token",
    "X-Project-Id",
    "X-User-Id",
    "X-Roles",
    "X-Identity-Status",
    "Content-Type",
    "Accept",
    "X-Forwarded-Host",
    "X-Forwarded-Proto",
    "X-Forwarded-Prefix",
    "X-Openstack-Request-Id",
    "X-Fuzz",
]
#: Header values are Latin-1 on the wire; CR and LF would end the header.
header_values = st.text(
    st.characters(max_codepoint=255, exclude_characters="\r\n"), max_size=30
) | st.sampled_from(["\x00", "bob\x00", "9" * 40, "u" * 300, "application/json"])
headers = st.dictionaries(st.sampled_from(HEADER_NAMES), header_values, max_size=4)
segments = texts.filter(bool)
methods = st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"])


#: A path segment: literal text, or the name of a field the target fills in (``stack_id``).
Segment = tuple[str, bool]


@dataclasses.dataclass(frozen=True)
class Fuzzed:
    """One request: a body is bytes as sent, or a document whose ``"{field}"`` strings the
    target fills in."""

    method: str
    route: tuple[Segment, ...]
    body: bytes | Any
    query: str
    headers: dict[str, str]


def route_of(template: str) -> tuple[Segment, ...]:
    """``/stacks/{stack_name}`` as segments below the tenant."""
    parts = template.strip("/").split("/")
    return (("tenant", True), *((part.strip("{}"), part.startswith("{")) for part in parts))


@st.composite
def anything(draw: st.DrawFn) -> Fuzzed:
    """Any route of the API (now and then a field replaced by something nasty) or nasty
    segments, with any body, query string and headers."""
    tenant: Segment = (
        (draw(segments), False) if draw(st.integers(0, 15)) == 0 else ("tenant", True)
    )
    if draw(st.integers(0, 4)) == 0:
        nasty = draw(st.lists(segments, min_size=1, max_size=5))
        method, route = draw(methods), (tenant, *((text, False) for text in nasty))
    else:
        method, template = draw(st.sampled_from(OPERATIONS))
        route = (
            tenant,
            *(
                (draw(segments), False)
                if field and draw(st.integers(0, 5)) == 0
                else (text, field)
                for text, field in route_of(template)[1:]
            ),
        )
    return Fuzzed(method, route, draw(bodies), draw(queries), draw(headers))


STACK = "/stacks/{stack_name}/{stack_id}"
#: Well-formed requests that store what they carry, with nasty values in their fields.
AIMED = {
    ("POST", "/stacks"): st.fixed_dictionaries(
        {
            "stack_name": st.sampled_from(["s2", "s3"]) | texts,
            "template": st.just(TARGET),
            "timeout_mins": numbers | numbers.map(str),
        },
        optional={
            "tags": texts | st.lists(texts, max_size=3),
            "parameters": st.dictionaries(st.sampled_from(["word", "x"]) | texts, scalars),
            "disable_rollback": scalars,
        },
    ),
    ("PATCH", STACK): st.fixed_dictionaries(
        {},
        optional={
            "timeout_mins": numbers,
            "tags": texts,
            "parameters": st.fixed_dictionaries({"word": scalars}),
        },
    ),
    ("POST", "/software_configs"): st.fixed_dictionaries(
        {"name": texts, "config": scalars},
        optional={"group": texts, "options": documents, "inputs": st.lists(documents)},
    ),
    ("POST", "/software_deployments"): st.fixed_dictionaries(
        {"config_id": st.just("{config_id}"), "server_id": texts},
        optional={
            "action": texts,
            "status": texts,
            "status_reason": texts,
            "input_values": st.dictionaries(texts, scalars),
            "stack_user_project_id": texts,
        },
    ),
    ("PUT", "/software_deployments/{deployment_id}"): st.fixed_dictionaries(
        {},
        optional={"action": texts, "status": texts, "output_values": documents},
    ),
    ("POST", STACK + "/snapshots"): st.fixed_dictionaries({"name": texts}),
    ("PATCH", STACK + "/resources/{resource_name}"): st.fixed_dictionaries(
        {"mark_unhealthy": st.booleans(), "resource_status_reason": texts}
    ),
    ("POST", STACK + "/resources/handle/signal"): documents,
}
LIST_QUERY_KEYS = ["name", "status", "tags", "not_tags", "limit", "marker", "sort_keys", "id"]


@st.composite
def aimed(draw: st.DrawFn) -> Fuzzed:
    """A well-formed request that stores what it carries, with something nasty in a field;
    or a stack list filtered by something nasty."""
    if draw(st.integers(0, 4)) == 0:
        pairs = draw(st.lists(st.tuples(st.sampled_from(LIST_QUERY_KEYS), query_values)))
        query = urlencode(pairs, quote_via=quote, errors="surrogatepass")
        return Fuzzed("GET", route_of("/stacks"), b"", query, {})
    (method, template), documents_of = draw(st.sampled_from(sorted(AIMED.items())))
    return Fuzzed(method, route_of(template), draw(documents_of), "", {})


def filled(document: Any, values: dict[str, str]) -> Any:
    """``document`` with each ``"{field}"`` string replaced by the target's value."""
    if isinstance(document, str) and document[1:-1] in values and document.startswith("{"):
        return values[document[1:-1]]
    if isinstance(document, dict):
        return {key: filled(item, values) for key, item in document.items()}
    if isinstance(document, list):
        return [filled(item, values) for item in document]
    return document


# -- the server and its target ------------------------------------------------------------------


class Server:
    """``thermik-api`` on one database, the tenant and objects requests address, and figures."""

    def __init__(self, api: ApiProcess, url: str) -> None:
        self.api = api
        self.internals = internals_of(url)
        address = urlsplit(api.root)
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 80
        self._tenants = (f"fuzz{n}" for n in itertools.count())
        self.tenant = ""
        self.values: dict[str, str] = {}
        self.requests = 0
        self.fuzzed = 0
        self.refused = 0
        self._fresh()

    def send(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> Result:
        """One request on a new connection; the answer read whole."""
        self.requests += 1
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request(method, path, body=body or None, headers=headers or {})
            response = connection.getresponse()
            return Result(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()

    def call(self, method: str, path: str, document: Any = None) -> Any:
        """A well-formed request of the test itself; its decoded answer."""
        body = b"" if document is None else encoded(document)
        result = self.send(
            method, f"/v1/{self.tenant}{path}", body, {"Content-Type": "application/json"}
        )
        assert result.status_code < 300, (method, path, result.text)
        return result.json if result.text else None

    def _fresh(self) -> None:
        self.tenant = next(self._tenants)
        created = self.call("POST", "/stacks", {"stack_name": "s1", "template": TARGET})
        stack_id = created["stack"]["id"]
        self.values = {**FIELD_VALUES, "stack_id": stack_id, "output_key": "echo"}
        assert self._settled(60), "the target stack did not settle"
        config = self.call("POST", "/software_configs", {"name": "c", "config": "x"})
        deployment = self.call(
            "POST",
            "/software_deployments",
            {"config_id": config["software_config"]["id"], "server_id": "srv"},
        )
        snapshot = self.call("POST", f"/stacks/s1/{stack_id}/snapshots", {"name": "snap"})
        assert self._settled(60), "the target stack's snapshot did not end"
        self.values.update(
            config_id=config["software_config"]["id"],
            deployment_id=deployment["software_deployment"]["id"],
            snapshot_id=snapshot["id"],
        )

    def _stacks(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = self.call("GET", "/stacks?show_deleted=True")["stacks"]
        return sorted(listed, key=lambda stack: str(stack["id"]))

    def _settled(self, deadline: float) -> bool:
        """Whether no stack of the tenant and no snapshot of the target is in progress (the
        snapshot's row is finished a moment after its stack's)."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            stacks = self._stacks()
            busy = [stack for stack in stacks if stack["stack_status"].endswith("_IN_PROGRESS")]
            if not busy and not self._snapshotting(stacks):
                return True
            time.sleep(0.05)
        return False

    def _snapshotting(self, stacks: list[dict[str, Any]]) -> bool:
        target = self.values["stack_id"]
        if not any(s["id"] == target and s["stack_status"] != "DELETE_COMPLETE" for s in stacks):
            return False
        listed = self.call("GET", f"/stacks/s1/{target}/snapshots")["snapshots"]
        return any(snapshot["status"] == "IN_PROGRESS" for snapshot in listed)

    def ready(self) -> bool:
        """Wait for what earlier examples started; a fresh tenant if the target is gone or
        busy. Whether the tenant's state is still (no operation runs)."""
        live = [s for s in self._stacks() if s["id"] == self.values["stack_id"]]
        if not live or live[0]["stack_status"].startswith("DELETE") or not self._settled(SETTLE):
            self._fresh()
        return self._settled(SETTLE)

    def state(self) -> Any:
        """What is stored for the tenant, as the API shows it."""
        stack = f"/stacks/s1/{self.values['stack_id']}"
        return (
            self._stacks(),
            self.call("GET", stack + "?resolve_outputs=False")["stack"],
            self.call("GET", stack + "/snapshots")["snapshots"],
            self.call("GET", "/software_configs")["software_configs"],
            self.call("GET", "/software_deployments")["software_deployments"],
        )

    def peak_rss(self) -> int:
        """The server's peak resident memory in bytes (``VmHWM``)."""
        return peak_rss(self.api.process.pid)


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    """Where ``after`` differs from ``before``, and how."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = sorted(set(before) | set(after), key=str)
        return [d for k in keys for d in differences(before.get(k), after.get(k), f"{where}.{k}")]
    lists = isinstance(before, list | tuple) and isinstance(after, list | tuple)
    if lists and len(before) == len(after):
        pairs = zip(before, after, strict=True)
        return [d for i, (b, a) in enumerate(pairs) for d in differences(b, a, f"{where}[{i}]")]
    return [] if before == after else [f"{where}: {before!r:.200} -> {after!r:.200}"]


class Result:
    """An HTTP answer in the shape :func:`tests.unit.api.test_fuzz.check` reads."""

    def __init__(self, status: int, headers: dict[str, str], raw: bytes) -> None:
        self.status_code = status
        self.headers = {name.lower(): value for name, value in headers.items()}
        self.text = raw.decode("utf-8")

    @property
    def json(self) -> Any:
        return json.loads(self.text)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    backend: str = request.param
    require_backend(backend)
    directory = tmp_path_factory.mktemp(f"fuzz-{backend}")
    with dbservers.scratch_database(backend, directory) as url:
        db = Database(DatabaseSettings(url))
        migration.upgrade(db)
        db.dispose()
        config = directory / "thermik.conf"
        config.write_text(
            f"[DEFAULT]\nstate_dir = {directory / 'state'}\n"
            f"[database]\nconnection = {url}\n[api]\nauth_strategy = noauth\n",
            encoding="utf-8",
        )
        api = ApiProcess(config, memory_limit=MEMORY_LIMIT)
        try:
            found = Server(api, url)
            yield found
            peak = found.peak_rss()
            print(
                f"\n{backend}: {found.fuzzed} fuzzed requests ({found.refused} refused), "
                f"{found.requests} in all, peak RSS {peak / 2**20:.0f} MiB"
            )
            assert peak < RSS_LIMIT, f"thermik-api peaked at {peak / 2**20:.0f} MiB"
            assert api.process.poll() is None, "thermik-api died"
            log = api.rest_of_log()
            first = log.find("Traceback")
            assert first < 0, log[max(first - 400, 0) : first + 4000]
        finally:
            api.close()


def check_served(result: Result) -> None:
    """:func:`check`, except that the HTTP server in front of the application may itself
    refuse a request it cannot parse (a control character in a header, a malformed request
    line) with a plain-text 400, as any production HTTP server does."""
    front_end = result.headers.get("content-type", "").startswith("text/plain")
    if result.status_code == 400 and front_end:
        return
    check(result)


@FUZZ
@given(request=anything() | aimed())
def test_no_request_harms_the_server(server: Server, request: Fuzzed) -> None:
    still = server.ready()
    before = server.state() if still else None
    fill = {**server.values, "tenant": server.tenant}
    target = "/v1/" + "/".join(
        quote(fill[text] if field else text, safe="", errors="surrogatepass")
        for text, field in request.route
    )
    if request.query:
        target += "?" + request.query
    body = request.body
    if not isinstance(body, bytes):
        body = encoded(filled(body, fill))
    server.fuzzed += 1
    method = request.method
    result = server.send(method, target, body, request.headers)
    check_served(result)
    for internal in server.internals:
        assert internal not in result.text, (internal, result.text)
    if 400 <= result.status_code < 500:
        server.refused += 1
        if before is not None:
            changed = differences(before, server.state())
            assert not changed, (method, target, result.text, changed)
