"""A Diagnosis as JSON (`kb match --json`, `kb serve`'s /v1/diagnose) and as text (`kb match`).

The JSON keeps the fields `kb match --json` has always had — `matches` (each `id`, `score`,
`confidence`, `explanation`), `root_error`, `notes`, `note`, and with an environment report
`environment` and each match's `checks` and `fit` — and gives each match its `tier` (the same
as `confidence`), `scope`, `title` and `status`, a triage result its `triage` object,
`root_error` its `triage` flag, and `upstream`: a search of each project the paste names, with
every diagnosis. `upstream_reports` is there when a live look-up was made (KB_GITHUB_LOOKUP).
The tiers' tags and words come from the tier registry (kb.engine.tiers), never a copy.
"""
from __future__ import annotations

from typing import Any

from kb.diagnosis.model import Diagnosis, Environment, GuideResult
from kb.engine.tiers import TIERS
from kb.lookup.github import Found
from kb.text import say


def reasons(r: GuideResult, lang: str, verbose: bool = False) -> list[str]:
    out = [say(code, lang, **values) for code, values in r.reasons]
    if verbose:
        out += [say("pattern_detail", lang, pattern=values["pattern"]) for _, values in r.reasons if values.get("pattern")]
    return out


def result_json(r: GuideResult, lang: str, verbose: bool = False, env: bool = False) -> dict[str, Any]:
    said = reasons(r, lang)
    explanation: dict[str, Any] = {"text": " ".join(said), "reasons": said}
    if r.signature is not None:
        explanation["signature"] = dict(r.signature)
    if r.spans:  # a signature's lines, or for a likely result the root error's line it was compared with
        explanation["lines"] = r.lines
        explanation["occurrences"] = r.occurrences
    if r.context:
        explanation["context"] = r.context
    if r.values:
        explanation["values"] = dict(r.values)
    if r.causes:
        explanation["causes"] = [{"cause": c.index, "fits": c.fits, **({"says": c.says[lang]} if c.fits is not None else {})}
                                 for c in r.causes]
    if r.likely is not None:
        explanation["likely"] = r.likely
    if verbose:
        explanation["details"] = [values["pattern"] for _, values in r.reasons if values.get("pattern")]
    out: dict[str, Any] = {"id": r.id, "score": r.score, "tier": r.tier, "confidence": r.tier, "scope": r.scope,
                           "explanation": explanation, "title": r.title[lang], "status": r.status}
    if r.triage is not None:
        out["triage"] = r.triage
    if env:
        out["checks"] = {cid: {"status": c.status, "found": c.found, "reason": c.reason[lang]} for cid, c in r.checks.items()}
        out["fit"] = [{"verdict": f.verdict, "what": f.what, "reason": f.reason[lang]} for f in r.fit]
    return out


def environment_json(env: Environment) -> dict[str, Any]:
    return {"sources": list(env.sources), "gpus": [{"name": n, "compute_capability": cc} for n, cc in env.gpus],
            "torch": env.torch, "cuda": env.cuda, "driver": env.driver, "python": env.python, "packages": env.packages}


def reports_json(found: Found) -> dict[str, Any]:
    """What the live look-up found (or why it found nothing)."""
    return {"repo": found.repo, "query": found.query, "error": found.error,
            "reports": [{"ref": r.ref, "title": r.title, "state": r.state, "url": r.url,
                         "closed_by": {"number": r.closed_by.number, "title": r.closed_by.title, "url": r.closed_by.url}
                         if r.closed_by else None} for r in found.reports]}


def as_json(d: Diagnosis, lang: str | None = None, verbose: bool = False, reports: Found | None = None) -> dict[str, Any]:
    """The JSON form, in `lang` (default: the language the diagnosis was asked in); `reports`:
    the live look-up's answer for the first upstream project, when one was made."""
    lang = lang or d.lang
    env = d.environment is not None
    out: dict[str, Any] = {"matches": [result_json(r, lang, verbose, env) for r in d.results], "root_error": d.root}
    notes = [say(code, lang, **values) for code, values in [*d.notes, *d.cut]]
    if notes:
        out["notes"] = notes
    if d.truncation:
        out["note"] = d.truncation
    if d.environment is not None:
        out["environment"] = environment_json(d.environment)
    out["upstream"] = [{"project": u.project, "repo": u.repo, "query": u.query, "url": u.url} for u in d.upstream]
    if reports is not None:
        out["upstream_reports"] = reports_json(reports)
    return out


def _lead(d: Diagnosis, lang: str) -> str:
    """The line above results none of which answers: a triage procedure's own sentence, else "no guide"."""
    intro = TIERS[d.results[0].tier].introduces(lang) if d.triaged else None
    return intro or (say("cli_no_guide" if d.root is not None else "cli_no_confident", lang)
                     + (say("cli_listed_below", lang) if d.results else ""))


def _reports_text(found: Found, lang: str) -> list[str]:
    if found.error:
        return ["  " + say("upstream_lookup_failed", lang, reason=found.error)]
    out = []
    for r in found.reports:
        state = say("upstream_open" if r.state == "open" else "upstream_closed", lang)
        by = say("cli_closed_by", lang, number=r.closed_by.number) if r.closed_by else ""
        out.append(f"  {r.ref} [{state}{by}] {r.title}")
    return out or ["  " + say("upstream_none", lang, repo=found.repo)]


def as_text(d: Diagnosis, lang: str | None = None, verbose: bool = False, reports: Found | None = None) -> str:
    lang = lang or d.lang
    lines: list[str] = []
    if d.truncation:
        lines += [say("cli_note", lang, note=d.truncation), ""]
    if d.empty:
        return say("cli_empty", lang) + "\n"
    lines += [say(code, lang, **values) for code, values in [*d.notes, *d.cut]]
    if not d.answered:
        lines.append(_lead(d, lang))
    for n, r in enumerate(d.results, 1):
        lines.append(f"{n}. [{TIERS[r.tier].tag} {r.score:.2f}] {r.id} ({r.status}, {r.scope}) — {r.title[lang]}")
        lines += [f"     - {reason}" for reason in reasons(r, lang, verbose)]
        if r.values:
            lines.append(f"     {say('cli_values', lang)}: " + ", ".join(f"{k}={v}" for k, v in r.values.items()))
        lines += [f"     {say('cli_fits_cause', lang, n=c.index + 1, says=c.says[lang])}" for c in r.causes if c.fits]
        if r.signature is not None:  # a likely result's line is the root error, said above
            lines += [f"     {s['line']:>6} | {s['text'][:300]}" for s in r.lines]
    if d.environment is not None and any(r.checks for r in d.results):
        lines += ["", say("cli_checks", lang)]
        for r in d.results:
            if r.checks:
                lines.append(f"  {r.id}:")
                lines += [f"    [{c.status:^7}] {cid}: {c.found or '-'} — {c.reason[lang]}" for cid, c in r.checks.items()]
    if d.upstream:
        lines.append("")
        lines += [say("cli_upstream", lang, project=u.project, url=u.url) for u in d.upstream]
        if reports is not None:
            lines += _reports_text(reports, lang)
    return "\n".join(lines) + "\n"
