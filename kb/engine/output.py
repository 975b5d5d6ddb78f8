"""Match results as plain text and JSON-ready dicts (`kb match`, `kb match --json`)."""
from __future__ import annotations

from collections.abc import Mapping

from kb.engine import completeness
from kb.engine.match import Match, Result, explain_notes
from kb.engine.parse import Paste
from kb.guides.render import text
from kb.text import say
from schema.models import Guide

TAGS = {"match": "MATCH", "likely": "LIKELY", "help": "help", "similar": "similar"}


def match_dict(m: Match, paste: Paste, lang: str = "en", verbose: bool = False) -> dict:
    """One match in the JSON form of `kb match --json`."""
    ev = m.evidence
    reasons = explain_notes(m, lang)
    explanation: dict = {"text": " ".join(reasons), "reasons": reasons}
    if ev is not None:
        explanation["signature"] = {"id": m.signature, "kind": ev.pattern.kind, "pattern": ev.pattern.source}
        explanation["lines"] = [_span_dict(paste, s) for s in ev.spans]
        explanation["occurrences"] = ev.occurrences
    if m.contexts:
        explanation["context"] = [
            {"kind": c.kind, "pattern": c.source, "found": c.found,
             **({"line": paste.lines[c.evidence.spans[0].line].no} if c.evidence is not None else {}),
             **({"detail": c.detail} if c.detail else {})}
            for c in m.contexts]
    if m.values:
        explanation["values"] = {n: v.text for n, v in m.values.items()}
    if m.causes:
        explanation["causes"] = [{"cause": c.index, "fits": c.fits, **({"says": c.says(lang)}
                                                                       if c.fits is not None else {})}
                                 for c in m.causes]
    if m.likely is not None:
        explanation["likely"] = {"similarity": m.likely.score, "closest": m.likely.ref.text, "kind": m.likely.ref.kind,
                                 "missing": list(m.likely.missing), "extra": list(m.likely.extra)}
    if verbose:
        explanation["details"] = [vals["pattern"] for _, vals in m.notes if vals.get("pattern")]
    return {"id": m.guide_id, "score": m.score, "confidence": m.confidence, "explanation": explanation}


def _span_dict(paste: Paste, s) -> dict:
    line = paste.lines[s.line]
    return {"line": line.no, "text": line.text[:2000], "start": s.start, "end": s.end, "prefix": line.prefix[:200]}


def root_dict(result: Result) -> dict | None:
    r = result.root
    return None if r is None else {"line": r.no, "text": r.text, "covered": result.covered}


def cut_words(result: Result, lang: str) -> list[str]:
    """What the paste lacks, worded: a traceback cut before its error line, a log cut mid-line."""
    return [say(code, lang, **vals) for code, vals in completeness.cut_notes(result.paste)]


def result_dict(result: Result, lang: str = "en", verbose: bool = False) -> dict:
    out: dict = {"matches": [match_dict(m, result.paste, lang, verbose) for m in result.matches],
                 "root_error": root_dict(result)}
    notes = [say(code, lang, **vals) for code, vals in result.notes] + cut_words(result, lang)
    if notes:
        out["notes"] = notes
    if result.paste.truncation:
        out["note"] = result.paste.truncation
    return out


def result_text(result: Result, guides: Mapping[str, Guide], lang: str = "en", verbose: bool = False) -> str:
    lines: list[str] = []
    if result.paste.truncation:
        lines += [f"note: {result.paste.truncation}", ""]
    if result.paste.empty:
        return "Nothing to match: the input is empty.\n"
    for code, vals in result.notes:
        lines.append(say(code, lang, **vals))
    lines += cut_words(result, lang)
    if not result.confident:
        lines.append(("No guide for this error yet." if result.root is not None else "No confident match.")
                     + (" Listed below, none of them an answer:" if result.matches else ""))
    for n, m in enumerate(result.matches, 1):
        g = guides[m.guide_id]
        lines.append(f"{n}. [{TAGS.get(m.confidence, m.confidence)} {m.score:.2f}] {m.guide_id} ({g.status}) — {text(g.title, lang)}")
        for reason in explain_notes(m, lang, verbose):
            lines.append(f"     - {reason}")
        if m.values:
            lines.append("     values: " + ", ".join(f"{n_}={v.text}" for n_, v in m.values.items()))
        for c in m.causes:
            if c.fits:
                lines.append(f"     fits cause {c.index + 1}: {c.says(lang)}")
        if m.evidence and m.confidence != "likely":
            for s in m.evidence.spans:
                line = result.paste.lines[s.line]
                lines.append(f"     {line.no:>6} | {line.text[:300]}")
    return "\n".join(lines) + "\n"
