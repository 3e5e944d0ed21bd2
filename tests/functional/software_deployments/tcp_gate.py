"""A loopback TCP forwarder that can be shut and opened again: a service that goes down (its
port refuses connections, open connections are cut) and comes back on the same address."""

from __future__ import annotations

import contextlib
import socket
import threading


def _pump(source: socket.socket, target: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while chunk := source.recv(65536):
            target.sendall(chunk)
    for sock in (source, target):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class TcpGate:
    """Forwards ``127.0.0.1:<port>`` to ``target`` while open."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port: int = probe.getsockname()[1]
        self._listener: socket.socket | None = None
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()

    def open(self) -> None:
        """Accept connections again."""
        listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = listener.accept()
                with self._lock:
                    if self._listener is not listener:
                        # Accepted while the gate was being shut: the service is down now.
                        client.close()
                        return
                    server = socket.create_connection(self.target)
                    self._open += [client, server]
                for a, b in ((client, server), (server, client)):
                    threading.Thread(target=_pump, args=(a, b), daemon=True).start()

    def shut(self) -> None:
        """Refuse new connections and cut the open ones."""
        with self._lock:
            listener, self._listener = self._listener, None
            cut, self._open = self._open, []
        if listener is not None:
            # Closing alone does not wake a thread blocked in accept(); shutdown does.
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock in cut:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
