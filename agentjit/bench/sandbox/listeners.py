"""Loopback TCP listeners: the escape detector for a plan that reaches the network."""

from __future__ import annotations

import socket


class Listeners:
    """Loopback TCP listeners, one per plan; a connection queues in the backlog until judged.

    No thread is needed: the kernel completes a loopback handshake against a
    listening socket by itself, and :meth:`hits` drains the backlog.
    """

    def __init__(self) -> None:
        self._socks: dict[int, socket.socket] = {}

    def open(self) -> int:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        s.setblocking(False)
        port = s.getsockname()[1]
        self._socks[port] = s
        return int(port)

    def hits(self, port: int) -> int:
        s = self._socks.get(port)
        n = 0
        while s is not None:
            try:
                conn, _ = s.accept()
            except (BlockingIOError, OSError):
                break
            conn.close()
            n += 1
        return n

    def close(self, port: int) -> None:
        s = self._socks.pop(port, None)
        if s is not None:
            s.close()

    def close_all(self) -> None:
        for port in list(self._socks):
            self.close(port)

