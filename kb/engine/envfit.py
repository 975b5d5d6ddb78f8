"""An environment report applied to a match result: guides whose `applies_to` the
report contradicts rank lower, guides it fits rank higher, each saying why; and each
guide's environment checks evaluated to pass / fail / unknown with the value found."""
from __future__ import annotations

import os

from kb.env.conditions import CheckOutcome, FitNote, evaluate, fit
from kb.env.reports import EnvRecord, parse_report
from kb.engine.index import Index
from kb.engine.match import Match, Result
from schema.models import Guide

# A contradiction moves a match below others but never turns it into "similar":
# reports are often partial or from another machine than the crash.
CONTRADICTION_PENALTY = 0.15
FIT_BONUS = 0.02


# Reports are short (a full `pip list` is a few hundred lines); the parsers read every line
# several times, so of a longer paste only the start is read.
MAX_REPORT_CHARS = int(os.environ.get("KB_MAX_ENV_CHARS", 1_000_000))
MAX_REPORT_LINES = int(os.environ.get("KB_MAX_ENV_LINES", 20_000))


def cut_report(text: str) -> tuple[str, str | None]:
    """The part of a pasted report that is read, and a note when that is not all of it."""
    parts = text[:MAX_REPORT_CHARS].split("\n", MAX_REPORT_LINES)[:MAX_REPORT_LINES]
    head = "\n".join(parts)
    if len(head) == len(text):
        return text, None
    return head, (f"The environment report is {len(text):,} characters; only its first {len(head):,} "
                  f"({len(parts):,} lines) were read.")


def parse_env(text: str) -> EnvRecord | None:
    env = parse_report(cut_report(text)[0])
    return env if env.sources else None


def evaluate_checks(g: Guide, env: EnvRecord) -> dict[str, CheckOutcome]:
    return {c.id: evaluate(c.condition, env) for c in g.env_checks if c.condition is not None}


def apply_env(index: Index, result: Result, env: EnvRecord) -> dict[str, dict[str, CheckOutcome]]:
    """Re-rank `result` in place by fit; return every ranked guide's check outcomes."""
    for m in result.matches:
        notes = fit(index.guides[m.guide_id].applies_to, env)
        m.env_notes = notes  # type: ignore[attr-defined]
        bad = sum(1 for n in notes if n.verdict == "contradicts")
        good = sum(1 for n in notes if n.verdict == "fits")
        floor = 0.5 if m.confidence == "match" else 0.0
        m.score = round(max(floor, min(1.0, m.score - CONTRADICTION_PENALTY * bad + FIT_BONUS * good)), 3)
        for n in notes:
            m.notes.append(("env_fits" if n.verdict == "fits" else "env_contradicts", {"what": n.reason}))
    result.matches.sort(key=lambda m: (m.confidence != "match", -m.score))
    return {m.guide_id: evaluate_checks(index.guides[m.guide_id], env) for m in result.matches}


def env_notes(m: Match) -> list[FitNote]:
    return getattr(m, "env_notes", [])


def outcome_dict(o: CheckOutcome, lang: str = "en") -> dict:
    return {"status": o.status, "found": o.found, "reason": o.reason_zh if lang == "zh" else o.reason}


def env_dict(env: EnvRecord) -> dict:
    return {"sources": list(env.sources), "gpus": [{"name": n, "compute_capability": cc} for n, cc in env.gpus],
            "torch": env.torch_version, "cuda": env.torch_cuda or env.cuda_runtime, "driver": env.driver_version,
            "python": env.python_version, "packages": len(env.packages)}


def checks_dict(out: dict, result: Result, checks: dict[str, dict[str, CheckOutcome]], env: EnvRecord, lang: str = "en") -> dict:
    out["environment"] = env_dict(env)
    for m, d in zip(result.matches, out["matches"]):
        d["checks"] = {cid: outcome_dict(o, lang) for cid, o in checks.get(m.guide_id, {}).items()}
        d["fit"] = [{"verdict": n.verdict, "what": n.what, "reason": n.reason_zh if lang == "zh" else n.reason} for n in env_notes(m)]
    return out


def checks_text(result: Result, checks: dict[str, dict[str, CheckOutcome]], lang: str = "en") -> str:
    lines = ["", "Environment checks from the report:"]
    for m in result.matches:
        outcomes = checks.get(m.guide_id, {})
        if not outcomes:
            continue
        lines.append(f"  {m.guide_id}:")
        for cid, o in outcomes.items():
            lines.append(f"    [{o.status:^7}] {cid}: {o.found or '-'} — {o.reason_zh if lang == 'zh' else o.reason}")
    return "\n".join(lines) + "\n"
