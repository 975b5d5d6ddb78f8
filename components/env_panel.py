"""The environment report on the Diagnose page, and check outcomes on guide pages."""
from __future__ import annotations

import hashlib

import streamlit as st

from components.diagnose_io import with_upload
from components.i18n import lang, t
from components.markup import code, esc
from kb.engine.envfit import cut_report, env_notes, evaluate_checks, parse_env
from kb.engine.match import Match
from schema.models import Guide

CHECK_COLOUR = {"pass": "green", "fail": "red", "unknown": "gray"}


def input_panel() -> None:
    with st.expander(t("env_label"), expanded=bool(st.session_state.get("env_text"))):
        # Kept for the session (persist_state) while a guide is shown in the page's place.
        report = st.text_area(t("env_label"), key="env_text", height=160, label_visibility="collapsed", persist_state="session")
        text_in = with_upload(report, t("env_upload_label"), "env_upload")
        env = parse_env(text_in) if text_in.strip() else None
        # Results are kept per paste and report: the same report gives the same ranking.
        st.session_state["env_key"] = hashlib.sha256(text_in.encode("utf-8", "surrogatepass")).hexdigest() if env else ""
        cut_note = cut_report(text_in)[1]
        if cut_note:
            st.caption(esc(cut_note))
        st.session_state["env_record"] = env
        st.session_state["env_text_in"] = text_in if env is not None else ""
        if text_in.strip() and env is None:
            st.warning(t("env_none"))
        elif env is not None:
            gpus = ", ".join(f"{n} ({cc or '?'})" for n, cc in env.gpus) or "—"
            st.caption(esc(f"{', '.join(env.sources)} · GPU: {gpus} · torch {env.torch_version or '?'} · CUDA {env.torch_cuda or env.cuda_runtime or '?'} · "
                           f"vllm {env.package('vllm') or '?'}"))


def show_fit(m: Match) -> None:
    for n in env_notes(m):
        colour = "green" if n.verdict == "fits" else "red"
        st.markdown(f":{colour}-badge[{t('env_badge')}] " + esc(n.reason_zh if lang() == "zh" else n.reason))


def show_outcome(o) -> None:
    icon = f":{CHECK_COLOUR[o.status]}-badge[{t('check_' + o.status)}]"
    found = f" — {code(o.found)}" if o.found else ""
    st.markdown(f"{icon}{found} {esc(o.reason_zh if lang() == 'zh' else o.reason)}")


def check_outcomes(g: Guide) -> dict:
    """Environment-check id → outcome, when the person gave an environment report."""
    env = st.session_state.get("env_record")
    kept = st.session_state.get("last_result")
    if env is None and kept:  # a report pasted with the error counts as one in the box
        env = kept[1].env
    return evaluate_checks(g, env) if env is not None else {}


def preset_checks(g: Guide) -> None:
    """Tick the environment items that the report proves."""
    for cid, outcome in check_outcomes(g).items():
        if outcome.status == "pass":
            st.session_state[f"chk:{g.id}:{cid}"] = True
