"""The OpenAPI document `kb serve` publishes at /openapi.json. The request body's schema is the
pydantic model the route validates with; the responses' schemas describe what kb.diagnosis
writes (tests/test_serve.py validates real responses against them)."""
from __future__ import annotations

from typing import Any

from kb.diagnosis import TIERS

_STR_OR_NULL = {"type": ["string", "null"]}
_WORDS = {"type": "object", "additionalProperties": {"type": "string"}}
ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
MATCH = {
    "type": "object",
    "required": ["id", "score", "tier", "confidence", "explanation", "title", "status", "scope"],
    "properties": {
        "id": {"type": "string"},
        "score": {"type": "number"},
        "tier": {"enum": list(TIERS), "description": "match and likely answer the paste; triage is a class guide's "
                 "procedure for the error's family, ranked under any specific answer; help and similar do not answer"},
        "confidence": {"enum": list(TIERS), "description": "the same as tier (the field's older name)"},
        "title": {"type": "string"},
        "status": {"enum": ["fixed", "workaround", "unresolved"]},
        "scope": {"enum": ["specific", "class"], "description": "the guide's: one mechanism, or a family of them"},
        "triage": {"type": "object", "description": "for the triage tier: the packages the paste's frames and error name",
                   "required": ["raised_in", "missing", "provider", "versions", "environment_report"]},
        "explanation": {"type": "object", "required": ["text", "reasons"], "properties": {
            "text": {"type": "string"}, "reasons": {"type": "array", "items": {"type": "string"}},
            "signature": {"type": "object"}, "lines": {"type": "array", "items": {"type": "object"}},
            "occurrences": {"type": "integer"}, "context": {"type": "array", "items": {"type": "object"}},
            "values": _WORDS, "causes": {"type": "array", "items": {"type": "object"}}, "likely": {"type": "object"}}},
        "checks": {"type": "object", "description": "with an environment report: each environment check's outcome",
                   "additionalProperties": {"type": "object", "required": ["status"], "properties": {
                       "status": {"enum": ["pass", "fail", "unknown", "reported"]}, "found": _STR_OR_NULL, "reason": {"type": "string"}}}},
        "fit": {"type": "array", "items": {"type": "object"}},
    },
}
DIAGNOSIS = {
    "type": "object",
    "required": ["matches", "root_error", "upstream", "answered"],
    "properties": {
        "matches": {"type": "array", "items": MATCH, "description": "best first"},
        "root_error": {"type": ["object", "null"], "required": ["line", "text", "covered", "triage"], "properties": {
            "line": {"type": "integer"}, "text": {"type": "string"}, "covered": {"type": "boolean"},
            "triage": {"type": "boolean", "description": "nothing answers, and a class guide's triage procedure leads"}}},
        "answered": {"type": "boolean", "description": "a guide answers (the first match is match or likely)"},
        "notes": {"type": "array", "items": {"type": "string"}},
        "note": {"type": "string", "description": "the paste was cut to its head and tail"},
        "environment": {"type": "object"},
        "upstream": {"type": "array", "description": "a search of the issues of each project the paste names, the one "
                     "to report to first", "items": {"type": "object", "required": ["project", "repo", "query", "url"],
                                                     "properties": {"project": {"type": "string"}, "repo": {"type": "string"},
                                                                    "query": {"type": "string"}, "url": {"type": "string"}}}},
        "upstream_reports": {"type": "object", "description": "with KB_GITHUB_LOOKUP on: the first project's reports",
                             "required": ["repo", "query", "error", "reports"], "properties": {
                                 "repo": {"type": "string"}, "query": {"type": "string"}, "error": _STR_OR_NULL,
                                 "reports": {"type": "array", "items": {"type": "object",
                                                                        "required": ["ref", "title", "state", "url"]}}}},
    },
}
GUIDE_LIST = {
    "type": "object", "required": ["query", "count", "guides"],
    "properties": {"query": {"type": "string"}, "count": {"type": "integer"}, "guides": {"type": "array", "items": {
        "type": "object", "required": ["id", "component", "status", "title"],
        "properties": {"id": {"type": "string"}, "component": {"type": "string"}, "status": {"type": "string"},
                       "title": _WORDS}}}},
}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _lang_param() -> dict:
    return {"name": "lang", "in": "query", "schema": {"enum": ["en", "zh"], "default": "en"}}


def openapi(request_schema: dict[str, Any]) -> dict[str, Any]:
    too_many = _json(ERROR, "too many requests from this address this minute (see Retry-After)")
    return {
        "openapi": "3.1.0",
        "info": {"title": "ML-infra troubleshooting knowledge base", "version": "1",
                 "description": "Paste an error, get the guides that answer it and why."},
        "paths": {
            "/v1/diagnose": {"post": {
                "summary": "Rank the guides for a pasted error, with explanations (as `kb match --json`).",
                "requestBody": {"required": True, "content": {"application/json": {"schema": request_schema}}},
                "responses": {"200": _json(DIAGNOSIS, "the diagnosis"), "400": _json(ERROR, "not a valid request body"),
                              "413": _json(ERROR, "the body is over the limit"), "429": too_many}}},
            "/v1/guides": {"get": {
                "summary": "Search the guides (words, a GPU's name).",
                "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}},
                               {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 50}}],
                "responses": {"200": _json(GUIDE_LIST, "the guides found"), "429": too_many}}},
            "/v1/guides/{id}": {"get": {
                "summary": "A guide, as JSON or (format=md, or Accept: text/markdown) as Markdown.",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                               {"name": "format", "in": "query", "schema": {"enum": ["json", "md"]}}, _lang_param()],
                "responses": {"200": {"description": "the guide", "content": {
                    "application/json": {"schema": {"type": "object", "required": ["id", "title"]}},
                    "text/markdown": {"schema": {"type": "string"}}}},
                    "404": _json(ERROR, "no guide with this id"), "429": too_many}}},
            "/healthz": {"get": {"summary": "Whether the server is up, and how many guides it serves.",
                                 "responses": {"200": _json({"type": "object"}, "up")}}},
        },
    }
