"""A TCP proxy for fault injection: forwards every client connection to an
upstream broker and, while chaos is on, cuts connections at random moments —
mid-request, mid-response, idle — with a FIN or a RST.

    proxy = ChaosProxy()                      # listens on 127.0.0.1:<free port>
    proxy.set_upstream("127.0.0.1", broker.port)
    proxy.start_chaos(min_life=0.02, max_life=0.6, response_loss=0.02)
    ...
    proxy.stop_chaos(); proxy.close()

While chaos is on, every connection is cut after a lifetime drawn uniformly
from [min_life, max_life] seconds, and some responses are lost on their way
back (the connection is cut instead) — the case an idempotent producer's
retries exist for: the broker appended, the client never got the answer. A lower bound matters: cutting at a fixed
rate regardless of age can cut every new connection before a client finishes
its handshake (ApiVersions, Metadata, InitProducerId), and nothing progresses.

Clients only reach the broker through the proxy if the broker advertises the
proxy's address (advertised.listeners), since Metadata tells them where to go.
A connection that cannot reach the upstream (the broker is down) is closed at
once, as a refused connection would be.
"""
from __future__ import annotations

import random
import socket
import struct
import threading
import time
from typing import Callable, Optional


class _Link:
    """One client connection and its upstream connection, pumped both ways.

    Closing wakes the two pump threads with shutdown(); the sockets are closed
    only once both threads are out of their recv/send calls — closing an fd
    another thread is blocked on would neither wake it nor send anything to the
    peer, leaving a connection that looks alive but forwards nothing."""

    def __init__(self, client: socket.socket, upstream: socket.socket,
                 lose_response: Callable[[], bool]):
        self.client = client
        self.upstream = upstream
        self.cut_at: Optional[float] = None  # monotonic time chaos cuts it
        # Asked for every chunk from the upstream: true drops it and cuts the
        # connection — the broker did the work, the client never hears of it.
        self._lose_response = lose_response
        self._closing = False
        self._running = 2
        self._lock = threading.Lock()

    def start(self) -> None:
        for src, dst in ((self.client, self.upstream), (self.upstream, self.client)):
            threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if src is self.upstream and self._lose_response():
                    self.close(reset=True)
                    break
                dst.sendall(data)
        except OSError:
            pass
        self.close()
        with self._lock:
            self._running -= 1
            last = self._running == 0
        if last:
            for s in (self.client, self.upstream):
                try:
                    s.close()
                except OSError:
                    pass

    @property
    def closed(self) -> bool:
        return self._closing

    def close(self, reset: bool = False) -> None:
        """With `reset`, the peers get a RST (SO_LINGER 0 at the final close),
        else a FIN."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        for s in (self.client, self.upstream):
            try:
                if reset:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    s.shutdown(socket.SHUT_RD)  # wakes the reader, sends nothing
                else:
                    s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class ChaosProxy:
    def __init__(self, host: str = "127.0.0.1", seed: Optional[int] = None):
        self.host = host
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._upstream: Optional[tuple[str, int]] = None
        self._links: list[_Link] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._chaos_stop = threading.Event()
        self._chaos_thread: Optional[threading.Thread] = None
        self.rng = random.Random(seed)
        self.connections = 0  # client connections accepted
        self.refused = 0      # closed at once: the upstream was down
        self.drops = 0        # connections cut by chaos
        self.responses_lost = 0  # responses dropped (and their connection cut)
        self._response_loss = 0.0
        self._response_rng = random.Random(None if seed is None else seed + 1)
        threading.Thread(target=self._accept_loop, daemon=True).start()

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def set_upstream(self, host: str, port: int) -> None:
        self._upstream = (host, port)

    # --- forwarding ------------------------------------------------------------
    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                if self._stop.is_set():
                    return
                continue
            self.connections += 1
            upstream = None
            try:
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self._upstream is not None:
                    upstream = socket.create_connection(self._upstream, timeout=2.0)
                    upstream.settimeout(None)
                    upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                # The client gave up already, or the broker is down: whatever
                # happens to one connection, the proxy keeps accepting.
                if upstream is not None:
                    upstream.close()
                upstream = None
            if upstream is None:
                self.refused += 1
                client.close()
                continue
            link = _Link(client, upstream, self._maybe_lose_response)
            with self._lock:
                self._links = [lk for lk in self._links if not lk.closed]
                self._links.append(link)
            link.start()

    def _maybe_lose_response(self) -> bool:
        with self._lock:
            lose = self._response_loss > 0 and self._response_rng.random() < self._response_loss
            if lose:
                self.responses_lost += 1
            return lose

    def live_links(self) -> list[_Link]:
        with self._lock:
            return [lk for lk in self._links if not lk.closed]

    def drop_all(self) -> int:
        links = self.live_links()
        for lk in links:
            lk.close()
        return len(links)

    # --- chaos -------------------------------------------------------------------
    def start_chaos(self, min_life: float = 0.02, max_life: float = 0.6,
                    response_loss: float = 0.0) -> None:
        """Cuts each connection (those open now and those to come) after a
        random lifetime in [min_life, max_life] seconds, half of them with a
        RST, half with a FIN; and with probability `response_loss` drops what
        the upstream sends (a chunk of responses) and cuts that connection."""
        self.stop_chaos()
        self._chaos_stop.clear()
        self._life = (min_life, max_life)
        with self._lock:
            self._response_loss = response_loss

        def run() -> None:
            while not self._chaos_stop.wait(0.005):
                now = time.monotonic()
                for lk in self.live_links():
                    if lk.cut_at is None:
                        lk.cut_at = now + self.rng.uniform(*self._life)
                    elif now >= lk.cut_at:
                        lk.close(reset=self.rng.random() < 0.5)
                        self.drops += 1

        self._chaos_thread = threading.Thread(target=run, daemon=True)
        self._chaos_thread.start()

    def stop_chaos(self) -> None:
        with self._lock:
            self._response_loss = 0.0
        self._chaos_stop.set()
        if self._chaos_thread is not None:
            self._chaos_thread.join()
            self._chaos_thread = None
        for lk in self.live_links():
            lk.cut_at = None

    def close(self) -> None:
        self.stop_chaos()
        self._stop.set()
        try:
            # shutdown wakes the accept() blocked in the accept thread.
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self._listener.close()
        except OSError:
            pass
        self.drop_all()

    def __enter__(self) -> "ChaosProxy":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
