"""``thermik --os-endpoint URL`` and ``thermik --remote --os-cloud NAME``: the CLI as a client
of a remote Thermik or Heat service.

The stack commands then go over the service's Heat v1 REST API
(:class:`thermik.remote.RemoteOrchestrator`): no engine runs and no database is opened here.
Who calls is, in this order: ``--os-token`` (with ``--os-endpoint``); else the cloud of
``--os-cloud`` (or the OS_* variables), whose Keystone authenticates the caller and whose
catalog names the orchestration endpoint unless ``--os-endpoint`` does; else nobody (a
keystone-less ``thermik-api``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from thermik.conf.settings import ENVIRONMENT_CLOUD
from thermik.errors import InvalidInput

if TYPE_CHECKING:
    from thermik.clients.heat_api import RemoteTarget


def add_remote_options(parser: argparse.ArgumentParser) -> None:
    """The global options that make the CLI a client of a remote service."""
    parser.add_argument(
        "--os-endpoint",
        dest="os_endpoint",
        default=None,
        metavar="URL",
        help="Act on the stacks of the Thermik or Heat service at this orchestration "
        "endpoint (http://HOST:PORT/v1/PROJECT) instead of the local engine.",
    )
    parser.add_argument(
        "--os-token",
        dest="os_token",
        default=os.environ.get("OS_TOKEN"),
        metavar="TOKEN",
        help="Keystone token to call --os-endpoint with (default: $OS_TOKEN; without it, "
        "the cloud of --os-cloud authenticates, else no token is sent).",
    )
    parser.add_argument(
        "--remote",
        action="store_true",
        help="Act on the stacks of the orchestration service of --os-cloud's catalog "
        "instead of the local engine.",
    )


def remote_target(
    options: argparse.Namespace,
    environ: Mapping[str, str],
    config_file: str | None = None,
) -> RemoteTarget | None:
    """Where the remote service is and who calls it; None: no remote, the local engine."""
    endpoint = options.os_endpoint
    if not endpoint and not options.remote:
        return None
    # Only now: the client layer loads openstacksdk, which local commands need not wait for.
    from thermik.clients.heat_api import RemoteTarget  # noqa: PLC0415

    cloud = options.os_cloud or (ENVIRONMENT_CLOUD if environ.get("OS_AUTH_URL") else None)
    if endpoint and options.os_token:
        return RemoteTarget(endpoint=endpoint, token=options.os_token, project=options.project)
    if not endpoint and not cloud:
        raise InvalidInput(
            "--remote needs a cloud whose catalog names the orchestration service: give "
            "--os-cloud NAME (or set the OS_* variables), or --os-endpoint URL"
        )
    config_file = config_file or environ.get("OS_CLIENT_CONFIG_FILE")
    return RemoteTarget(
        endpoint=endpoint, cloud=cloud, config_file=config_file, project=options.project
    )
