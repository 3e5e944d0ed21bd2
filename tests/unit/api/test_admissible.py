"""The characters and numbers a request may carry: one set of rules for every route and part."""

from __future__ import annotations

import json
from typing import Any

import falcon.testing
import pytest
from sqlalchemy import Integer, String

from tests.unit.api.conftest import tenant_path
from thermik import errors
from thermik.api import admissible
from thermik.persistence import models, models_software


def refusal(document: Any) -> str:
    with pytest.raises(errors.InvalidRequest) as caught:
        admissible.check_document(document)
    return str(caught.value)


def test_a_nul_anywhere_in_a_body_is_named_by_its_path() -> None:
    assert refusal({"parameters": {"word": "a\x00b"}}) == (
        "parameters.word: must not contain a NUL character (at character 1)"
    )
    assert refusal({"tags": ["ok", "\x00"]}) == (
        "tags[1]: must not contain a NUL character (at character 0)"
    )
    assert refusal({"template": {"resources": {"r\x00": {}}}}) == (
        "template.resources: a key must not contain a NUL character (at character 1)"
    )
    assert refusal("\x00") == "body: must not contain a NUL character (at character 0)"


def test_an_unpaired_surrogate_and_an_infinite_number_are_refused() -> None:
    assert refusal({"name": "x\ud800"}) == (
        "name: must not contain an unpaired surrogate U+D800 (at character 1)"
    )
    assert refusal({"files": {"a": [1.5, float("inf")]}}) == "files.a[1]: must be a finite number"


def test_what_every_database_stores_passes() -> None:
    admissible.check_document(
        {"name": "é 日本 🙂 \t\n", "n": [2**40, -1.5e300, None, True], "": {"k": "v"}}
    )


def test_a_document_deeper_than_python_recurses_is_walked() -> None:
    deep: Any = "\x00"
    for _ in range(5000):
        deep = [deep]
    assert refusal({"x": deep}).startswith("x[0][0]")


def test_integers_fit_the_32_bit_columns() -> None:
    assert admissible.check_integer(admissible.INT32_MAX, "timeout_mins") == 2**31 - 1
    with pytest.raises(errors.InvalidRequest, match=r"^timeout_mins: must be at most 2147483647"):
        admissible.check_integer(2**31, "timeout_mins")
    with pytest.raises(errors.InvalidRequest, match=r"^limit: must be at least 0$"):
        admissible.check_integer(-1, "limit", minimum=0)


def width(column: Any) -> int:
    kind = column.type
    assert isinstance(kind, String)
    assert kind.length is not None
    return kind.length


def test_the_widths_are_those_of_the_columns() -> None:
    stack = models.Stack.__table__.c
    deployment = models_software.SoftwareDeployment.__table__.c
    assert width(stack.name) == admissible.NAME_LENGTH
    assert width(stack.tenant) == admissible.PROJECT_LENGTH
    assert width(stack.action) == admissible.STATE_LENGTH
    assert width(models.StackTag.__table__.c.tag) == admissible.TAG_LENGTH
    assert width(deployment.server_id) == admissible.NAME_LENGTH
    assert width(deployment.stack_user_project_id) == admissible.PROJECT_LENGTH
    assert isinstance(stack.timeout_mins.type, Integer)


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"path": "/stacks/s1/a%00b"}, "path: must not contain a NUL character"),
        ({"query_string": "name=a%00"}, "name: must not contain a NUL character"),
        ({"query_string": "a%00=1"}, "query: must not contain a NUL character"),
        ({"headers": {"X-Auth-User": "bob\x00"}}, "X-Auth-User: must not contain a NUL"),
        ({"query_string": "limit=4294967296"}, "limit: must be at most 2147483647"),
    ],
)
def test_the_path_query_and_headers_of_every_route_are_checked(
    client: falcon.testing.TestClient, where: dict[str, Any], expected: str
) -> None:
    path = tenant_path(where.pop("path", "/stacks"))
    result = client.simulate_get(path, **where)
    assert result.status_code == 400, result.text
    assert result.json["error"]["message"].startswith(expected)


def test_a_tenant_longer_than_its_column_is_refused(client: falcon.testing.TestClient) -> None:
    result = client.simulate_get("/v1/" + "t" * 65 + "/stacks")
    assert result.status_code == 400
    assert result.json["error"]["message"] == "tenant_id: must be at most 64 characters, not 65"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"timeout_mins": 1e999}', "body: must hold finite numbers only, not 1e999"),
        (b'{"a": ["\\u0000"]}', "a[0]: must not contain a NUL character (at character 0)"),
        (b'{"a": "\\uDBFF"}', "a: must not contain an unpaired surrogate U+DBFF (at character 0)"),
    ],
)
def test_a_body_is_checked_as_it_is_decoded(
    client: falcon.testing.TestClient, raw: bytes, expected: str
) -> None:
    result = client.simulate_post(tenant_path("/stacks"), body=raw)
    assert result.status_code == 400, result.text
    assert result.json["error"]["message"] == expected


def test_a_surrogate_pair_is_one_character_and_passes() -> None:
    text = '{"a": "\\ud83d\\ude42"}'
    admissible.check_json(text, json.loads(text))


def test_identity_headers_keystonemiddleware_leaves_unset_pass() -> None:
    # auth_token sets X-Domain-Id, X-System-Scope ... of a project-scoped token to None (which
    # falcon's test client refuses to send, so the middleware is called as the app calls it).
    environ = falcon.testing.create_environ(tenant_path("/stacks"))
    environ.update(HTTP_X_DOMAIN_ID=None, HTTP_X_SYSTEM_SCOPE=None)
    request = falcon.Request(environ)
    admissible.AdmissibleRequest().process_request(request, falcon.Response())
    assert request.get_header("X-Domain-Id") is None
