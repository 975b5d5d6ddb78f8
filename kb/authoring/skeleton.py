"""`kb new --from-error`: a guide skeleton whose signatures are proposed from the paste.

The skeleton leaves the page as a download, so the error text in it is redacted, each line
before it is templated or cut (a cut through a token leaves a piece no rule recognises).
"""
from __future__ import annotations

import datetime as dt
import json

from kb.engine.parse import MAX_DISTINCT_ERRORS, Paste
from kb.engine.roots import RootError, root_error
from kb.engine.signature import TemplateError, compile_template, propose_template
from kb.feedback.redact import known_in, redact


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def proposals(paste: Paste, k: int = 3, root: RootError | None = None, known: list | None = None) -> list[str]:
    """Templates for the paste's root error first, then for its other error lines."""
    out: list[str] = []
    tried: set[str] = set()
    if known is None:
        known = known_in(paste.text)  # a secret found anywhere in the paste goes from every line
    lines = ([root.text] if root is not None else []) + [paste.lines[e.index].text for e in paste.errors]
    for text in lines:
        # A line repeated 100,000 times is proposed once; and only so many distinct ones are tried.
        if text in tried:
            continue
        if len(tried) >= MAX_DISTINCT_ERRORS:
            break
        tried.add(text)
        tpl = propose_template(redact(text, known))
        try:
            compile_template(tpl)
        except TemplateError:
            continue
        if tpl not in out:
            out.append(tpl)
        if len(out) >= k:
            break
    return out


def skeleton(paste: Paste, root: RootError | None = None) -> str:
    """A new guide's file for this paste; `root` (default: the paste's root error) is its first signature."""
    if root is None:
        root = root_error(paste)
    known = known_in(paste.text)
    templates = proposals(paste, root=root, known=known) or ["TODO: the error line, with {int}/{path}/{hex} for volatile values"]
    tail = [ln.text for ln in paste.lines if ln.text.strip()][-15:]
    raw = redact("\n".join(tail), known) or "TODO"
    sigs = "\n".join(f"  - id: sig-{n}\n    template: {_q(t)}" for n, t in enumerate(templates, 1))
    todo = '{en: "TODO", zh: "TODO"}'
    return f"""# yaml-language-server: $schema=../../schema/guide.schema.json
# Skeleton proposed by `python -m kb new --from-error`. Save it as guides/<component>/<id>.yaml,
# replace every TODO, then run `python -m kb validate`.
id: todo-new-guide
component: todo
title: {todo}
summary: {todo}
status: unresolved
scope: specific  # or class: a family of mechanisms that print the same error (see schema/guide.schema.json)
fastest_fix: {todo}
symptoms:
  - {todo}
signatures:
{sigs}
raw_errors:
  - source: owner/repo#0
    text: {_q(raw)}
causes:
  - confidence: speculative
    text: {todo}
env_checks: []
steps:
  - id: step-1
    text: {todo}
verification:
  - id: verify-1
    text: {todo}
    expect: {todo}
references:
  - ref: owner/repo#0
tags: []
related: []
last_reviewed: {dt.date.today().isoformat()}
"""
