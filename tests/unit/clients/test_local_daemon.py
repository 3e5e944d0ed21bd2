"""The CLI's client of its engine daemon, against a real in-process engine served on loopback
the way the daemon serves it (the owner's token, the management methods beside the API)."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.loopback import serve
from thermik import errors
from thermik.api import owner
from thermik.api.app import build_app
from thermik.api.boundary import ListQuery, RequestContext, StackRequest
from thermik.clients import local_daemon as local
from thermik.conf.settings import LimitSettings, Settings
from thermik.remote import RemoteOrchestrator
from thermik.service import build_orchestration_service

TOKEN = "the-daemons-token"
PROJECT = "alices-project"
CTX = RequestContext(tenant=PROJECT)
TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {"word": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}},
    "outputs": {"value": {"value": {"get_attr": ["word", "value"]}}},
}


@pytest.fixture
def daemon_url(tmp_path: Path) -> Iterator[str]:
    service = build_orchestration_service(Settings.embedded(tmp_path))
    api = build_app(service, owner.OwnerContext(TOKEN), LimitSettings())
    methods = {local.PING: lambda: {"pid": os.getpid()}}
    try:
        with serve(owner.with_management(api, TOKEN, methods)) as url:
            yield url
    finally:
        service.close()


def address(url: str, token: str = TOKEN) -> local.EngineAddress:
    return local.EngineAddress(pid=os.getpid(), url=url, token=token, engine_id="e-1")


def orchestrator(url: str, token: str = TOKEN) -> RemoteOrchestrator:
    return RemoteOrchestrator(
        local.DaemonApi(address(url, token), PROJECT, user="alice", timeout=10.0)
    )


def settled(service: RemoteOrchestrator, name: str) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        shown = service.show_stack(CTX, service.identify_stack(CTX, name))
        if shown.status != "IN_PROGRESS":
            return f"{shown.action}_{shown.status}"
        time.sleep(0.05)
    raise AssertionError(f"stack {name} did not settle")


def dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_a_stack_is_created_and_found_through_the_rest_api(daemon_url: str) -> None:
    service = orchestrator(daemon_url)
    made = service.create_stack(CTX, StackRequest(name="words", template=TEMPLATE))
    assert settled(service, "words") == "CREATE_COMPLETE"
    found = service.identify_stack(CTX, "words")
    assert (found.name, found.id) == ("words", made.id)
    shown = service.show_stack(CTX, found)
    assert shown.outputs is not None
    assert len(shown.outputs[0].value) == 8
    listed = service.list_stacks(CTX, ListQuery())
    assert [(s.identity.name, s.owner) for s in listed.items] == [("words", "alice")]


def test_a_missing_stack_is_the_apis_not_found(daemon_url: str) -> None:
    with pytest.raises(errors.NotFound, match="nothing-here"):
        orchestrator(daemon_url).identify_stack(CTX, "nothing-here")


def test_another_token_is_refused(daemon_url: str) -> None:
    with pytest.raises(errors.Unauthorized):
        orchestrator(daemon_url, "a-guess").list_stacks(CTX, ListQuery())
    with pytest.raises(errors.ThermikError, match="refused ping"):
        local.manage(address(daemon_url, "a-guess"), local.PING, timeout=5)


def test_the_management_methods_answer_the_token_holder(daemon_url: str) -> None:
    assert local.manage(address(daemon_url), local.PING, timeout=5) == {"pid": os.getpid()}
    assert local.MANAGEMENT_PREFIX == owner.MANAGEMENT_PREFIX


def test_a_call_to_a_gone_daemon_is_sent_again_to_its_replacement(daemon_url: str) -> None:
    asked: list[bool] = []

    def replacement() -> local.EngineAddress:
        asked.append(True)
        return address(daemon_url)

    api = local.DaemonApi(
        address(dead_url()), PROJECT, user="alice", timeout=10.0, reconnect=replacement
    )
    assert RemoteOrchestrator(api).list_stacks(CTX, ListQuery()).items == ()
    assert asked == [True]
    assert api.address.url == daemon_url


def test_a_gone_daemon_without_a_replacement_is_unavailable() -> None:
    api = local.DaemonApi(address(dead_url()), PROJECT, user=None, timeout=5.0)
    with pytest.raises(errors.EngineUnavailable, match="cannot be reached"):
        RemoteOrchestrator(api).list_stacks(CTX, ListQuery())
    with pytest.raises(ConnectionRefusedError):
        local.manage(address(dead_url()), local.PING, timeout=5)


def test_the_address_file_is_the_users_alone(tmp_path: Path) -> None:
    path = tmp_path / local.ENGINE_FILE
    written = address("http://127.0.0.1:1234")
    written.write(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert local.EngineAddress.read(path) == written
    path.write_text("{not json", encoding="utf-8")
    assert local.EngineAddress.read(path) is None
    assert local.EngineAddress.read(tmp_path / "absent.json") is None


def test_the_cli_loads_no_openstacksdk_to_call_its_daemon() -> None:
    # openstacksdk costs most of a second to import; only the daemon's engine needs it.
    probe = (
        "import sys, thermik.cmd.cli, thermik.remote, thermik.clients.local_daemon;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'openstack'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_token_is_one_argument_on_a_command_line() -> None:
    # "--os-token <token>": a token starting with "-" would be taken for an option.
    tokens = {local.new_token() for _ in range(1000)}
    assert len(tokens) == 1000
    assert not [token for token in tokens if token.startswith("-")]
    assert all(len(token) == 64 and token.isalnum() for token in tokens)
