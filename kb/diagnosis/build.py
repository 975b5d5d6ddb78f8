"""`diagnose()`: the one call that turns a paste into everything shown about it.

The page, `kb match`, `kb watch` and `kb serve` call this and read the Diagnosis it returns;
none of them goes back into the engine. The environment report is parsed once, by the
matcher (the box's report and one inside the paste together), and reused for the ranking,
the facts a signature's context asks for and every guide's environment checks.
"""
from __future__ import annotations

from typing import Any

from kb.diagnosis.model import Cause, Diagnosis, Environment, Fit, GuideResult, Upstream
from kb.engine import completeness, upstream
from kb.engine.environment import cut_report, parse_env
from kb.engine.index import Index
from kb.engine.match import Match, match
from kb.engine.parse import Paste
from kb.engine.triage import as_dict as triage_dict
from kb.env.record import EnvRecord
from kb.feedback.redact import known_in, redact
from kb.feedback.signature import error_signature
from kb.guides.render import text as localised
from kb.text import LANGS
from schema.models import Guide

MAX_LINE_JSON = 2_000  # characters of a matched line in the JSON (a line may be 20,000)


def diagnose(index: Index, text: str, env_text: str | None = None, lang: str = "en") -> Diagnosis:
    """Rank the guides for `text` and gather what is shown with them. `env_text`: what the
    environment box holds (a report inside the paste is read as well). `lang`: the language
    the JSON and text forms are worded in by default."""
    result = match(index, text, env_report=env_text if env_text and env_text.strip() else None)
    paste = result.paste
    env = environment_of(result.env, env_text)
    results = [_guide_result(index.guides[m.guide_id], m, paste, env) for m in result.matches]
    unmatched = None
    if not result.confident and not paste.empty:
        unmatched = error_signature(paste, result.root) or None
    found_upstream = [] if paste.empty else upstream_of(paste, result.root.text if result.root is not None else None)
    root = None if result.root is None else {"line": result.root.no, "text": result.root.text, "covered": result.covered,
                                             "triage": result.triaged}
    return Diagnosis(lang=lang, empty=paste.empty, truncation=paste.truncation, root=root, notes=list(result.notes),
                     cut=completeness.cut_notes(paste), results=results, environment=env, upstream=found_upstream,
                     unmatched=unmatched, paste=paste, root_error=result.root, text=text)


def environment_of(record: EnvRecord | None, box_text: str | None = None) -> Environment | None:
    if record is None:
        return None
    return Environment(sources=list(record.sources), gpus=list(record.gpus), torch=record.torch_version,
                       cuda=record.torch_cuda or record.cuda_runtime, driver=record.driver_version,
                       python=record.python_version, vllm=record.package("vllm"), packages=len(record.packages),
                       cut_note=report_cut_note(box_text) if box_text else None, record=record)


def read_environment(text: str) -> Environment | None:
    """An environment report on its own (the box, before there is a paste to diagnose)."""
    return environment_of(parse_env(text), text) if text.strip() else None


def report_cut_note(text: str) -> str | None:
    """Said when only the start of a long report is read."""
    return cut_report(text)[1]


def _words(fn) -> dict[str, str]:
    return {lang: fn(lang) for lang in LANGS}


def _guide_result(g: Guide, m: Match, paste: Paste, env: Environment | None) -> GuideResult:
    ev = m.evidence
    signature = lines = None
    if ev is not None:
        if ev.pattern is not None:  # a likely hit's evidence is the root error's line, with no pattern
            signature = {"id": m.signature, "kind": ev.pattern.kind, "pattern": ev.pattern.source}
        lines = [_span(paste, s) for s in ev.spans]
    likely = None
    if m.likely is not None:
        likely = {"similarity": m.likely.score, "closest": m.likely.ref.text, "kind": m.likely.ref.kind,
                  "missing": list(m.likely.missing), "extra": list(m.likely.extra)}
    return GuideResult(
        id=m.guide_id, tier=m.confidence, answers=m.tier.answers, addresses=m.tier.addresses, score=m.score,
        scope=m.scope, status=g.status,
        title=_words(lambda lang: localised(g.title, lang)), summary=_words(lambda lang: localised(g.summary, lang)),
        reasons=[(code, dict(values)) for code, values in m.notes],
        values={name: v.text for name, v in m.values.items()},
        causes=[Cause(c.index, c.fits, _words(c.says)) for c in m.causes],
        fit=[Fit(n.verdict, n.what, {"en": n.reason, "zh": n.reason_zh}) for n in m.env_notes],
        checks=env.checks(g) if env is not None else {},
        signature=signature, lines=lines or [], occurrences=ev.occurrences if ev is not None else 0,
        context=[_context(paste, c) for c in m.contexts], likely=likely,
        triage=triage_dict(m.triage, paste) if m.triage is not None else None,
        spans=[(s.line, s.start, s.end) for s in ev.spans] if ev is not None else [])


def _span(paste: Paste, s) -> dict[str, Any]:
    line = paste.lines[s.line]
    return {"line": line.no, "text": line.text[:MAX_LINE_JSON], "start": s.start, "end": s.end, "prefix": line.prefix[:200]}


def _context(paste: Paste, c) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": c.kind, "pattern": c.source, "found": c.found}
    if c.evidence is not None:
        out["line"] = paste.lines[c.evidence.spans[0].line].no
    if c.detail:
        out["detail"] = c.detail
    return out


def upstream_of(paste: Paste, root_line: str | None) -> list[Upstream]:
    """A search of each upstream project's issues the paste names for the root error line (or,
    for a traceback cut before it, its innermost frame). Secrets, addresses and user names are
    out before anything leaves for GitHub: the link carries the words when it is opened."""
    line = root_line or upstream.root_error_line(paste)
    return [Upstream(ln.project.name, ln.project.repo, ln.query, ln.url)
            for ln in upstream.links(paste, redact(line, known_in(paste.text)) if line else None)]
