"""A network cable between a client and a server on 127.0.0.1 that a test can pull, or make slow
(``tests/controller/ui`` and ``tests/controller/floor``): a dark network closes no socket, so a page must notice
the silence itself; a slow one delivers the server's first bytes late."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class Cable:
    """A TCP hop to the server on ``port`` that can be pulled: while it is out, every open connection stays open but
    carries nothing, and a new one is accepted and never answered (as a switch port gone dark). With ``hold``, what
    the server sends in the first ``hold`` seconds of each connection arrives only then (a slow network)."""

    def __init__(self, port: int, hold: float = 0.0) -> None:
        self.target = port
        self.hold = hold
        self.out = threading.Event()
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = int(self.server.getsockname()[1])
        self.sockets: list[socket.socket] = [self.server]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def address(self) -> str:
        """``HOST:PORT`` of the cable's near end, where the client connects."""
        return f"127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            self.sockets.append(client)
            if self.out.is_set():
                continue  # accepted by the dark port, never answered
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.sockets.append(upstream)
            opened = time.monotonic()
            for source, sink, held_until in ((client, upstream, opened), (upstream, client, opened + self.hold)):
                threading.Thread(target=self._carry, args=(source, sink, held_until), daemon=True).start()

    def _carry(self, source: socket.socket, sink: socket.socket, held_until: float) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                if not self.out.is_set():
                    with contextlib.suppress(OSError):
                        sink.shutdown(socket.SHUT_WR)
                return
            if self.out.is_set():
                continue  # lost on the way
            time.sleep(max(0.0, held_until - time.monotonic()))
            try:
                sink.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        for each in self.sockets:
            with contextlib.suppress(OSError):
                each.close()
