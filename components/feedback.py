""""Did this solve it?" on guide pages, and the unmatched-error queue from Diagnose.

Storage failures never break the page: the person is told their answer was not saved.
"""
from __future__ import annotations

import logging
import os

import streamlit as st

from components.i18n import lang, t
from kb.engine.match import Result
from kb.feedback.signature import error_signature
from kb.feedback.store import Store, StoreUnavailable
from schema.models import Guide

log = logging.getLogger("kb.app")




@st.cache_resource(show_spinner=False)
def _store_for(where: str) -> Store:
    return Store(timeout=float(os.environ.get("KB_DB_TIMEOUT", "5")))


def get_store() -> Store:
    """One store per process and per configured database (tests point it elsewhere)."""
    return _store_for(os.environ.get("KB_DATABASE_URL") or os.environ.get("KB_DB_PATH") or "")


def feedback_widget(g: Guide, done: list[str]) -> None:
    st.divider()
    st.markdown(f"**{t('fb_question')}**")
    store = get_store()
    if not store.enabled:
        st.caption(t("fb_off"))
        return
    sent_key = f"fb_sent:{g.id}"
    answer = st.feedback("thumbs", key=f"fb:{g.id}")
    comment = st.text_input(t("fb_comment"), key=f"fb_comment:{g.id}", max_chars=2000)
    if st.button(t("fb_send"), key=f"fb_send:{g.id}", disabled=answer is None or st.session_state.get(sent_key, False)):
        try:
            store.record_feedback(g.id, bool(answer), done, lang(), comment or None)
        except StoreUnavailable as exc:
            st.error(str(exc))
        else:
            st.session_state[sent_key] = True
    if st.session_state.get(sent_key):
        st.success(t("fb_thanks"))


def record_unmatched(result: Result) -> None:
    """Count this paste's error signature once per session; never store the paste itself."""
    store = get_store()
    signature = error_signature(result.paste)
    if not store.enabled or not signature:
        return
    seen = st.session_state.setdefault("unmatched_seen", set())
    if signature in seen:
        return
    try:
        store.record_unmatched(signature, lang())
    except StoreUnavailable as exc:
        log.warning("unmatched signature not stored: %s", exc)
        st.caption(str(exc))
        return
    seen.add(signature)
