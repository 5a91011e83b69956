"""A network cable between a browser and a live page's server that a test can pull (``tests/controller/ui``
and ``tests/controller/floor``): a dark network closes no socket, so a page must notice the silence itself."""

from __future__ import annotations

import contextlib
import socket
import threading


class Cable:
    """A TCP hop between the page and the scoreboard that can be pulled: while it is out, every open connection
    stays open but carries nothing, and a new one is accepted and never answered (as a switch port gone dark)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.out = threading.Event()
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = int(self.server.getsockname()[1])
        self.sockets: list[socket.socket] = [self.server]
        threading.Thread(target=self._accept, daemon=True).start()

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
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._carry, args=(source, sink), daemon=True).start()

    def _carry(self, source: socket.socket, sink: socket.socket) -> None:
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
            try:
                sink.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        for each in self.sockets:
            with contextlib.suppress(OSError):
                each.close()
