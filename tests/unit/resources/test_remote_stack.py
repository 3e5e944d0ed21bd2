"""``OS::Heat::Stack`` with a remote ``context``, as far as it is decided without a cloud: what
makes a stack remote, where it lives, the request body, Heat's error words, replacement, and
the validation that asks the request's remote-stack check."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.clients.orchestration import Target, missing_message, split_status
from thermik.errors import InvalidInput, PropertyError
from thermik.resources.context import ValidationContext
from thermik.resources.nested_services import NestedTemplate
from thermik.resources.remote_stack import (
    REMOTE_STACK_CHECK,
    RemoteStackInvalid,
    checked_by,
    is_remote,
    location,
    needs_replacement,
    stack_body,
    target_of,
    validation_message,
)
from thermik.resources.stack import Stack

CHILD = "heat_template_version: 2013-05-23\nresources:\n  r: {type: OS::Heat::None}\n"


@pytest.mark.parametrize(
    ("context", "remote"),
    [
        (None, False),
        ({}, False),
        ({"region_name": ""}, False),
        ({"ca_cert": "PEM", "insecure": True}, False),
        ({"region_name": "RegionTwo"}, True),
        ({"credential_secret_id": "s1"}, True),
    ],
)
def test_a_region_or_a_credential_makes_a_stack_remote(context: Any, remote: bool) -> None:
    assert is_remote({"context": context}) is remote


def test_the_target_is_the_contexts_region_with_its_tls_settings() -> None:
    props = {"context": {"region_name": "R2", "ca_cert": "PEM", "insecure": True}}
    assert target_of(props) == Target(region="R2", ca_cert="PEM", insecure=True)
    assert target_of({"context": None}) == Target(region=None)


def test_errors_name_the_region_or_the_remote_cloud_as_heat_does() -> None:
    assert location({"context": {"region_name": "R2"}}) == 'region "R2"'
    assert location({"context": {"credential_secret_id": "s"}}) == "remote cloud"


def test_the_endpoint_missing_message_is_keystoneauths() -> None:
    # Heat quotes keystoneauth's EndpointNotFound; clients match on these words.
    assert (
        missing_message("public", "DARKHOLE")
        == "public endpoint for orchestration service in DARKHOLE region not found"
    )


@pytest.mark.parametrize(
    ("stack_status", "parts"),
    [
        ("CREATE_IN_PROGRESS", ("CREATE", "PROGRESS")),
        ("UPDATE_COMPLETE", ("UPDATE", "COMPLETE")),
        ("SUSPEND_FAILED", ("SUSPEND", "FAILED")),
        ("", ("", "")),
    ],
)
def test_a_remote_stacks_status_splits_into_its_action_and_status(
    stack_status: str, parts: tuple[str, str]
) -> None:
    # Heat's API shows only stack_status; waiting compares the action and the status.
    assert split_status(stack_status) == parts


def test_heats_words_for_an_unreachable_region_and_a_refused_template() -> None:
    props = {"context": {"region_name": "R2"}}
    assert validation_message(props, "no endpoint", None) == (
        'Cannot establish connection to Heat endpoint at region "R2" due to "no endpoint"'
    )
    assert validation_message(props, None, "The template section is invalid: resource") == (
        'Failed validating stack template using Heat endpoint at region "R2" due to '
        '"ERROR: The template section is invalid: resource"'
    )
    assert validation_message(props, None, None) is None


def test_the_body_carries_template_parameters_files_and_timeout() -> None:
    nested = NestedTemplate({"heat_template_version": "2013-05-23"}, {"f": "x"}, {"p": 1}, 5)
    assert stack_body(nested) == {
        "template": {"heat_template_version": "2013-05-23"},
        "parameters": {"p": 1},
        "files": {"f": "x"},
        "disable_rollback": True,
        "timeout_mins": 5,
    }
    assert "timeout_mins" not in stack_body(NestedTemplate({}, {}, {}, None))


def test_moving_between_regions_or_engines_replaces_the_stack() -> None:
    here = {"context": None}
    one, two = {"context": {"region_name": "R1"}}, {"context": {"region_name": "R2"}}
    assert needs_replacement(one, one) is None
    assert needs_replacement(here, here) is None
    for new, old in ((two, one), (one, here), (here, one)):
        assert needs_replacement(new, old) is not None


def test_a_remote_stack_error_is_its_message_alone_wherever_it_is_found() -> None:
    error = RemoteStackInvalid("Cannot establish connection").at("resources", "my_stack")
    assert isinstance(error, InvalidInput)
    assert str(error) == "Cannot establish connection"
    assert error.path == ("resources", "my_stack")


def props(template: str = CHILD, **context: Any) -> dict[str, Any]:
    return {"template": template, "context": context, "parameters": {"a": "b"}, "timeout": 2}


def test_validation_asks_the_requests_check_with_the_properties_and_body() -> None:
    seen: list[Any] = []

    def check(value: Any) -> str | None:
        seen.append(value)
        return "Failed validating stack template"

    vctx = ValidationContext(custom_constraints={REMOTE_STACK_CHECK: check}, files={"f": "x"})
    with pytest.raises(RemoteStackInvalid, match=r"^Failed validating stack template$"):
        Stack().validate(props(region_name="R2"), vctx)
    ((checked, body),) = seen
    assert checked["context"] == {"region_name": "R2"}
    assert body["files"] == {"f": "x"}
    assert body["parameters"] == {"a": "b"}
    assert body["timeout_mins"] == 2
    assert body["template"]["resources"] == {"r": {"type": "OS::Heat::None"}}


def test_a_local_stack_and_a_request_without_cloud_are_not_checked_remotely() -> None:
    def refuse(value: Any) -> str | None:
        return "asked"

    Stack().validate(props(), ValidationContext(custom_constraints={REMOTE_STACK_CHECK: refuse}))
    Stack().validate(props(region_name="R2"), ValidationContext())
    assert checked_by({})((props(region_name="R2"), {})) is None


def test_a_template_that_is_not_a_mapping_is_refused_before_any_remote_check() -> None:
    with pytest.raises(PropertyError, match="YAML or JSON mapping") as raised:
        Stack().validate(props("- a list"), ValidationContext())
    assert raised.value.path == ("properties", "template")


def test_credentials_of_another_cloud_are_refused_with_their_reason() -> None:
    with pytest.raises(PropertyError, match=r"credential_secret_id .* is not supported") as raised:
        Stack().validate(props(credential_secret_id="s1"), ValidationContext())
    assert raised.value.path == ("properties", "context", "credential_secret_id")
