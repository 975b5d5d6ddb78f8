"""The routes of `kb serve`: the knowledge base as a JSON HTTP API, on Starlette.

- `POST /v1/diagnose` `{text, env?, lang?}`: the Diagnosis, as `kb match --json` prints it (with the
  upstream reports where KB_GITHUB_LOOKUP switches the live look-up on);
- `GET /v1/guides/{id}`: a guide as JSON, or as Markdown (`?format=md` or `Accept: text/markdown`);
- `GET /v1/guides?q=`: the guide list's search; `GET /healthz`; `GET /openapi.json`.

Matching is CPU work: it runs in a worker thread, so health checks keep answering. An error
no guide answers is counted in the unmatched-error queue as the app counts it: only its
redacted, normalised signature is stored (kb.feedback), never the text.
"""
from __future__ import annotations

import json
import logging
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from kb import config
from kb.diagnosis import Index, as_json, configured_lookup, diagnose, look_up, search_guides
from kb.feedback.store import Store, StoreUnavailable
from kb.guides.render import guide_markdown
from kb.serve.limits import BodyLimit, ClientAddress, RateLimit
from kb.serve.openapi import openapi
from kb.text import LANGS, say

log = logging.getLogger("kb.serve")
MAX_RESULTS = 200  # guides one search lists at most


class DiagnoseRequest(BaseModel):
    """The body of POST /v1/diagnose."""

    model_config = ConfigDict(extra="forbid")
    text: str
    env: str | None = None
    lang: Literal["en", "zh"] = "en"

    @field_validator("text", "env")
    @classmethod
    def _encodable(cls, value: str | None) -> str | None:
        # JSON may carry a lone surrogate ("\\ud800"), which no UTF-8 answer could quote back.
        return None if value is None else value.encode("utf-8", "replace").decode("utf-8")


def _lang(request: Request) -> str:
    lang = request.query_params.get("lang", "en")
    return lang if lang in LANGS else "en"


def _error(status: int, key: str, lang: str = "en", **values: object) -> JSONResponse:
    return JSONResponse({"error": say(key, lang, **values)}, status_code=status)


def build_app(index: Index, store: Store | None = None) -> Any:
    """The API over `index`, wrapped in the rate and body limits read from kb.config."""
    store = store if store is not None else Store(timeout=float(config.get("KB_DB_TIMEOUT")))
    lookup = configured_lookup()  # the live look-up of upstream reports, off unless KB_GITHUB_LOOKUP; one cache for all

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "guides": len(index.guides)})

    async def diagnose_route(request: Request) -> Response:
        try:
            body = DiagnoseRequest.model_validate(json.loads(await request.body()))
        except (ValueError, ValidationError) as exc:
            wrong_lang = isinstance(exc, ValidationError) and any(e["loc"] == ("lang",) for e in exc.errors())
            return _error(400, "api_bad_lang" if wrong_lang else "api_bad_json", _lang(request))
        d = await run_in_threadpool(diagnose, index, body.text, body.env, body.lang)
        if not d.answered and d.unmatched:
            await run_in_threadpool(_record_unmatched, store, d.unmatched, body.lang)
        found = await run_in_threadpool(look_up, d, lookup)
        return JSONResponse({**as_json(d, reports=found), "answered": d.answered})

    async def guide(request: Request) -> Response:
        gid = request.path_params["id"].lower()  # ids are lower case; a link may spell one in capitals
        lang = _lang(request)
        if gid not in index.guides:
            return _error(404, "api_no_guide", lang)
        g = index.guides[gid]
        wants_md = request.query_params.get("format") in ("md", "markdown") or \
            "text/markdown" in request.headers.get("accept", "")
        if wants_md:
            return PlainTextResponse(guide_markdown(g, lang), media_type="text/markdown; charset=utf-8")
        return JSONResponse(g.model_dump(mode="json", exclude_none=True))

    async def guides(request: Request) -> Response:
        query = request.query_params.get("q", "")[:200]
        try:
            limit = max(1, min(MAX_RESULTS, int(request.query_params.get("limit", "50"))))
        except ValueError:
            limit = 50
        found = search_guides(index, query, limit)
        return JSONResponse({"query": query, "count": len(found), "guides": found})

    async def openapi_route(request: Request) -> Response:
        return JSONResponse(openapi(DiagnoseRequest.model_json_schema()))

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        if status == 404:
            return _error(404, "api_not_found", _lang(request))
        return JSONResponse({"error": getattr(exc, "detail", "error")}, status_code=status)

    app = Starlette(routes=[
        Route("/healthz", healthz, methods=["GET"]),
        Route("/openapi.json", openapi_route, methods=["GET"]),
        Route("/v1/diagnose", diagnose_route, methods=["POST"]),
        Route("/v1/guides", guides, methods=["GET"]),
        Route("/v1/guides/{id}", guide, methods=["GET"]),
    ], exception_handlers={HTTPException: http_error})
    limited = BodyLimit(app, int(config.get("KB_API_MAX_BODY")))
    return RateLimit(limited, int(config.get("KB_API_RATE_LIMIT")), ClientAddress(config.get("KB_API_TRUSTED_PROXIES")))


def _record_unmatched(store: Store, signature: str, lang: str) -> None:
    try:
        store.record_unmatched(signature, lang)  # redacted again by the store before it is written
    except StoreUnavailable as exc:
        log.warning("unmatched signature not stored: %s", exc)
