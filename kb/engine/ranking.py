"""The ranking rule, the score shown, and the reasons recorded for each guide.

The order is the rule: tier first (kb.engine.tiers: match, likely, triage, help, similar), then the earliest
failing line (the root error, not the cascade after it), then more context, then the
more specific signature. The score shows the evidence's strength and never rises above
the guide ranked before it. Reasons are codes with the user's own lines and values;
kb.engine.reasons words them, and the raw patterns are kept for `--verbose` and the
page's details.
"""
from __future__ import annotations

import re

from kb.engine.parse import Paste
from kb.engine.results import Hit, Match, Result
from kb.engine.roots import NATIVE, QUIET, WARNING_LINE, RootError, covers, quiet
from kb.engine.tiers import rank as tier_rank
from kb.engine.triage import notes as triage_notes

SHOWN = 160  # characters of a user's line quoted in a reason


def evidence_key(m: Match | Hit) -> tuple:
    if m.wrapper or m.confidence == "triage":
        # Wrappers summarise the same failure, and class guides all fit the root error: the one
        # with more context is the narrower family (a device-side assert inside a server).
        return (tier_rank(m.confidence), m.wrapper, -m.n_context, m.first_line, -m.specificity)
    return (tier_rank(m.confidence), False, m.first_line, -m.n_context, -m.specificity)


def cover(matches: list[Match] | list[Hit], root: RootError | None, paste: Paste,
          tier: str = "match") -> tuple[RootError | None, bool]:
    """Whether a non-wrapper hit of `tier` (a specific guide's "match", a class guide's
    "triage") fits the root error; a hit on an earlier line than the root that was found is
    an error the root finder did not know, and becomes the root."""
    confident = [m for m in matches if m.confidence == tier and not m.wrapper and m.evidence is not None
                 and not (tier == "triage" and quiet(paste, m.first_line))]  # an INFO line is no class's error
    if not confident:
        return root, False
    first = min(confident, key=lambda m: m.first_line)
    if root is None or root.wrapper_only or root.weak or (first.first_line < root.start and _errorish(paste, first.first_line)):
        li = first.first_line
        text = paste.lines[li].text.strip()
        return RootError(li, paste.lines[li].no, text[:2000], None, text[:2000], (), li, li + 1, False), True
    return root, any(covers(paste, root, m.first_line) for m in confident)


def _errorish(paste: Paste, i: int) -> bool:
    """Whether a line reports a failure (an exception, a native error), not a warning or a note."""
    line = paste.lines[i]
    if line.prefix and QUIET.search(line.prefix) and "ERROR" not in line.prefix or WARNING_LINE.search(line.text):
        return False
    return bool(NATIVE.search(line.text)) or any(e.index == i and e.exc_type for e in paste.errors) or \
        bool(re.search(r"(?i)\b(?:error|failed|failure|exception|fatal|assert)", line.text))


def strength(m: Match) -> float:
    """How strong the evidence is: a longer literal signature and more required context count."""
    if m.confidence == "triage":
        # A procedure for a family of errors: below any specific answer, above help.
        return round(min(0.48, 0.4 + 0.04 * min(1.0, m.specificity / 40) + 0.04 * min(m.n_context, 1)), 3)
    if m.confidence == "similar":
        return round(min(0.45, 0.2 + 0.05 * m.specificity / 20), 3)
    if m.confidence == "help":
        return 0.3
    if m.confidence == "likely":
        return round(0.5 + 0.2 * max(0.0, (m.likely.score - 85) / 15), 3) if m.likely else 0.5
    s = 0.8 + 0.15 * min(1.0, m.specificity / 40) + 0.05 * min(m.n_context, 1) - (0.25 if m.wrapper else 0)
    return round(max(0.5, min(1.0, s)), 3)


def _line(paste: Paste, i: int) -> dict:
    ln = paste.lines[i]
    return {"line": ln.no, "text": _short(ln.text.strip())}


def _quote(paste: Paste, ev) -> dict:
    """The line number and the matched part of the user's line, with a little around it."""
    s = ev.spans[0]
    text = paste.lines[s.line].text
    lo = max(0, s.start - 40) if s.end - s.start < SHOWN - 40 else s.start
    part = text[lo:lo + SHOWN].strip()
    return {"line": paste.lines[s.line].no, "text": ("…" if lo > 0 else "") + part + ("…" if lo + SHOWN < len(text.rstrip()) else "")}


def _short(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def _span_text(paste: Paste, m: Match) -> str:
    assert m.evidence is not None  # only results that matched a line are quoted
    s = m.evidence.spans[0]
    return _short(paste.lines[s.line].text[s.start:s.end].strip() or paste.lines[s.line].text.strip())


def rank(matches: list[Match], paste: Paste) -> None:
    matches.sort(key=lambda m: (*evidence_key(m), m.guide_id))
    ceiling = 1.0
    for m in matches:
        m.score = ceiling = min(strength(m), ceiling)
    for m in matches:
        _record(m, paste)
    top = matches[0] if matches and matches[0].confidence == "match" else None
    if top is None:
        return
    for m in matches[1:]:
        if m.confidence not in ("match", "triage", "help"):
            continue
        vals = {"top": top.guide_id}
        if m.confidence == "triage":
            m.notes.append(("below_specific", vals))
        elif m.wrapper and not top.wrapper:
            m.notes.append(("below_wrapper", vals))
        elif m.first_line > top.first_line:
            m.notes.append(("later_line", {**vals, "line": paste.lines[m.first_line].no, "top_line": paste.lines[top.first_line].no}))
        elif m.n_context < top.n_context:
            m.notes.append(("less_context", {**vals, "n": top.n_context}))
        else:
            m.notes.append(("less_specific", {**vals, "chars": m.specificity, "top_chars": top.specificity}))


def _record(m: Match, paste: Paste) -> None:
    ev = m.evidence
    if m.likely is not None:
        lk = m.likely
        assert ev is not None  # a likely result points at the root error's line
        m.notes.append(("likely", {**_line(paste, ev.spans[0].line), "score": round(lk.score), "theirs": _short(lk.ref.text),
                                   "pattern": lk.ref.text}))
        if lk.missing or lk.extra:
            m.notes.append(("likely_differs", {"missing": ", ".join(lk.missing) or "—", "extra": ", ".join(lk.extra) or "—"}))
        if m.triage is not None:
            m.notes.extend(triage_notes(m.triage, paste))
        return
    if ev is not None and ev.pattern is None:
        return  # offered for what the paste lacks (kb.engine.match.ROOT_MISSING): its note says why
    if ev is not None and ev.pattern is not None:
        m.notes.append(("verified", {"line": paste.lines[ev.spans[0].line].no, "text": _span_text(paste, m),
                                     "sig": m.signature, "pattern": ev.pattern.source}))
        if ev.occurrences > 1:
            m.notes.append(("repeated", {"count": ev.occurrences, "line": paste.lines[ev.spans[0].line].no}))
    for c in m.contexts:
        if c.found and c.kind == "fact":
            m.notes.append(("context_fact", {"found": c.detail or c.source, "pattern": c.source}))
        elif c.found and c.evidence is not None:
            code = "context_module" if c.kind == "module" else "context_found"
            m.notes.append((code, {**_quote(paste, c.evidence), "module": c.source.removeprefix("module "),
                                   "pattern": c.source}))
        elif not c.found:
            why = c.why.get("en")[0] if c.why is not None else None
            why_zh = c.why.get("zh")[0] if c.why is not None else None
            m.notes.append(("context_missing", {"why": why or c.source, "why_zh": why_zh or why or c.source, "pattern": c.source}))
    if m.wrapper:
        # Only a confident wrapper match is the paste's whole story; a similar one is not even that.
        m.notes.append(({"help": "wrapper_help", "match": "wrapper", "triage": "wrapper"}.get(m.confidence, "wrapper_similar"), {}))
    if m.triage is not None:
        m.notes.extend(triage_notes(m.triage, paste))


def word_root(result: Result) -> None:
    """What the result says about the paste as a whole: its root error and whether a guide covers it."""
    root = result.root
    if root is None:
        return
    vals = {"line": root.no, "text": _short(root.text)}
    if not result.covered:
        result.notes.append(("root_triage" if result.triaged else "root_uncovered", vals))
    elif result.answer is not None and result.answer.first_line != root.index and result.answer.confidence == "match":
        result.notes.append(("root_covered_near", vals))
