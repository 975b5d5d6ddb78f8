"""`kb serve`: the knowledge base as a JSON HTTP API (routes: kb/serve/app.py), on uvicorn.

The index is loaded before the socket opens; the line `kb serve: listening on http://HOST:PORT`
is printed once the server accepts connections (with `--port 0`, PORT is the one the system
chose), and /healthz answers from then on. Uvicorn's own reading of X-Forwarded-For is off:
the rate limit decides which proxies to believe (KB_API_TRUSTED_PROXIES).
"""
from __future__ import annotations

from pathlib import Path

from kb.text import say


def serve(host: str = "127.0.0.1", port: int = 8000, guides: Path | str | None = None) -> int:
    import uvicorn

    from kb.diagnosis import open_index
    from kb.serve.app import build_app

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets)
            if self.started:
                bound = self.servers[0].sockets[0].getsockname()[1] if self.servers else port
                print(say("api_listening", host=host, port=bound), flush=True)

    app = build_app(open_index(guides))
    config = uvicorn.Config(app, host=host, port=port, proxy_headers=False, server_header=False,
                            access_log=False, log_level="warning", lifespan="off")
    Server(config).run()  # a port in use: uvicorn says so and exits 1
    return 0
