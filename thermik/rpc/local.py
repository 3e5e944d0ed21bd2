"""Local mode's link to the engine daemon: the engines' RPC API over a loopback HTTP port.

Local mode has no message bus. The ``thermik`` CLI reads the state directory's database itself,
as ``thermik-api`` workers do, and forwards the runtime's calls (create, converge, cancel,
signal, deployments_changed) to the one engine daemon of that state directory. The methods
are the RPC API's (:mod:`thermik.rpc.api`), answered by the same
:class:`~thermik.rpc.server.EngineEndpoint` and encoded by :mod:`thermik.rpc.codec`, so local and
service mode share one engine API; only the carrier differs: a JSON ``POST`` to
``http://127.0.0.1:PORT/engine/v1/<method>`` carrying a random token.

The daemon writes where it listens, its pid and the token to :data:`ENGINE_FILE` in the state
directory, readable by its user only: whoever can read the file can drive the engine, as
whoever can read the database can.
"""

from __future__ import annotations

import dataclasses
import hmac
import http.client
import json
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

from thermik.delivery.loopback import HttpRequest, HttpResponse, LoopbackServer
from thermik.errors import EngineUnavailable, ThermikError
from thermik.rpc import api, codec

#: The file under the state directory saying where the daemon listens (mode 0600).
ENGINE_FILE = "engine.json"
#: Where the methods are served.
PREFIX = "/engine/v1/"
#: The daemon's own methods, beside the RPC API's.
PING = "ping"
STOP = "stop"


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
    """A fresh random token for a daemon."""
    return secrets.token_urlsafe(32)


class LocalEngineServer:
    """Serves an endpoint's methods (and ``extra`` ones, e.g. ``ping``, ``stop``) on a free
    loopback port to callers that present ``token``; ``touch`` is told of every call."""

    def __init__(
        self,
        endpoint: object,
        token: str,
        extra: Mapping[str, Callable[..., Any]],
        touch: Callable[[], None] = lambda: None,
    ) -> None:
        self._endpoint = endpoint
        self._token = token
        self._extra = dict(extra)
        self._touch = touch
        self._server = LoopbackServer(self.serve)

    def start(self) -> str:
        """Start listening; the base URL."""
        return self._server.start()

    def stop(self) -> None:
        """Stop listening."""
        self._server.stop()

    def serve(self, request: HttpRequest) -> HttpResponse:
        """Answer one call: ``{"token": ..., "kwargs": {...}}`` in, the method's answer out."""
        method = request.path.removeprefix(PREFIX)
        if request.method != "POST" or not request.path.startswith(PREFIX):
            return _json(404, {"message": f"no such method: {request.path}"})
        try:
            call = json.loads(request.body or b"{}")
            token, kwargs = str(call.get("token", "")), dict(call.get("kwargs") or {})
        except (ValueError, AttributeError, TypeError):
            return _json(400, {"message": "the call is not a JSON object"})
        if not hmac.compare_digest(token.encode(), self._token.encode()):
            return _json(403, {"message": "wrong engine token"})
        target = self._method(method)
        if target is None:
            return _json(404, {"message": f"no such method: {method}"})
        self._touch()
        return _json(200, target(**kwargs))

    def _method(self, name: str) -> Callable[..., Any] | None:
        if name in self._extra:
            return self._extra[name]
        if name.startswith("_") or name == "target":
            return None
        method = getattr(self._endpoint, name, None)
        if not callable(method):
            return None
        # The endpoint's methods take oslo.messaging's request context first.
        return lambda **kwargs: method({}, **kwargs)


def _json(status: int, body: Any) -> HttpResponse:
    return HttpResponse(status, {"Content-Type": "application/json"}, json.dumps(body).encode())


class LocalEngineClient:
    """Calls to the local engine daemon: :class:`~thermik.rpc.client.EngineClient`'s contract
    (the engine id is ignored: one daemon drives every stack of the state directory).

    ``reconnect`` is asked for a fresh address when the daemon cannot be reached (it died
    since the address was read); the call is then made once more.
    """

    def __init__(
        self,
        address: EngineAddress,
        timeout: float,
        reconnect: Callable[[], EngineAddress] | None = None,
    ) -> None:
        self.address = address
        self.timeout = timeout
        self._reconnect = reconnect

    def call(self, engine_id: str | None, method: str, **kwargs: Any) -> Any:
        """Call ``method`` on the daemon; its result.

        Raises:
            ThermikError: the engine's refusal, of the engine's own error class.
            EngineUnavailable: the daemon cannot be reached or did not answer in time.
        """
        try:
            answer = self.post(method, kwargs)
        except ConnectionError:
            if self._reconnect is None:
                raise self._unreachable() from None
            self.address = self._reconnect()
            answer = self.post(method, kwargs)
        if api.ERROR in answer:
            raise codec.error_from(answer[api.ERROR])
        return answer.get(api.RESULT)

    def post(self, method: str, kwargs: Mapping[str, Any]) -> Any:
        """One call's raw answer.

        Raises:
            ConnectionError: nothing listens at the address.
            EngineUnavailable: the daemon did not answer in time, or refused the call.
        """
        where = urlsplit(self.address.url)
        connection = http.client.HTTPConnection(
            where.hostname or "127.0.0.1", where.port, timeout=self.timeout
        )
        body = json.dumps({"token": self.address.token, "kwargs": dict(kwargs)})
        try:
            connection.request("POST", PREFIX + method, body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            payload = response.read()
        except TimeoutError:
            raise EngineUnavailable(
                f"The local engine (pid {self.address.pid}) did not answer {method} within "
                f"{self.timeout:g} s; see its log under the state directory"
            ) from None
        finally:
            connection.close()
        if response.status != 200:
            raise ThermikError(
                f"The local engine refused {method} (HTTP {response.status}): "
                f"{payload.decode(errors='replace')[:200]}"
            )
        return json.loads(payload)

    def _unreachable(self) -> EngineUnavailable:
        return EngineUnavailable(
            f"The local engine (pid {self.address.pid}) cannot be reached at {self.address.url}"
        )

    def close(self) -> None:
        """Nothing is held between calls."""
