"""Counting a client's requests: who the client is, and how many it made in the current window.

One implementation for every limit the project sets: `kb serve`'s requests a minute
(kb/serve/limits.py) and the page's votes, comments and unmatched-queue entries an hour
(kb/feedback/votes.py, components/feedback.py).

The client address is the connection's peer, except when that peer is a configured trusted
proxy (KB_API_TRUSTED_PROXIES): then it is the last address in `X-Forwarded-For` that is not a
trusted proxy, i.e. the one the first trusted proxy saw. An address a client writes into the
header itself is never believed, so no one escapes a limit by inventing one.

This module imports nothing of the project: every layer may count.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from ipaddress import ip_address, ip_network

MAX_TRACKED = 100_000  # keys remembered at once; past that, finished windows are forgotten


def _networks(proxies: Iterable[str]):
    out = []
    for p in proxies:
        try:
            out.append(ip_network(p, strict=False))
        except ValueError:
            raise ValueError(f"KB_API_TRUSTED_PROXIES: {p!r} is not an address or a network") from None
    return out


class ClientAddress:
    """The client's address, believing X-Forwarded-For only from trusted proxies."""

    def __init__(self, trusted: Iterable[str]) -> None:
        self.trusted = _networks(trusted)

    def _is_trusted(self, address: str) -> bool:
        try:
            ip = ip_address(address.strip())
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    def resolve(self, peer: str, forwarded: Iterable[str]) -> str:
        """`peer`: the connection's address; `forwarded`: every X-Forwarded-For header's value."""
        if not self.trusted or not self._is_trusted(peer):
            return peer
        hops = [h.strip() for value in forwarded for h in value.split(",") if h.strip()]
        for hop in reversed(hops):  # each trusted proxy appended the address it saw
            if not self._is_trusted(hop):
                return hop
        return hops[0] if hops else peer


class Windows:
    """Per key, how many events in the current fixed window of `window` seconds."""

    def __init__(self, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.window, self.clock = window, clock
        self._windows: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str, limit: int) -> float | None:
        """Count one event for `key`: None when it is within `limit` (`0`: no limit); else the
        seconds until the key may try again (the refused event is not counted)."""
        if limit <= 0:
            return None
        now = self.clock()
        with self._lock:
            start, count = self._windows.get(key, (now, 0))
            if now - start >= self.window:
                start, count = now, 0
            if count >= limit:
                return self.window - (now - start)
            self._windows[key] = (start, count + 1)
            if len(self._windows) > MAX_TRACKED:
                self._windows = {k: w for k, w in self._windows.items() if now - w[0] < self.window}
        return None
