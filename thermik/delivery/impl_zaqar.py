"""``zaqar``: ZAQAR_MESSAGE delivery and ZAQAR_SIGNAL collection through OpenStack Zaqar (v2).

Each server gets a queue ``<prefix>-<server_id>``; every change of its document is posted as one
message carrying the whole document with the configured TTL. Ordering does not matter: the
agent pops messages and runs each derived config id once, so an older message can never take
away a deployment it has already seen. The agent's ``zaqar`` collector logs in to Keystone with
the credentials in :attr:`~thermik.delivery.base.ServerRef.credentials`.

"Served now" (:meth:`ZaqarBackend.read_back`) is the newest document still queued, or, once the
agent has popped everything, the last document this backend posted. Each deployment action
gets its own signal queue plus a pre-signed URL (POST on ``messages``) stored in its locator;
:meth:`ZaqarBackend.collect_signals` pops it.

A server whose agent has Keystone credentials of its own (an ``OS::Nova::Server``'s stack
domain user) gets its queue in that user's project, and the engine creates it, posts to it and
deletes it *as that user* (a Zaqar behind Keystone gives a queue to the project of the token, as
Heat's Zaqar push does); the Keystone session is kept per agent. A deployment
action whose :attr:`~thermik.delivery.base.DeploymentRef.credentials` log in to Keystone gets its
signal queue there too: heat-config-notify posts to it as that user, the engine pops it as that
user. Everything else (servers without credentials, other signal queues) uses the engine's own
client: the ``noauth`` backend with ``[zaqar] project_id`` (a Keystone-less Zaqar trusts
``X-Project-ID``).

:class:`CatalogZaqarBackend` (``zaqar-catalog``) is the same delivery without a configured
Zaqar: every queue is reached as its agent, through the ``messaging`` endpoint of the agent's
Keystone catalog (in its ``region_name``), as Heat reaches Zaqar. The composition root puts it
beside an engine's configured backend when that one offers no Zaqar, so that servers with a
stack user of their own get ``ZAQAR_MESSAGE`` and their deployments ``ZAQAR_SIGNAL``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any, Self

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3 as ks_v3
from zaqarclient import errors as zaqar_errors
from zaqarclient.queues import client as zaqar_client
from zaqarclient.transport import errors as zaqar_transport

from thermik.conf.settings import Settings, ZaqarSettings
from thermik.delivery.base import (
    DeliveryBackend,
    DeploymentRef,
    MetadataEndpoint,
    PublishResult,
    ServerRef,
    SignalEndpoint,
)
from thermik.delivery.client_errors import status_error, transport_error
from thermik.delivery.document import decode_signal, generation_of
from thermik.errors import (
    ConfigError,
    DeliveryError,
    DeliveryRejected,
    DeliveryTargetMissing,
    InvalidSignal,
)

_QUEUE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_AGENT_KEYS = ("auth_url", "user_id", "password", "project_id", "region_name")
_SIGNAL_INPUTS = {
    "auth_url": "deploy_auth_url",
    "username": "deploy_username",
    "user_id": "deploy_user_id",
    "password": "deploy_password",
    "project_id": "deploy_project_id",
    "region_name": "deploy_region_name",
}
_POP_BATCH = 10
#: The agent credentials a queue of the agent's own project is reached with.
_LOGIN_KEYS = ("auth_url", "user_id", "password", "project_id")
#: The signal inputs a signal queue of an agent's own project is reached with, by agent key.
_LOGIN_INPUTS = {key: _SIGNAL_INPUTS[key] for key in (*_LOGIN_KEYS, "region_name")}
#: Locator key of an endpoint whose queue is reached as its agent.
_AS_AGENT = "as_agent"
LOG = logging.getLogger(__name__)


@contextlib.contextmanager
def map_zaqar_errors(action: str = "Zaqar request") -> Iterator[None]:
    """Convert zaqarclient, keystoneauth1, requests and socket errors into DeliveryErrors."""
    try:
        yield
    except zaqar_transport.TransportError as exc:
        raise status_error(exc.code)(f"{action} failed: {exc}") from exc
    except (zaqar_errors.DriverLoadFailure, zaqar_errors.UnsupportedVersion) as exc:
        raise DeliveryRejected(f"{action} failed: {exc}") from exc
    except zaqar_errors.ZaqarError as exc:
        raise DeliveryError(f"{action} failed: {exc}") from exc
    except Exception as exc:
        kind = transport_error(exc)
        if kind is None:
            raise
        raise kind(f"{action} failed: {exc}") from exc


def logs_in(agent: Mapping[str, Any]) -> bool:
    """Whether the agent settings or credentials ``agent`` log in to Keystone."""
    return all(agent.get(key) for key in _LOGIN_KEYS)


def agent_of_inputs(inputs: Mapping[str, str]) -> dict[str, str]:
    """The agent credentials a ZAQAR_SIGNAL endpoint's ``inputs`` carry (heat-config-notify
    logs in with them), keyed as agent settings are."""
    return {key: inputs[name] for key, name in _LOGIN_INPUTS.items() if inputs.get(name)}


def queue_name(prefix: str, *parts: str) -> str:
    """A valid Zaqar queue name for ``parts`` (hashed when they would not fit or are unsafe)."""
    name = "-".join((prefix, *parts))
    if _QUEUE_NAME.match(name):
        return name
    return f"{prefix}-{hashlib.sha256(name.encode()).hexdigest()[:40]}"


class ZaqarBackend(DeliveryBackend):
    """Delivery through Zaqar queues."""

    name = "zaqar"
    config_transport = "ZAQAR_MESSAGE"
    signal_transport = "ZAQAR_SIGNAL"

    def __init__(
        self, settings: ZaqarSettings, *, prefix: str = "thermik", max_signal_size: int = 1048576
    ) -> None:
        self._settings = settings
        self._prefix = prefix
        self._max_signal_size = max_signal_size
        self._client = self._engine_client(settings)
        self._lock = threading.Lock()
        self._last_posted: dict[str, Mapping[str, Any]] = {}
        self._agent_clients: dict[tuple[str, ...], Any] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        return cls(settings.zaqar, max_signal_size=settings.delivery.max_signal_size)

    def _engine_client(self, settings: ZaqarSettings) -> Any:
        """The engine's own client of the configured Zaqar (``noauth``)."""
        if not settings.url:
            raise ConfigError("is required for the zaqar delivery backend", path=("zaqar", "url"))
        return zaqar_client.Client(
            settings.url,
            version=2,
            conf={
                "auth_opts": {
                    "backend": "noauth",
                    "options": {"os_project_id": settings.project_id},
                }
            },
        )

    def _queue(self, name: str, *, create: bool = False, client: Any = None) -> Any:
        with map_zaqar_errors(f"opening queue {name}"):
            return (client or self._client).queue(name, auto_create=False, force_create=create)

    def _client_for(self, agent: Mapping[str, Any]) -> Any:
        """The client acting as the agent whose settings are ``agent`` (its own project's
        queues), or the engine's own when the agent has no Keystone credentials."""
        if not logs_in(agent):
            if self._client is None:
                raise DeliveryRejected(
                    "a queue reached through Keystone's catalog needs the agent's Keystone "
                    "credentials (auth_url, user_id, password, project_id)"
                )
            return self._client
        region = str(agent.get("region_name") or "")
        key = (*(str(agent[k]) for k in _LOGIN_KEYS), region)
        with self._lock:
            found = self._agent_clients.get(key)
        if found is not None:
            return found
        auth = ks_v3.Password(auth_url=key[0], user_id=key[1], password=key[2], project_id=key[3])
        options = {"os_project_id": key[3]}
        if region:  # where the catalog's messaging endpoint is looked up (no configured URL)
            options["os_region_name"] = region
        made = zaqar_client.Client(
            self._settings.url or None,
            version=2,
            conf={"auth_opts": {"backend": "keystone", "options": options}},
            session=ks_session.Session(auth=auth),
        )
        with self._lock:
            return self._agent_clients.setdefault(key, made)

    def _endpoint_client(self, endpoint: MetadataEndpoint | SignalEndpoint) -> Any:
        if not endpoint.locator.get(_AS_AGENT):
            return self._client
        if isinstance(endpoint, MetadataEndpoint):
            return self._client_for(endpoint.collector_settings)
        return self._client_for(agent_of_inputs(endpoint.inputs))

    def provision(self, server: ServerRef) -> MetadataEndpoint:
        name = queue_name(self._prefix, server.server_id)
        client = self._client_for(server.credentials)
        self._queue(name, create=True, client=client)
        locator = {"queue": name}
        if client is not self._client:
            locator[_AS_AGENT] = "1"
        settings: dict[str, Any] = {
            key: server.credentials[key] for key in _AGENT_KEYS if key in server.credentials
        }
        if self._client is not None:
            settings.setdefault("project_id", self._settings.project_id)
        settings["queue_id"] = name
        return MetadataEndpoint(
            backend=self.name,
            server_id=server.server_id,
            collector="zaqar",
            collector_settings=settings,
            locator=locator,
        )

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        name = endpoint.locator["queue"]
        message = {"body": dict(document), "ttl": self._settings.message_ttl}
        with map_zaqar_errors(f"posting to queue {name}"):
            self._queue(name, client=self._endpoint_client(endpoint)).post(message)
        with self._lock:
            self._last_posted[name] = document
        return PublishResult(True, 201)

    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        name = endpoint.locator["queue"]
        with map_zaqar_errors(f"listing queue {name}"):
            bodies = [
                m.body
                for m in self._queue(name, client=self._endpoint_client(endpoint)).messages(
                    echo=True
                )
                if isinstance(m.body, Mapping)
            ]
        if bodies:
            newest: Mapping[str, Any] = max(bodies, key=generation_of)
            return newest
        with self._lock:
            return self._last_posted.get(name)

    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        name = queue_name(self._prefix, "signal", deployment.deployment_id, deployment.config_id)
        client = self._client_for(deployment.credentials)
        queue = self._queue(name, create=True, client=client)
        locator = {"queue": name}
        if client is self._client:  # a queue of the engine's project: signed for the agent
            with map_zaqar_errors(f"signing queue {name}"):
                signed = queue.signed_url(paths=["messages"], methods=["POST"])
            locator["signed_url"] = json.dumps(signed, sort_keys=True)
        else:
            locator[_AS_AGENT] = "1"
        inputs = {
            _SIGNAL_INPUTS[key]: value
            for key, value in deployment.credentials.items()
            if key in _SIGNAL_INPUTS
        }
        inputs["deploy_queue_id"] = name
        return SignalEndpoint(
            backend=self.name,
            deployment_id=deployment.deployment_id,
            transport="ZAQAR_SIGNAL",
            inputs=inputs,
            locator=locator,
        )

    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        """Pop every queued signal; a malformed one is skipped (logged) unless all are, which
        raises InvalidSignal: a popped message cannot be put back."""
        name = endpoint.locator["queue"]
        bodies: list[Any] = []
        queue = self._queue(name, client=self._endpoint_client(endpoint))
        while True:
            with map_zaqar_errors(f"popping queue {name}"):
                batch = [message.body for message in queue.pop(count=_POP_BATCH)]
            bodies.extend(batch)
            if len(batch) < _POP_BATCH:
                break
        payloads: list[Mapping[str, Any]] = []
        invalid: list[InvalidSignal] = []
        for body in bodies:
            try:
                raw = body if isinstance(body, Mapping) else str(body)
                payloads.append(decode_signal(raw, self._max_signal_size))
            except InvalidSignal as exc:
                invalid.append(exc)
        if invalid and not payloads:
            raise invalid[-1]
        for skipped in invalid:
            LOG.warning("skipped a malformed signal on queue %s: %s", name, skipped)
        return payloads

    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        name = endpoint.locator["queue"]
        with (
            contextlib.suppress(DeliveryTargetMissing),
            map_zaqar_errors(f"deleting queue {name}"),
        ):
            self._queue(name, client=self._endpoint_client(endpoint)).delete()
        with self._lock:
            self._last_posted.pop(name, None)


class CatalogZaqarBackend(ZaqarBackend):
    """ZAQAR_MESSAGE and ZAQAR_SIGNAL as the agents, through their Keystone catalog's Zaqar.

    It serves only servers (and signals only deployment actions) whose credentials log in to
    Keystone; ``[zaqar] url`` is ignored, ``[zaqar] message_ttl`` applies.
    """

    name = "zaqar-catalog"

    def _engine_client(self, settings: ZaqarSettings) -> Any:
        return None

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        plain = dataclasses.replace(settings.zaqar, url=None)
        return cls(plain, max_signal_size=settings.delivery.max_signal_size)
