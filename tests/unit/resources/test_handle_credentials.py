"""What wait condition and Swift signal handles hand out: curl commands, URLs, object names."""

from __future__ import annotations

import shlex

import pytest

from tests.unit.resources.harness import Context
from thermik.errors import PluginError
from thermik.resources.context import StackIdentity
from thermik.resources.handle_credentials import curl_cli
from thermik.resources.handle_signals import api_signal_url
from thermik.resources.swift.signal import handle_object
from thermik.resources.swift.signal_objects import version_prefix


def test_curl_cli_with_a_token_is_heats_command() -> None:
    assert curl_cli("tok", "http://api:8004/v1/p/stacks/s/1/resources/h/signal") == (
        "curl -i -X POST -H 'X-Auth-Token: tok' -H 'Content-Type: application/json' "
        "-H 'Accept: application/json' http://api:8004/v1/p/stacks/s/1/resources/h/signal"
    )


def test_curl_cli_without_a_token_quotes_the_capability_url_for_the_shell() -> None:
    url = "http://127.0.0.1:5/delivery/v1/handle/s/68?temp_url_sig=ab&temp_url_expires=9"
    command = curl_cli(None, url)
    assert command is not None
    assert "X-Auth-Token" not in command
    assert shlex.split(command)[-1] == url
    assert curl_cli(None, None) is None


def test_the_api_signal_url_names_the_stack_user_project_and_quotes_names() -> None:
    stack = StackIdentity(id="sid", name="web", tenant="demo")
    assert api_signal_url("http://api:8004/", "sup", stack, "wait handle") == (
        "http://api:8004/v1/sup/stacks/web/sid/resources/wait%20handle/signal"
    )


def test_swift_versions_are_named_by_the_length_of_the_object_name() -> None:
    assert version_prefix("web-handle-3") == "00cweb-handle-3/"


def test_a_swift_signal_handle_url_must_be_a_tempurl_of_the_stacks_container() -> None:
    ctx = Context()
    good = f"http://swift:8080/v1/AUTH_p/{ctx.stack.id}/web-h-1?temp_url_sig=x&temp_url_expires=1"
    assert handle_object(ctx, good) == "web-h-1"
    with pytest.raises(PluginError, match="its container name is invalid"):
        handle_object(ctx, good.replace(ctx.stack.id, "other"))
    with pytest.raises(PluginError, match="its Swift TempURL path is invalid"):
        handle_object(ctx, good.split("?", maxsplit=1)[0])
    with pytest.raises(PluginError, match="its Swift TempURL path is invalid"):
        handle_object(ctx, "h")
