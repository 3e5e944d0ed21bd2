"""Send one software deployment's result back to the orchestration engine, for the tempest host.

heat-tempest-plugin's ZaqarSignalTransportTest plays the server: it pops the deployment from the
server's Zaqar queue and then runs ``[heat_plugin] heat_config_notify_script`` with its own
Python, as an agent runs heat-agents' ``heat-config-notify``: the deployment (a JSON file, its
``inputs`` a list of ``{name, value}``) as the only argument, the result (JSON) on standard input.
heat-agents' script posts ZAQAR_SIGNAL results with python-zaqarclient's v1 API, which the
zaqarclient of .venv-tempest (4.x, the one os-collect-config installs there) no longer has; this
one sends the same signals with the v2 API. tools/tempest-run.sh points the option at it.

What it sends, by the deployment's inputs:

- ``deploy_signal_id``: the result as the body of an HTTP request (``deploy_signal_verb``, POST
  by default) to that URL (TEMP_URL_SIGNAL, CFN_SIGNAL);
- ``deploy_queue_id``: one message whose body is the result, posted to that queue of Zaqar
  (``messaging`` in the Keystone catalog) as the user of ``deploy_user_id``/``deploy_password``
  in ``deploy_project_id`` (ZAQAR_SIGNAL);
- else ``deploy_auth_url``: the result as a signal of resource ``deploy_resource_name`` of stack
  ``deploy_stack_id`` through the orchestration API, as that user (HEAT_SIGNAL).

Exits 0 when the signal was taken, 1 (with the reason on standard error) otherwise.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Mapping
from typing import IO, Any

#: How long the engine may take to read a ZAQAR_SIGNAL message before Zaqar drops it (seconds).
MESSAGE_TTL = 600
TIMEOUT = 60


def inputs_of(deployment: Mapping[str, Any]) -> dict[str, Any]:
    """The deployment's inputs by name."""
    found: dict[str, Any] = {}
    for item in deployment.get("inputs") or []:
        if isinstance(item, Mapping) and "name" in item:
            found[str(item["name"])] = item.get("value")
    return found


def transport_of(inputs: Mapping[str, Any]) -> str:
    """How the result goes back: ``url``, ``zaqar``, ``heat``, or ``none``."""
    if inputs.get("deploy_signal_id"):
        return "url"
    if inputs.get("deploy_queue_id"):
        return "zaqar"
    if inputs.get("deploy_auth_url"):
        return "heat"
    return "none"


def read_result(stream: IO[str]) -> dict[str, Any]:
    """The result on ``stream``; anything but a JSON object is sent as an empty result, as the
    agent does."""
    try:
        found = json.load(stream)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _session(inputs: Mapping[str, Any]) -> Any:
    from keystoneauth1 import session  # noqa: PLC0415 - only the Keystone transports need it
    from keystoneauth1.identity import v3  # noqa: PLC0415

    auth = v3.Password(
        auth_url=inputs["deploy_auth_url"],
        user_id=inputs["deploy_user_id"],
        password=inputs["deploy_password"],
        project_id=inputs["deploy_project_id"],
    )
    return session.Session(auth=auth, timeout=TIMEOUT)


def _filter(service_type: str, inputs: Mapping[str, Any]) -> dict[str, str]:
    found = {"service_type": service_type, "interface": "public"}
    if inputs.get("deploy_region_name"):
        found["region_name"] = str(inputs["deploy_region_name"])
    return found


def send_to_url(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    """TEMP_URL_SIGNAL / CFN_SIGNAL: the result as the body of a request to the signal URL."""
    import requests  # noqa: PLC0415

    verb = str(inputs.get("deploy_signal_verb") or "POST").upper()
    answer = requests.request(
        verb,
        str(inputs["deploy_signal_id"]),
        data=json.dumps(result),
        headers={"Content-Type": "application/json"},
        timeout=TIMEOUT,
    )
    answer.raise_for_status()


def send_to_queue(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    """ZAQAR_SIGNAL: one message, its body the result, on the deployment's queue."""
    from zaqarclient.queues import client  # noqa: PLC0415

    options = {"os_project_id": inputs["deploy_project_id"]}
    if inputs.get("deploy_region_name"):
        options["os_region_name"] = inputs["deploy_region_name"]
    zaqar = client.Client(
        None,
        version=2,
        conf={"auth_opts": {"backend": "keystone", "options": options}},
        session=_session(inputs),
    )
    queue = zaqar.queue(str(inputs["deploy_queue_id"]), auto_create=False)
    queue.post({"body": dict(result), "ttl": MESSAGE_TTL})


def send_to_resource(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    """HEAT_SIGNAL: the result as a signal of the deployment's resource, through the API."""
    path = f"stacks/{inputs['deploy_stack_id']}/resources/{inputs['deploy_resource_name']}/signal"
    _session(inputs).post(
        path,
        json=dict(result),
        endpoint_filter=_filter("orchestration", inputs),
        headers={"X-Client-Id": str(uuid.uuid4())},
    )


SENDERS = {"url": send_to_url, "zaqar": send_to_queue, "heat": send_to_resource}


def main(argv: list[str], stdin: IO[str]) -> int:
    """Send the result on ``stdin`` for the deployment in file ``argv[1]``."""
    if len(argv) != 2:
        print(f"usage: {argv[0]} DEPLOYMENT_JSON < RESULT_JSON", file=sys.stderr)
        return 1
    result = read_result(stdin)
    try:
        with open(argv[1], encoding="utf-8") as file:
            deployment = json.load(file)
    except (OSError, ValueError) as exc:
        print(f"cannot read the deployment {argv[1]}: {exc}", file=sys.stderr)
        return 1
    inputs = inputs_of(deployment)
    transport = transport_of(inputs)
    if transport == "none":
        print("the deployment names no way to signal (NO_SIGNAL): nothing sent", file=sys.stderr)
        return 0
    try:
        SENDERS[transport](inputs, result)
    except Exception as exc:  # every failure is the script's answer
        print(f"the {transport} signal was not taken: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv, sys.stdin))
