"""Heat-format server metadata with ``script`` deployments, delivered through Swift TempURLs.

What Heat's POLL_TEMP_URL + TEMP_URL_SIGNAL transports give a server: a metadata document the
agent GETs from a TempURL, whose ``deployments`` each carry a PUT TempURL as deploy_signal_id.
Used to drive the real agent in tests and benchmarks, independently of Thermik's own code.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from swiftclient import client as swift

from tests.functional.services import SwiftAccount

CONTAINER = "heat"
SERVER = "server-1"


def script_deployment(
    account: SwiftAccount, name: str, script: str, inputs: dict[str, str]
) -> dict[str, Any]:
    """A ``script`` deployment entry (CREATE) whose signal goes to a Swift PUT TempURL."""
    deployment_id = str(uuid.uuid4())
    standard = {
        "deploy_server_id": SERVER,
        "deploy_action": "CREATE",
        "deploy_stack_id": f"stack/{uuid.uuid4()}",
        "deploy_resource_name": name,
        "deploy_signal_transport": "TEMP_URL_SIGNAL",
        "deploy_signal_id": account.temp_url(CONTAINER, f"signal-{deployment_id}", "PUT"),
        "deploy_signal_verb": "PUT",
    }
    return {
        "id": deployment_id,
        "name": name,
        "group": "script",
        "creation_time": "2026-01-01T00:00:00Z",
        "config": script,
        "options": {},
        "inputs": [
            {"name": k, "type": "String", "value": v} for k, v in {**inputs, **standard}.items()
        ],
        "outputs": [{"name": "result", "type": "String", "error_output": False}],
    }


def publish_metadata(account: SwiftAccount, deployments: list[dict[str, Any]]) -> str:
    """Write the server's metadata document (deployments sorted by name, as Heat does) to
    Swift; return the GET TempURL the agent polls."""
    metadata_url = account.temp_url(CONTAINER, SERVER, "GET")
    document = {
        "os-collect-config": {
            "collectors": ["request"],
            "request": {"metadata_url": metadata_url},
        },
        "deployments": sorted(deployments, key=lambda d: d["name"]),
    }
    conn = account.connection()
    conn.put_container(CONTAINER)
    conn.put_object(CONTAINER, SERVER, json.dumps(document))
    return metadata_url


def signal_of(account: SwiftAccount, deployment: dict[str, Any]) -> dict[str, Any] | None:
    """The signal heat-config-notify PUT for ``deployment``, or None before it arrives."""
    try:
        _, body = account.connection().get_object(CONTAINER, f"signal-{deployment['id']}")
    except swift.ClientException as error:
        if error.http_status == 404:
            return None
        raise
    signal: dict[str, Any] = json.loads(body)
    return signal
