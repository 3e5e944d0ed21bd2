"""Software deployments: applying a config to a server and waiting for its signal.

``OS::Heat::SoftwareDeployment`` and ``StructuredDeployment`` act on one server, the ``...Group``
types on a map of servers (``...Deployments`` are their retired, hidden names). Delivering the
deployment through the server's metadata and collecting the signal is the job of the server
metadata and deployment actors and the delivery backends; that behaviour arrives with them. A
deployment exposes ``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code`` and every output
its config declares, so ``dynamic_attributes`` is set.

``signal_transport`` defaults to ``CFN_SIGNAL`` as Heat's default configuration does; the
delivery layer maps it to the transport actually available.
"""

from __future__ import annotations

from typing import ClassVar

from thermik.resources.constraints import AllowedValues
from thermik.resources.groups import batch_schema
from thermik.resources.pending import PendingPlugin
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)

DEPLOY_ACTIONS = ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")
SIGNAL_TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL")

_COMMON: PropertiesSchema = {
    "config": PropertySchema(
        Type.STRING, "Id of the config to deploy; none deploys nothing.", update_allowed=True
    ),
    "input_values": PropertySchema(
        Type.MAP, "Input name -> value for the config.", update_allowed=True
    ),
    "actions": PropertySchema(
        Type.LIST,
        "Lifecycle actions that trigger the deployment.",
        default=["CREATE", "UPDATE"],
        constraints=(AllowedValues(DEPLOY_ACTIONS),),
        update_allowed=True,
    ),
    "name": PropertySchema(
        Type.STRING, "Name of the derived config shown on the server.", update_allowed=True
    ),
    "signal_transport": PropertySchema(
        Type.STRING,
        "How the server reports completion (NO_SIGNAL completes without waiting).",
        default="CFN_SIGNAL",
        constraints=(AllowedValues(SIGNAL_TRANSPORTS),),
    ),
}
_STRUCTURED: PropertiesSchema = {
    "input_key": PropertySchema(
        Type.STRING,
        "The key that marks an input substitution inside the structured config.",
        default="get_input",
    ),
    "input_values_validate": PropertySchema(
        Type.STRING,
        "STRICT fails when the config refers to an input without a value; LAX does not.",
        default="LAX",
        constraints=(AllowedValues(("LAX", "STRICT")),),
    ),
}
_SERVER = PropertySchema(Type.STRING, "Id of the server to deploy to.", required=True)
_SERVERS = PropertySchema(
    Type.MAP, "Name -> id of the servers to deploy to.", required=True, update_allowed=True
)


def _output(description: str, kind: AttributeType) -> AttributeSchema:
    return AttributeSchema(description, type=kind)


class SoftwareDeployment(PendingPlugin):
    """``OS::Heat::SoftwareDeployment``: one config applied to one server."""

    support_status = SupportStatus(version="2014.1")
    takes_signals = True
    signal_refreshes_metadata = False
    dynamic_attributes = True
    properties_schema: ClassVar[PropertiesSchema] = {"server": _SERVER, **_COMMON}
    attributes_schema: ClassVar[AttributesSchema] = {
        "deploy_stdout": _output("What the config wrote to stdout.", AttributeType.STRING),
        "deploy_stderr": _output("What the config wrote to stderr.", AttributeType.STRING),
        "deploy_status_code": _output("The config's exit code.", AttributeType.STRING),
    }


class StructuredDeployment(SoftwareDeployment):
    """``OS::Heat::StructuredDeployment``: substitutes input values into a structured config."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "server": _SERVER,
        **_COMMON,
        **_STRUCTURED,
    }


_GROUP_UPDATE_POLICY: PropertiesSchema = {
    "rolling_update": batch_schema(with_min_in_service=False, version="7.0.0"),
    "batch_create": batch_schema(with_min_in_service=False, version="7.0.0"),
}


class SoftwareDeploymentGroup(PendingPlugin):
    """``OS::Heat::SoftwareDeploymentGroup``: one config applied to a map of servers."""

    support_status = SupportStatus(version="5.0.0")
    dynamic_attributes = True
    properties_schema: ClassVar[PropertiesSchema] = {"servers": _SERVERS, **_COMMON}
    attributes_schema: ClassVar[AttributesSchema] = {
        "deploy_stdouts": _output("Server name -> its stdout.", AttributeType.MAP),
        "deploy_stderrs": _output("Server name -> its stderr.", AttributeType.MAP),
        "deploy_status_codes": _output("Server name -> its exit code.", AttributeType.MAP),
    }
    update_policy_schema: ClassVar[PropertiesSchema] = _GROUP_UPDATE_POLICY


class StructuredDeploymentGroup(SoftwareDeploymentGroup):
    """``OS::Heat::StructuredDeploymentGroup``: structured deployments to a map of servers."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "servers": _SERVERS,
        **_COMMON,
        **_STRUCTURED,
    }


def _retired(replacement: str) -> SupportStatus:
    return SupportStatus(
        SupportLevel.HIDDEN,
        version="7.0.0",
        message=f"Please use {replacement} instead.",
        previous=SupportStatus(SupportLevel.DEPRECATED, version="2014.2"),
    )


class SoftwareDeployments(SoftwareDeploymentGroup):
    """``OS::Heat::SoftwareDeployments``: the retired name of SoftwareDeploymentGroup."""

    support_status = _retired("OS::Heat::SoftwareDeploymentGroup")


class StructuredDeployments(StructuredDeploymentGroup):
    """``OS::Heat::StructuredDeployments``: the retired name of StructuredDeploymentGroup."""

    support_status = _retired("OS::Heat::StructuredDeploymentGroup")
