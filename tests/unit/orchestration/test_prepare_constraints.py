"""A stack's parameters are checked by the cloud's custom constraint validators when it is
prepared, and a constraint the cloud layer cannot check is let through (as for properties)."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.conf.settings import LimitSettings
from thermik.errors import ParameterError
from thermik.orchestration.prepare import Checkable, prepare
from thermik.resources import Registry
from thermik.template import Environment, Template
from thermik.template.definitions import Identity

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "key": {"type": "string", "constraints": [{"custom_constraint": "nova.keypair"}]},
        "volume_type": {"type": "string", "constraints": [{"custom_constraint": "cinder.vtype"}]},
    },
}


def keypairs(value: Any) -> str | None:
    return None if value == "mine" else f"The Key ({value}) could not be found."


def run(key: str) -> Any:
    environment = Environment(parameters={"key": key, "volume_type": "fast"})
    return prepare(
        Template.from_document(TEMPLATE),
        environment,
        Identity(),
        Registry(),
        LimitSettings(),
        {"nova.keypair": keypairs},
    )


def test_a_parameter_is_checked_against_the_cloud_when_the_stack_is_prepared() -> None:
    assert run("mine").definition is not None
    with pytest.raises(ParameterError, match=r"parameters\.key: .*The Key \(nope\) could not"):
        run("nope")


def test_a_constraint_without_a_look_up_is_not_checked() -> None:
    checkable = Checkable({"nova.keypair": keypairs})
    assert checkable["cinder.vtype"]("anything") is None
    assert list(checkable) == ["nova.keypair"]
    assert len(checkable) == 1
