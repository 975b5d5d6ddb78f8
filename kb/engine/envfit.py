"""An environment report applied to a match result, and the checks' outcomes in the CLI's
JSON and text: each guide's environment checks evaluated to pass / fail / unknown with the
value found. Reading the report and re-ranking are in kb.engine.environment."""
from __future__ import annotations

from kb.engine.environment import cut_report, evaluate_checks, parse_env, rerank  # noqa: F401 (re-exported)
from kb.engine.index import Index
from kb.engine.results import Match, Result
from kb.env.conditions import CheckOutcome, FitNote
from kb.env.record import EnvRecord

def apply_env(index: Index, result: Result, env: EnvRecord) -> dict[str, dict[str, CheckOutcome]]:
    """Re-rank `result` in place by fit with `env` (match() already does it for the reports it
    is given); return every ranked guide's check outcomes."""
    rerank(index, result.matches, env, lambda m: m.tier.rank)
    return {m.guide_id: evaluate_checks(index.guides[m.guide_id], env) for m in result.matches}


def env_notes(m: Match) -> list[FitNote]:
    return m.env_notes


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
