"""The ``thermik`` CLI's client of its state directory's engine daemon.

The daemon (:mod:`thermik.cmd.local_engine`) serves Heat's v1 REST API on a loopback port, as
``thermik-api`` does, to callers presenting its random token; the CLI calls it through
:class:`DaemonApi`, the :class:`~thermik.clients.heat_wire.HeatTransport` the remote
orchestration service (:mod:`thermik.remote`) runs over, so local commands and remote ones send
the same requests. The daemon writes where it listens, its pid and the token to
:data:`ENGINE_FILE` in the state directory, readable by its user only (:class:`EngineAddress`).
:func:`manage` calls the daemon's own methods (``ping``, ``stop``).

No keystoneauth here: a loopback call needs none, and local commands start faster without it.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlencode, urlsplit

from thermik.clients.heat_wire import error_of, jsonable, segment
from thermik.errors import EngineUnavailable, ThermikError

#: The file under the state directory saying where the daemon listens (mode 0600).
ENGINE_FILE = "engine.json"
#: Where the daemon's own methods are (:mod:`thermik.api.owner` serves them).
MANAGEMENT_PREFIX = "/engine/v1/"
PING = "ping"
STOP = "stop"
#: Redirects a GET follows (Heat's API redirects a stack's name to its canonical path).
MAX_REDIRECTS = 3
REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclasses.dataclass(frozen=True, slots=True)
class EngineAddress:
    """Where a running engine daemon listens, who it is, and the token it demands."""

    pid: int
    url: str
    token: str
    engine_id: str
    cloud: str | None = None

    def write(self, path: Path) -> None:
        """Record the address in ``path``, readable by the user only, replacing it whole."""
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(dataclasses.asdict(self), out)
        os.replace(partial, path)

    @classmethod
    def read(cls, path: Path) -> Self | None:
        """The address recorded in ``path``; None when there is none (or it is unreadable)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(**data)
        except (OSError, ValueError, TypeError):
            return None


def new_token() -> str:
    """A fresh random token for a daemon (256 bits, in hex)."""
    # Not URL-safe base64: one such token in 64 starts with "-", which the openstack CLI,
    # given "--os-token <token>", takes for an option of its own.
    return secrets.token_hex(32)


@dataclasses.dataclass(frozen=True, slots=True)
class Answer:
    """One HTTP answer of the daemon (``headers`` by lower-case name)."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    def decoded(self) -> Any:
        """The JSON body; None when there is none (or it is not JSON)."""
        if not self.body:
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            return None


def send(
    address: EngineAddress,
    method: str,
    path: str,
    *,
    timeout: float,
    body: bytes | None = None,
    headers: Mapping[str, str] | None = None,
) -> Answer:
    """One request to the daemon at ``address``, with its token.

    Raises:
        ConnectionRefusedError: nothing listens at the address (the request was not sent).
        EngineUnavailable: the daemon did not answer within ``timeout`` or dropped the call.
    """
    where = urlsplit(path if "://" in path else address.url + path)
    target = where.path + (f"?{where.query}" if where.query else "")
    connection = http.client.HTTPConnection(
        where.hostname or "127.0.0.1", where.port, timeout=timeout
    )
    sent = {"X-Auth-Token": address.token, "Accept": "application/json", **(headers or {})}
    try:
        connection.request(method, target, body, sent)
        response = connection.getresponse()
        headers = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, headers, response.read())
    except ConnectionRefusedError:
        raise
    except TimeoutError:
        raise EngineUnavailable(
            f"The local engine (pid {address.pid}) did not answer within {timeout:g} s; "
            "see engine.log under the state directory"
        ) from None
    except (OSError, http.client.HTTPException) as exc:
        raise EngineUnavailable(
            f"The local engine (pid {address.pid}) dropped the call ({type(exc).__name__}); "
            "see engine.log under the state directory"
        ) from None
    finally:
        connection.close()


def manage(address: EngineAddress, name: str, timeout: float) -> Any:
    """Call the daemon's own method ``name`` (``ping``, ``stop``); its answer.

    Raises:
        ConnectionRefusedError: nothing listens at the address.
        EngineUnavailable: it did not answer in time.
        ThermikError: it refused the call (another daemon's token, say).
    """
    answer = send(address, "POST", MANAGEMENT_PREFIX + name, timeout=timeout, body=b"")
    if answer.status != 200:
        raise ThermikError(f"The local engine refused {name} (HTTP {answer.status})")
    return answer.decoded()


class DaemonApi:
    """Heat v1 calls under ``/v1/<project>`` of the daemon, as the user at the terminal.

    ``reconnect`` is asked for a fresh address when nothing listens at the current one (the
    daemon died or was replaced since it was read); the call, never received, is then made
    once more.
    """

    def __init__(
        self,
        address: EngineAddress,
        project: str,
        *,
        user: str | None,
        timeout: float,
        reconnect: Callable[[], EngineAddress] | None = None,
    ) -> None:
        self.address = address
        self.project = project
        self.user = user
        self.timeout = timeout
        self._reconnect = reconnect

    @property
    def root(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"{self.address.url}/v1"

    @property
    def tenant(self) -> str:
        """The project the calls address."""
        return self.project

    @property
    def base_url(self) -> str:
        """Where the project's calls go."""
        return f"{self.root}/{segment(self.project)}"

    def call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """``method`` on ``path`` (under the base URL): the decoded JSON answer."""
        answer = self._send(method, path, body=body, params=params)
        for _ in range(MAX_REDIRECTS):
            location = answer.headers.get("location")
            if method != "GET" or answer.status not in REDIRECTS or not location:
                break
            answer = self._request("GET", location, None, {})
        if answer.status >= 400:
            raise error_of(answer.status, answer.decoded())
        return answer.decoded()

    def location(self, path: str) -> str | None:
        """Where a ``GET`` of ``path`` redirects to (Heat's stack lookup), None if not."""
        answer = self._send("GET", path)
        if answer.status in REDIRECTS:
            return answer.headers.get("location")
        if answer.status >= 400:
            raise error_of(answer.status, answer.decoded())
        return None

    def close(self) -> None:
        """Nothing is held between calls."""

    def _send(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Answer:
        query = urlencode(dict(params or {}), doseq=True)
        target = urlsplit(self.base_url).path + path + (f"?{query}" if query else "")
        headers = {}
        payload = None
        if body is not None:
            payload = json.dumps(body, default=jsonable).encode()
            headers["Content-Type"] = "application/json"
        return self._request(method, target, payload, headers)

    def _request(
        self, method: str, target: str, payload: bytes | None, headers: dict[str, str]
    ) -> Answer:
        if self.user:
            headers = {**headers, "X-Auth-User": self.user}
        # A refused call was never received: once more on the replacement, if there is one.
        attempts = 1 if self._reconnect is None else 2
        for attempt in range(attempts):
            try:
                return self._once(method, target, payload, headers)
            except ConnectionRefusedError:
                if attempt + 1 < attempts and self._reconnect is not None:
                    self.address = self._reconnect()
        raise EngineUnavailable(f"The local engine (pid {self.address.pid}) cannot be reached")

    def _once(
        self, method: str, target: str, payload: bytes | None, headers: dict[str, str]
    ) -> Answer:
        # A redirect names the daemon's absolute URL; only its path is kept, so that a
        # replaced daemon (another port) is still the one asked.
        where = urlsplit(target)
        path = where.path + (f"?{where.query}" if where.query else "")
        return send(
            self.address, method, path, timeout=self.timeout, body=payload, headers=headers
        )
