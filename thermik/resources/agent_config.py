"""The ``os-collect-config`` section that configures a server's agent (pure).

Every server configured by software deployments carries, in its metadata, a section under
:data:`OCC_KEY` naming the collectors the in-guest ``os-collect-config`` polls and the settings
of the one its ``software_config_transport`` implies. heat-agents' ``os-apply-config`` template
turns that section into ``/etc/os-collect-config.conf``, so the agent follows every change of
it: the server's boot data, the ``os_collect_config`` attribute and every metadata document the
engine delivers use the same builder, :func:`occ_section`.

The settings of each transport are those Heat writes (``heat/engine/resources/server_base.py``):

- ``POLL_SERVER_HEAT``: the ``heat`` collector reads the resource's metadata through the
  orchestration API as the server's stack domain user (:func:`heat_settings`);
- ``POLL_TEMP_URL`` (and Thermik's engine-served URLs): the ``request`` collector GETs
  ``metadata_url`` (:func:`request_settings`);
- ``ZAQAR_MESSAGE``: the ``zaqar`` collector pops the server's queue as the stack domain user
  (:func:`zaqar_settings`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thermik.errors import PropertyError

OCC_KEY = "os-collect-config"
TRANSPORT_SECTIONS = ("heat", "zaqar", "cfn", "request")
"""Collector sections a previous transport may have left; they are kept with null values."""

COLLECTORS = {
    "POLL_SERVER_CFN": "cfn",
    "POLL_SERVER_HEAT": "heat",
    "POLL_TEMP_URL": "request",
    "ZAQAR_MESSAGE": "zaqar",
}
"""The collector of each ``software_config_transport``."""

#: What a Nova server's agent polls before its transport: the cloud's EC2 metadata service.
NOVA_DEFAULT_COLLECTORS = ("ec2",)


def occ_section(
    collector: str,
    settings: Mapping[str, Any],
    *,
    default_collectors: Sequence[str] = (),
    previous: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``os-collect-config`` section for ``collector`` with its ``settings``.

    ``default_collectors`` precede the transport's collector and ``local`` comes last, as in
    Heat. The settings of other transports found in ``previous`` (the section the agent was
    booted with) are kept with null values, so that switching transport overrides them in the
    agent's configuration instead of leaving both collectors configured.
    """
    section = {"collectors": [*default_collectors, collector, "local"], collector: dict(settings)}
    return overriding(previous, section)


def overriding(previous: Mapping[str, Any] | None, section: Mapping[str, Any]) -> dict[str, Any]:
    """``section`` over ``previous``: what ``previous`` sets besides is kept, but the settings
    of its transports are kept with null values (see :func:`occ_section`)."""
    occ: dict[str, Any] = dict(previous or {})
    for name in TRANSPORT_SECTIONS:
        old = occ.get(name)
        if isinstance(old, Mapping):
            occ[name] = dict.fromkeys(old)
    occ.update(section)
    return occ


def _without_unset(values: Mapping[str, str | None]) -> dict[str, str]:
    return {key: value for key, value in values.items() if value is not None}


def _required(values: Mapping[str, str | None], transport: str) -> None:
    missing = [key for key, value in values.items() if not value]
    if missing:
        raise PropertyError(
            f"{transport} needs the server's agent credentials: {', '.join(missing)} missing",
            path=("software_config_transport",),
        )


def heat_settings(
    *,
    auth_url: str,
    user_id: str,
    password: str,
    project_id: str,
    stack_id: str,
    resource_name: str,
    region_name: str | None = None,
) -> dict[str, str]:
    """The ``heat`` collector's settings (``POLL_SERVER_HEAT``).

    ``stack_id`` is the stack's path, ``name/id``; the credentials are the server's stack
    domain user's, ``project_id`` the stack domain project.
    """
    values = {
        "auth_url": auth_url,
        "user_id": user_id,
        "password": password,
        "project_id": project_id,
        "stack_id": stack_id,
        "resource_name": resource_name,
    }
    _required(values, "POLL_SERVER_HEAT")
    return _without_unset({**values, "region_name": region_name})


def zaqar_settings(
    *,
    auth_url: str,
    user_id: str,
    password: str,
    project_id: str,
    queue_id: str,
    region_name: str | None = None,
) -> dict[str, str]:
    """The ``zaqar`` collector's settings (``ZAQAR_MESSAGE``): it logs in to Keystone as the
    server's stack domain user and finds Zaqar (``messaging``) in the token's catalog."""
    values = {
        "auth_url": auth_url,
        "user_id": user_id,
        "password": password,
        "project_id": project_id,
        "queue_id": queue_id,
    }
    _required(values, "ZAQAR_MESSAGE")
    return _without_unset({**values, "region_name": region_name})


def request_settings(metadata_url: str) -> dict[str, str]:
    """The ``request`` collector's settings (``POLL_TEMP_URL``, and the engine-served URL)."""
    if not metadata_url:
        raise PropertyError(
            "POLL_TEMP_URL needs a metadata URL", path=("software_config_transport",)
        )
    return {"metadata_url": metadata_url}


def collector_of(transport: str) -> str:
    """The collector that implements ``transport``.

    Raises:
        PropertyError: an unknown transport.
    """
    try:
        return COLLECTORS[transport]
    except KeyError:
        raise PropertyError(
            f"unknown software_config_transport {transport!r}: one of {', '.join(COLLECTORS)}",
            path=("software_config_transport",),
        ) from None
