"""A Diagnosis as JSON (`kb match --json`, `kb serve`'s /v1/diagnose) and as text (`kb match`).

The JSON keeps the fields `kb match --json` has always had — `matches` (each `id`, `score`,
`confidence`, `explanation`), `root_error`, `notes`, `note`, and with an environment report
`environment` and each match's `checks` and `fit` — and adds each match's `title`, `status`
and `scope`, and `upstream` when no guide answers.
"""
from __future__ import annotations

from typing import Any

from kb.diagnosis.model import Diagnosis, Environment, GuideResult
from kb.text import say

TAGS = {"match": "MATCH", "likely": "LIKELY", "help": "help", "similar": "similar"}


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
    out: dict[str, Any] = {"id": r.id, "score": r.score, "confidence": r.tier, "explanation": explanation,
                           "title": r.title[lang], "status": r.status, "scope": r.scope}
    if env:
        out["checks"] = {cid: {"status": c.status, "found": c.found, "reason": c.reason[lang]} for cid, c in r.checks.items()}
        out["fit"] = [{"verdict": f.verdict, "what": f.what, "reason": f.reason[lang]} for f in r.fit]
    return out


def environment_json(env: Environment) -> dict[str, Any]:
    return {"sources": list(env.sources), "gpus": [{"name": n, "compute_capability": cc} for n, cc in env.gpus],
            "torch": env.torch, "cuda": env.cuda, "driver": env.driver, "python": env.python, "packages": env.packages}


def as_json(d: Diagnosis, lang: str | None = None, verbose: bool = False) -> dict[str, Any]:
    """The JSON form, in `lang` (default: the language the diagnosis was asked in)."""
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
    if d.upstream is not None:
        out["upstream"] = {"project": d.upstream.project, "repo": d.upstream.repo, "url": d.upstream.url}
    return out


def as_text(d: Diagnosis, lang: str | None = None, verbose: bool = False) -> str:
    lang = lang or d.lang
    lines: list[str] = []
    if d.truncation:
        lines += [say("cli_note", lang, note=d.truncation), ""]
    if d.empty:
        return say("cli_empty", lang) + "\n"
    lines += [say(code, lang, **values) for code, values in [*d.notes, *d.cut]]
    if not d.answered:
        lines.append(say("cli_no_guide" if d.root is not None else "cli_no_confident", lang)
                     + (say("cli_listed_below", lang) if d.results else ""))
    for n, r in enumerate(d.results, 1):
        lines.append(f"{n}. [{TAGS.get(r.tier, r.tier)} {r.score:.2f}] {r.id} ({r.status}) — {r.title[lang]}")
        lines += [f"     - {reason}" for reason in reasons(r, lang, verbose)]
        if r.values:
            lines.append(f"     {say('cli_values', lang)}: " + ", ".join(f"{k}={v}" for k, v in r.values.items()))
        lines += [f"     {say('cli_fits_cause', lang, n=c.index + 1, says=c.says[lang])}" for c in r.causes if c.fits]
        if r.tier != "likely":
            lines += [f"     {s['line']:>6} | {s['text'][:300]}" for s in r.lines]
    if d.upstream is not None:
        lines += ["", say("cli_upstream", lang, repo=d.upstream.repo, url=d.upstream.url)]
    if d.environment is not None and any(r.checks for r in d.results):
        lines += ["", say("cli_checks", lang)]
        for r in d.results:
            if r.checks:
                lines.append(f"  {r.id}:")
                lines += [f"    [{c.status:^7}] {cid}: {c.found or '-'} — {c.reason[lang]}" for cid, c in r.checks.items()]
    return "\n".join(lines) + "\n"
