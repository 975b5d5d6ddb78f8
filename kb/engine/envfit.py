"""An environment report applied to a match result after matching (kb.engine.match already
applies the reports it is given). Reading the report and re-ranking are in kb.engine.environment;
the outcomes as JSON and text are kb.diagnosis's."""
from __future__ import annotations

from kb.engine.environment import cut_report, evaluate_checks, parse_env, rerank  # noqa: F401 (re-exported)
from kb.engine.index import Index
from kb.engine.results import Result
from kb.env.conditions import CheckOutcome
from kb.env.record import EnvRecord


def apply_env(index: Index, result: Result, env: EnvRecord) -> dict[str, dict[str, CheckOutcome]]:
    """Re-rank `result` in place by fit with `env` (match() already does it for the reports it
    is given); return every ranked guide's check outcomes."""
    rerank(index, result.matches, env, lambda m: m.tier.rank)
    return {m.guide_id: evaluate_checks(index.guides[m.guide_id], env) for m in result.matches}
