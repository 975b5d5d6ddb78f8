"""Hooks of the guide page that other parts fill in: environment-check outcomes
(from a pasted environment report) and feedback. Each works without the other."""
from __future__ import annotations

import streamlit as st

from schema.models import Guide


def check_outcomes(g: Guide) -> dict:
    """Environment-check id → outcome, when the person gave an environment report."""
    env = st.session_state.get("env_record")
    if env is None:
        return {}
    try:
        from kb.envmatch import evaluate_checks
    except ImportError:
        return {}
    return evaluate_checks(g, env)


def show_outcome(outcome) -> None:
    from components.env_panel import show_outcome as show
    show(outcome)


def preset_checks(g: Guide) -> None:
    """Tick the environment items that the report proves."""
    for cid, outcome in check_outcomes(g).items():
        if getattr(outcome, "status", None) == "pass":
            st.session_state[f"chk:{g.id}:{cid}"] = True


def feedback(g: Guide, done: list[str]) -> None:
    try:
        from components.feedback import feedback_widget
    except ImportError:
        return
    feedback_widget(g, done)
