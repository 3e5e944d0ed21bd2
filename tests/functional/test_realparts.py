"""The real services the functional tests and the demo rely on work, with plain clients only.

Swift (tempauth, account TempURL key, PUT/GET through TempURLs), Zaqar (v2 queues: post, claim,
pop; projects isolated) and the real guest agent: os-collect-config fetches a Heat-format
metadata document from a Swift TempURL, runs each ``script`` deployment exactly once through
heat-agents' hooks, and heat-config-notify PUTs each signal to its deploy_signal_id TempURL.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from swiftclient import client as swift
from zaqarclient.queues import client as zaqar

from tests.functional.deployments import publish_metadata, script_deployment, signal_of
from tests.functional.services import AgentSandbox, SwiftAccount, SwiftEnv, ZaqarEnv, http

pytestmark = pytest.mark.functional

SCRIPT = """#!/bin/sh
echo "$deploy_resource_name" >> "$marker"
echo "hello from $deploy_server_id with colour=$colour"
echo "a warning" >&2
printf '%s' "$colour-result" > "$heat_outputs_path.result"
exit "$exit_code"
"""


def test_swift_tempauth_login_container_and_object(swift_env: SwiftEnv) -> None:
    conn = swift.Connection(swift_env.auth_url, swift_env.user, swift_env.key, auth_version="1")
    storage_url, token = conn.get_auth()
    assert storage_url.endswith("/v1/AUTH_test")
    assert token.startswith("AUTH_")
    container = f"c-{uuid.uuid4().hex}"
    conn.put_container(container)
    conn.put_object(container, "greeting", b"hello")
    _, body = conn.get_object(container, "greeting")
    assert body == b"hello"
    assert conn.head_container(container)["x-container-object-count"] == "1"


def test_swift_rejects_a_wrong_key(swift_env: SwiftEnv) -> None:
    with pytest.raises(swift.ClientException) as caught:
        swift.get_auth(swift_env.auth_url, swift_env.user, "not-the-key", auth_version="1")
    assert caught.value.http_status == 401


def test_swift_tempurl_put_then_get(swift_account: SwiftAccount) -> None:
    conn = swift_account.connection()
    assert conn.head_account()["x-account-meta-temp-url-key"] == swift_account.temp_url_key
    conn.put_container("docs")
    put_url = swift_account.temp_url("docs", "doc.json", "PUT")
    get_url = swift_account.temp_url("docs", "doc.json", "GET")

    status, _, _ = http("PUT", put_url, b'{"v": 1}', {"Content-Type": "application/json"})
    assert status == 201
    status, headers, body = http("GET", get_url)
    assert (status, body) == (200, b'{"v": 1}')
    assert headers["Content-Type"] == "application/json"
    # The agent HEADs before it GETs; a GET signature covers HEAD.
    assert http("HEAD", get_url)[0] == 200
    # A signature is bound to its method, and anything unsigned needs a token.
    assert http("PUT", get_url, b"{}")[0] == 401
    assert http("GET", get_url.split("?")[0])[0] == 401


def test_zaqar_post_claim_and_pop(zaqar_env: ZaqarEnv) -> None:
    client = zaqar.Client(
        zaqar_env.url,
        version=2,
        conf={"auth_opts": {"backend": "noauth", "options": {"os_project_id": "p-claims"}}},
    )
    queue = client.queue(f"q-{uuid.uuid4().hex}")
    queue.post([{"body": {"n": n}, "ttl": 300} for n in range(3)])

    claimed = list(queue.claim(ttl=60, grace=60, limit=2))
    assert sorted(m.body["n"] for m in claimed) == [0, 1]
    for message in claimed:
        message.delete()
    popped = list(queue.pop())
    assert [m.body for m in popped] == [{"n": 2}]
    assert list(queue.pop()) == []


def test_zaqar_raw_http_needs_a_project_and_isolates_projects(zaqar_env: ZaqarEnv) -> None:
    queue_url = f"{zaqar_env.url}/v2/queues/q-{uuid.uuid4().hex}"
    own, other = f"p-{uuid.uuid4().hex}", f"p-{uuid.uuid4().hex}"
    assert http("PUT", queue_url, b"{}", zaqar_env.headers(own))[0] == 201
    message = json.dumps({"messages": [{"body": {"hello": "world"}, "ttl": 300}]}).encode()
    assert http("POST", f"{queue_url}/messages", message, zaqar_env.headers(own))[0] == 201

    no_project = {k: v for k, v in zaqar_env.headers(own).items() if k != "X-Project-ID"}
    assert http("GET", f"{queue_url}/messages?echo=true", headers=no_project)[0] == 400
    status, _, body = http("GET", f"{queue_url}/messages?echo=true", None, zaqar_env.headers(own))
    assert status == 200
    assert [m["body"] for m in json.loads(body)["messages"]] == [{"hello": "world"}]
    # Another project sees no message in a queue of the same name.
    status, _, body = http(
        "GET", f"{queue_url}/messages?echo=true", None, zaqar_env.headers(other)
    )
    assert (status, json.loads(body)["messages"]) == (200, [])


def marked_deployment(
    account: SwiftAccount, name: str, marker: Path, colour: str, exit_code: int
) -> dict[str, Any]:
    """A deployment of SCRIPT that logs its name to ``marker`` and exits with ``exit_code``."""
    inputs = {"marker": str(marker), "colour": colour, "exit_code": str(exit_code)}
    return script_deployment(account, name, SCRIPT, inputs)


def wait_for_signal(
    account: SwiftAccount, deployment: dict[str, Any], sandbox: AgentSandbox
) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        signal = signal_of(account, deployment)
        if signal is not None:
            return signal
        time.sleep(0.2)
    pytest.fail(f"no signal for {deployment['name']} in 60 s:\n{sandbox.log.read_text()[-4000:]}")


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """The file every SCRIPT run appends its deployment's name to."""
    return tmp_path / "ran.log"


def expected_signal(colour: str, exit_code: int) -> dict[str, Any]:
    return {
        "result": f"{colour}-result",
        "deploy_stdout": f"hello from server-1 with colour={colour}\n",
        "deploy_stderr": "a warning\n",
        "deploy_status_code": exit_code,
    }


def test_agent_runs_each_script_once_and_signals_to_swift(
    swift_account: SwiftAccount, agent_sandbox: AgentSandbox, marker: Path
) -> None:
    ok = marked_deployment(swift_account, "10_ok", marker, "blue", 0)
    failing = marked_deployment(swift_account, "20_failing", marker, "red", 3)
    metadata_url = publish_metadata(swift_account, [failing, ok])

    agent_sandbox.run_once(metadata_url)
    assert marker.read_text().splitlines() == ["10_ok", "20_failing"]
    assert signal_of(swift_account, ok) == expected_signal("blue", 0)
    assert signal_of(swift_account, failing) == expected_signal("red", 3)
    # os-apply-config rendered the agent's own config from the document's os-collect-config key.
    rendered = (agent_sandbox.path / "root/etc/os-collect-config.conf").read_text()
    assert f"metadata_url = {metadata_url}" in rendered

    # Another run over the same document deploys nothing again (ids are remembered).
    agent_sandbox.run_once(metadata_url)
    assert marker.read_text().splitlines() == ["10_ok", "20_failing"]


def test_polling_agent_applies_a_deployment_added_later(
    swift_account: SwiftAccount, agent_sandbox: AgentSandbox, marker: Path
) -> None:
    first = marked_deployment(swift_account, "10_first", marker, "green", 0)
    second = marked_deployment(swift_account, "20_second", marker, "amber", 0)
    metadata_url = publish_metadata(swift_account, [first])

    with agent_sandbox.polling(metadata_url, interval=2):
        assert wait_for_signal(swift_account, first, agent_sandbox) == expected_signal("green", 0)
        publish_metadata(swift_account, [first, second])
        assert wait_for_signal(swift_account, second, agent_sandbox) == expected_signal("amber", 0)
    assert marker.read_text().splitlines() == ["10_first", "20_second"]
