"""Match results as plain text and JSON-ready dicts (`kb match`, `kb match --json`)."""
from __future__ import annotations

from kb.engine.match import Match, Result, explain_notes
from kb.engine.parse import Paste
from kb.guides.render import text
from schema.models import Guide


def match_dict(m: Match, paste: Paste, lang: str = "en") -> dict:
    """One match in the JSON form of `kb match --json`."""
    ev = m.evidence
    explanation: dict = {"text": " ".join(explain_notes(m, lang)), "reasons": explain_notes(m, lang)}
    if ev is not None:
        explanation["signature"] = {"id": m.signature, "kind": ev.pattern.kind, "pattern": ev.pattern.source}
        explanation["lines"] = [_span_dict(paste, s) for s in ev.spans]
        explanation["occurrences"] = ev.occurrences
    if m.contexts:
        explanation["context"] = [
            {"pattern": q.source, "found": e is not None, **({"line": paste.lines[e.spans[0].line].no} if e else {})}
            for q, e in m.contexts]
    return {"id": m.guide_id, "score": m.score, "confidence": m.confidence, "explanation": explanation}


def _span_dict(paste: Paste, s) -> dict:
    line = paste.lines[s.line]
    return {"line": line.no, "text": line.text[:2000], "start": s.start, "end": s.end, "prefix": line.prefix[:200]}


def result_dict(result: Result, lang: str = "en") -> dict:
    out: dict = {"matches": [match_dict(m, result.paste, lang) for m in result.matches]}
    if result.paste.truncation:
        out["note"] = result.paste.truncation
    return out


def result_text(result: Result, guides: dict[str, Guide], lang: str = "en") -> str:
    lines: list[str] = []
    if result.paste.truncation:
        lines += [f"note: {result.paste.truncation}", ""]
    if result.paste.empty:
        return "Nothing to match: the input is empty.\n"
    if not result.confident:
        lines.append("No confident match." + (" Similar guides (not a match):" if result.matches else ""))
    for n, m in enumerate(result.matches, 1):
        g = guides[m.guide_id]
        tag = "MATCH" if m.confidence == "match" else "similar"
        lines.append(f"{n}. [{tag} {m.score:.2f}] {m.guide_id} ({g.status}) — {text(g.title, lang)}")
        for reason in explain_notes(m, lang):
            lines.append(f"     - {reason}")
        if m.evidence:
            for s in m.evidence.spans:
                line = result.paste.lines[s.line]
                lines.append(f"     {line.no:>6} | {line.text[:300]}")
    return "\n".join(lines) + "\n"
