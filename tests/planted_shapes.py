"""The planted secrets (tests/planted_secrets.py) in the other shapes a paste gives them.

Each shape turns one planted error line into a paste, the way a real log carries a secret:
wrapped by a console, inside a JSON log record, percent-encoded in an access-log line,
base64-encoded, printed twice (once with the context a rule reads, once bare), behind a Chinese
keyword, in a URL's query, in a locals dump, in a frame's source line. `tests/test_leak_shapes.py`
sends every (secret, shape) through every place text is stored or offered.
"""
from __future__ import annotations

import base64
import json
from collections.abc import Callable
from urllib.parse import quote

from tests.planted_secrets import CORPUS, Planted

WIDTH = 80  # the console width a wrapped line is cut at


def _wrapped(p: Planted) -> str | None:
    """The line as a console prints it, cut every WIDTH characters, so that the longest secret
    runs across a cut: the line is padded in front until it does."""
    secret = max(p.secrets, key=len)
    if len(secret) < 12:
        return None  # a short name is not cut by a wrap in practice
    at = p.line.index(secret)
    pad = (WIDTH - (at + len(secret) // 2) % WIDTH) % WIDTH
    text = " " * pad + p.line
    return "\n".join(text[i:i + WIDTH] for i in range(0, len(text), WIDTH))


def _json_record(p: Planted) -> str:
    record = {"asctime": "2026-12-07 10:00:01", "levelname": "ERROR", "name": "vllm.engine",
              "message": "Exception in request handler",
              "exc_info": "Traceback (most recent call last):\n  File \"/app/server.py\", line 42, in handle\n"
                          "    result = await call()\n" + p.line}
    return json.dumps(record)


def _access_log(p: Planted) -> str:
    return (f'INFO:     10.0.0.5:51234 - "GET /v1/debug?last_error={quote(p.line, safe="")} HTTP/1.1" 500 '
            "Internal Server Error")


def _base64(p: Planted) -> str:
    blob = base64.b64encode(p.line.encode()).decode()
    return f"ValueError: could not parse the job payload {blob}"


def _twice(p: Planted) -> str:
    secret = max(p.secrets, key=len)
    return f"{p.line}\nRuntimeError: retry 3 of 3 failed for {secret}"


def _chinese(p: Planted) -> str | None:
    secret = max(p.secrets, key=len)
    if len(secret) < 8:
        return None  # user and host names are not credentials behind a keyword
    return f"RuntimeError: 连接服务器失败，密钥：{secret}，请检查配置"


def _chinese_password(p: Planted) -> str | None:
    secret = max(p.secrets, key=len)
    return None if len(secret) < 8 else f"ValueError: 登录失败 密码={secret}"


def _query_key(p: Planted) -> str | None:
    secret = max(p.secrets, key=len)
    if len(secret) < 8 or any(c in secret for c in "&# \"'"):
        return None
    return f"requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://api.example.com/v1/embed?key={secret}&model=e5"


def _locals(p: Planted) -> str | None:
    """A quoted random-looking value in a locals dump, with no keyword (the scanner's promise)."""
    from kb.feedback.scanner import random_looking
    secret = max(p.secrets, key=len)
    if not random_looking(secret) or any(c in secret for c in "'\"\\"):
        return None
    return f"ValueError: request rejected\n  locals: {{'self': <Client object at 0x7f3a>, 'value': '{secret}', 'retries': 3}}"


def _frame_source(p: Planted) -> str:
    return ('Traceback (most recent call last):\n  File "/app/train.py", line 12, in <module>\n'
            f"    run(config)  # failed with: {p.line}\n{p.line}")


def _crlf(p: Planted) -> str:
    return f"INFO starting\r\n{p.line}\r\nINFO exiting\r\n"


def _in_quotes_escaped(p: Planted) -> str:
    """A log record's message field as JSON inside JSON (an orchestrator's event log)."""
    return json.dumps({"event": json.dumps({"error": p.line})})


SHAPES: dict[str, Callable[[Planted], str | None]] = {
    "plain": lambda p: p.line,
    "crlf": _crlf,
    "wrapped": _wrapped,
    "json-exc-info": _json_record,
    "json-in-json": _in_quotes_escaped,
    "access-log-percent": _access_log,
    "base64": _base64,
    "twice": _twice,
    "chinese-key": _chinese,
    "chinese-password": _chinese_password,
    "url-query-key": _query_key,
    "locals-dump": _locals,
    "frame-source": _frame_source,
}


def shaped() -> list[tuple[str, Planted, str]]:
    """(shape, planted line, paste) for every planted line in every shape that applies to it."""
    out = []
    for p in CORPUS:
        for name, shape in SHAPES.items():
            paste = shape(p)
            if paste is not None:
                out.append((name, p, paste))
    return out
