"""The environment report on the Diagnose page, and check outcomes on guide pages.

The report is parsed once per diagnosis, by kb.diagnosis (with any report inside the paste);
this panel shows what that parse found. Only without a paste does it read the box on its own.
"""
from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from components.diagnose_io import with_upload
from components.i18n import lang, t
from components.markup import code, esc
from kb.diagnosis import Check, Diagnosis, Environment, GuideResult, report_cut_note
from schema.models import Guide

CHECK_COLOUR = {"pass": "green", "fail": "red", "unknown": "gray", "reported": "blue"}


def input_panel() -> tuple[str, DeltaGenerator]:
    """The report box (and its upload); returns its text and the place where `show_report` says what it holds."""
    with st.expander(t("env_label"), expanded=bool(st.session_state.get("env_text"))):
        # Kept for the session (persist_state) while a guide is shown in the page's place.
        report = st.text_area(t("env_label"), key="env_text", height=160, label_visibility="collapsed", persist_state="session")
        text_in = with_upload(report, t("env_upload_label"), "env_upload")
        return text_in, st.container()


def show_report(slot: DeltaGenerator, text_in: str, env: Environment | None) -> None:
    """What the report states (the box's and the paste's together), under the box; kept for guide pages."""
    st.session_state["environment"] = env
    if not text_in.strip():
        return
    with slot:
        cut_note = env.cut_note if env is not None else report_cut_note(text_in)
        if cut_note:
            st.caption(esc(cut_note))
        if env is None:
            st.warning(t("env_none"))
            return
        gpus = ", ".join(f"{n} ({cc or '?'})" for n, cc in env.gpus) or "—"
        st.caption(esc(f"{', '.join(env.sources)} · GPU: {gpus} · torch {env.torch or '?'} · CUDA {env.cuda or '?'} · "
                       f"vllm {env.vllm or '?'}"))


def show_fit(r: GuideResult) -> None:
    for f in r.fit:
        colour = "green" if f.verdict == "fits" else "red"
        st.markdown(f":{colour}-badge[{t('env_badge')}] " + esc(f.reason[lang()]))


def show_outcome(c: Check) -> None:
    # The value once: most reasons already name it ("torch 2.5.1 satisfies >=2.4").
    found = f" — {code(c.found)}" if c.found and c.found not in c.reason[lang()] else ""
    st.markdown(f":{CHECK_COLOUR[c.status]}-badge[{t('check_' + c.status)}]{found} {esc(c.reason[lang()])}")


def check_outcomes(g: Guide) -> dict[str, Check]:
    """Environment-check id → outcome, when the person gave an environment report (in the box
    or in the paste). A guide opened from the results has them already."""
    kept = st.session_state.get("last_result")
    last: Diagnosis | None = kept[1] if kept else None
    ranked = last.result(g.id) if last is not None else None
    if ranked is not None and last is not None and last.environment is not None:
        return ranked.checks
    env: Environment | None = st.session_state.get("environment")
    if env is None and last is not None:
        env = last.environment
    return env.checks(g) if env is not None else {}


def preset_checks(g: Guide) -> None:
    """Tick the environment items that the report proves."""
    for cid, outcome in check_outcomes(g).items():
        if outcome.status == "pass":
            st.session_state[f"chk:{g.id}:{cid}"] = True
