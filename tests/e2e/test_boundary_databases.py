"""Bad numbers and characters are a 400 naming the field on every database, never a 5xx.

Over the real service on SQLite, PostgreSQL and MariaDB (the servers of ``tests/dbservers.py``;
missing ones fail with ``THERMIK_REQUIRE_SERVICES=1``): a ``timeout_mins`` past 32 bits, a NUL
character in any part of a request. Nothing a refused request carried is stored, and no answer
names the database, its host or its user.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from sqlalchemy import make_url

from tests import dbservers
from tests.contract.conftest import require_backend
from tests.e2e.support import TEMPLATE
from thermik.api.app import make_app
from thermik.conf.settings import ApiSettings, LimitSettings, Settings
from thermik.orchestration import Orchestrator
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.service import build_orchestration_service

TENANT = "t1"


@dataclasses.dataclass
class Served:
    """The API over the real service on one database, and what it must never tell."""

    client: falcon.testing.TestClient
    service: Orchestrator
    internals: tuple[str, ...]
    stack: str = ""
    config: str = ""

    def call(self, method: str, path: str, **kwargs: Any) -> falcon.testing.Result:
        return self.client.simulate_request(method, f"/v1/{TENANT}{path}", **kwargs)

    def state(self) -> Any:
        """What is stored, as the API shows it."""
        stacks = self.call("GET", "/stacks", query_string="show_deleted=true").json["stacks"]
        configs = self.call("GET", "/software_configs").json["software_configs"]
        deployments = self.call("GET", "/software_deployments").json["software_deployments"]
        return stacks, configs, deployments


def internals_of(url: str) -> tuple[str, ...]:
    parsed = make_url(url)
    words = [url, parsed.render_as_string(hide_password=True), parsed.drivername]
    words += [str(part) for part in (parsed.username, parsed.database) if part]
    words += ["sqlalchemy", "psycopg", "pymysql", "Traceback"]
    if parsed.host:
        # The API itself answers on the loopback host too: its links name that host.
        words.append(f"{parsed.host}:{parsed.port}" if parsed.port else parsed.host)
    return tuple(words)


@pytest.fixture(scope="module", params=dbservers.BACKENDS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    backend: str = request.param
    require_backend(backend)
    directory: Path = tmp_path_factory.mktemp(backend)
    with dbservers.scratch_database(backend, directory) as url:
        settings = Settings.embedded(directory / "state")
        settings = dataclasses.replace(
            settings, database=dataclasses.replace(settings.database, connection=url)
        )
        db = Database(settings.database)
        migration.upgrade(db)
        db.dispose()
        service = build_orchestration_service(settings)
        try:
            app = make_app(service, ApiSettings(), limits=LimitSettings())
            found = Served(falcon.testing.TestClient(app), service, internals_of(url))
            created = found.call(
                "POST", "/stacks", json={"stack_name": "s1", "template": TEMPLATE}
            )
            assert created.status_code == 201, created.text
            found.stack = "s1/" + created.json["stack"]["id"]
            assert service.runtime.wait(created.json["stack"]["id"], 60).settled
            config = found.call("POST", "/software_configs", json={"name": "c", "config": "x"})
            found.config = config.json["software_config"]["id"]
            yield found
        finally:
            service.close()


#: A nested stack whose timeout does not fit the column it is stored in.
NESTED_TIMEOUT = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "child": {
            "type": "OS::Heat::Stack",
            "properties": {
                "template": '{"heat_template_version": "2018-08-31"}',
                "timeout": 2**40,
            },
        }
    },
}


def create_with(**fields: Any) -> dict[str, Any]:
    return {"stack_name": "s2", "template": TEMPLATE, **fields}


#: (what, method, path, request arguments, the message's start).
REFUSED: list[tuple[str, str, str, dict[str, Any], str]] = [
    *(
        (
            f"timeout 2^{bits}",
            "POST",
            "/stacks",
            {"json": create_with(timeout_mins=2**bits)},
            "timeout_mins: must be at most 2147483647",
        )
        for bits in (31, 63, 64, 200)
    ),
    (
        "timeout text 2^63",
        "POST",
        "/stacks",
        {"json": create_with(timeout_mins=str(2**63))},
        "timeout_mins: must be at most 2147483647",
    ),
    (
        "update timeout",
        "PATCH",
        "/stacks/{stack}",
        {"json": {"timeout_mins": 2**63}},
        "timeout_mins: must be at most 2147483647",
    ),
    (
        "nested stack timeout 2^40",
        "POST",
        "/stacks",
        {"json": {"stack_name": "s2", "template": NESTED_TIMEOUT}},
        "resources.child.properties.timeout: 1099511627776 is out of range (min: 1, max: 2147",
    ),
    (
        "limit 2^40",
        "GET",
        "/stacks",
        {"query_string": f"limit={2**40}"},
        "limit: must be at most 2147483647",
    ),
    (
        "NUL in a tag",
        "POST",
        "/stacks",
        {"json": create_with(tags="a,b\x00")},
        "tags: must not contain a NUL character",
    ),
    (
        "NUL in a parameter",
        "POST",
        "/stacks",
        {"json": create_with(parameters={"word": "x\x00"})},
        "parameters.word: must not contain a NUL character",
    ),
    (
        "NUL in a template's YAML text",
        "POST",
        "/stacks",
        {
            "json": create_with(
                template='heat_template_version: 2018-08-31\ndescription: "x\\0y"\nresources: {}\n'
            )
        },
        "description: a string of the template must not contain a NUL character",
    ),
    (
        "NUL in an environment's YAML text",
        "POST",
        "/stacks",
        {"json": create_with(parameters={}, environment='parameters:\n  word: "x\\0"\n')},
        "parameters.word: a string of the environment must not contain a NUL character",
    ),
    (
        "NUL in an updated parameter",
        "PATCH",
        "/stacks/{stack}",
        {"json": {"parameters": {"word": "x\x00"}}},
        "parameters.word: must not contain a NUL character",
    ),
    (
        "NUL in a config name",
        "POST",
        "/software_configs",
        {"json": {"name": "c\x00", "config": "x"}},
        "name: must not contain a NUL character",
    ),
    (
        "NUL in a deployment's server",
        "POST",
        "/software_deployments",
        {"json": {"config_id": "{config}", "server_id": "s\x00"}},
        "server_id: must not contain a NUL character",
    ),
    (
        "NUL in the name filter",
        "GET",
        "/stacks",
        {"query_string": "name=s1%00"},
        "name: must not contain a NUL character",
    ),
    (
        "NUL in a stack id",
        "GET",
        "/stacks/s1/x%00y",
        {},
        "path: must not contain a NUL character",
    ),
    (
        "NUL in a stack name",
        "DELETE",
        "/stacks/s%001",
        {},
        "path: must not contain a NUL character",
    ),
    (
        "NUL in a header",
        "POST",
        "/stacks",
        {"json": create_with(), "headers": {"X-Auth-User": "bob\x00"}},
        "X-Auth-User: must not contain a NUL character",
    ),
    (
        "a user wider than its column",
        "POST",
        "/stacks",
        {"json": create_with(), "headers": {"X-Auth-User": "u" * 256}},
        "X-Auth-User: must be at most 255 characters, not 256",
    ),
    (
        "NUL in a snapshot name",
        "POST",
        "/stacks/{stack}/snapshots",
        {"json": {"name": "\x00"}},
        "name: must not contain a NUL character",
    ),
    (
        "a tag wider than its column",
        "POST",
        "/stacks",
        {"json": create_with(tags=["t" * 81])},
        "tags: must be at most 80 characters, not 81",
    ),
    (
        "a deployment action wider than its column",
        "POST",
        "/software_deployments",
        {"json": {"config_id": "{config}", "server_id": "s", "action": "A" * 65}},
        "action: must be at most 64 characters, not 65",
    ),
]


def filled(served: Served, value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("{stack}", served.stack).replace("{config}", served.config)
    if isinstance(value, dict):
        return {key: filled(served, item) for key, item in value.items()}
    return value


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "message"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_refused_with_a_400_naming_the_field(
    served: Served, method: str, path: str, kwargs: dict[str, Any], message: str
) -> None:
    before = served.state()
    result = served.call(method, filled(served, path), **filled(served, kwargs))
    assert result.status_code == 400, result.text
    assert result.json["error"]["message"].startswith(message), result.text
    for internal in served.internals:
        assert internal not in result.text
    assert served.state() == before


def test_the_largest_timeout_is_stored(served: Served) -> None:
    result = served.call("POST", "/stacks", json=create_with(timeout_mins=2**31 - 1))
    assert result.status_code == 201, result.text
    stack_id = result.json["stack"]["id"]
    assert served.service.runtime.wait(stack_id, 60).settled
    shown = served.call("GET", f"/stacks/s2/{stack_id}").json["stack"]
    assert shown["timeout_mins"] == 2**31 - 1
    assert served.call("DELETE", f"/stacks/s2/{stack_id}").status_code == 204
    assert served.service.runtime.wait(stack_id, 60).settled
