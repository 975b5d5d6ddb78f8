"""What every request to `kb serve` passes before a route sees it: a body limit enforced while the
body is read, and a rate limit per client address. Both are plain ASGI middleware.

Who the client is and how its requests are counted is kb/limits.py's, shared with the page's
limits on votes, comments and unmatched-queue entries.
"""
from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from kb.limits import ClientAddress as BaseClientAddress
from kb.limits import Windows
from kb.text import say

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

WINDOW = 60.0  # seconds: the rate limit counts requests per minute
EXEMPT = ("/healthz",)  # a load balancer's health checks are not a client's requests


async def send_json(send: Send, status: int, body: dict[str, Any], headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": data})


def _lang(scope: Scope) -> str:
    return "zh" if b"lang=zh" in scope.get("query_string", b"") else "en"


class BodyLimit:
    """413 for a body over `limit` bytes: at once when Content-Length says so, else as soon as the
    bytes read pass it; the rest is never read. A body within the limit is handed on whole."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > self.limit):
            return await self._refuse(scope, send)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return await self.app(scope, _replay([message], receive), send)
            body = message.get("body", b"")
            size += len(body)
            if size > self.limit:
                return await self._refuse(scope, send)
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([whole], receive), send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        await send_json(send, 413, {"error": say("api_too_large", _lang(scope), limit=self.limit)})


def _replay(messages: list[Message], receive: Receive) -> Receive:
    queue = list(messages)

    async def replayed() -> Message:
        return queue.pop(0) if queue else await receive()
    return replayed


class ClientAddress(BaseClientAddress):
    """kb.limits.ClientAddress, read from an ASGI scope."""

    def __call__(self, scope: Scope) -> str:
        peer = (scope.get("client") or ("unknown", 0))[0]
        return self.resolve(peer, [v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-forwarded-for"])


class RateLimit:
    """429 with Retry-After once an address has made `per_minute` requests in the current minute."""

    def __init__(self, app: ASGIApp, per_minute: int, client: ClientAddress,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app, self.per_minute, self.client = app, per_minute, client
        self._windows = Windows(WINDOW, clock)

    def _allow(self, address: str) -> float | None:
        """None when the request may go on; else the seconds until this address may ask again."""
        return self._windows.allow(address, self.per_minute)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.per_minute <= 0 or scope.get("path") in EXEMPT:
            return await self.app(scope, receive, send)
        wait = self._allow(self.client(scope))
        if wait is not None:
            return await send_json(send, 429, {"error": say("api_rate_limited", _lang(scope))},
                                   [(b"retry-after", str(max(1, round(wait))).encode())])
        await self.app(scope, receive, send)
