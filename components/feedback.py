""""Did this solve it?" on guide pages, and the unmatched-error queue from Diagnose.

Storage failures never break the page: the person is told their answer was not saved.
"""
from __future__ import annotations

import logging

import streamlit as st

from components.client import client_address
from components.i18n import lang, t
from components.once import once
from kb import config
from kb.diagnosis import Diagnosis
from kb.feedback.store import StoreUnavailable
from kb.feedback.votes import RateLimited, VotingStore
from schema.models import Guide

log = logging.getLogger("kb.app")


@once
def _store_for(where: str) -> VotingStore:
    return VotingStore(timeout=float(config.get("KB_DB_TIMEOUT")))


def get_store() -> VotingStore:
    """One store per process and per configured database (tests point it elsewhere)."""
    return _store_for(config.get("KB_DATABASE_URL") or config.get("KB_DB_PATH"))


def _on_vote(gid: str, done: list[str]) -> None:
    """A thumbs click: recorded now, not when a comment is sent (most people send none)."""
    value = st.session_state.get(f"fb:{gid}")  # 1 up, 0 down, None: clicked again, taken back
    row = st.session_state.get(f"fb_row:{gid}")
    try:
        if row is None and value is not None:
            st.session_state[f"fb_row:{gid}"] = get_store().record_vote(gid, bool(value), done, lang(),
                                                                         client=client_address())
        elif row is not None:
            get_store().change_vote(row, None if value is None else bool(value))
            if value is None:
                st.session_state.pop(f"fb_row:{gid}", None)
                st.session_state.pop(f"fb_sent:{gid}", None)
    except StoreUnavailable as exc:
        st.session_state[f"fb_error:{gid}"] = shown(exc)
        if row is None:  # not recorded: the thumb must not look as if it were
            st.session_state[f"fb_reset:{gid}"] = True


def shown(exc: StoreUnavailable) -> str:
    """What the visitor reads: a limit in their language, a database failure as the store says it."""
    if isinstance(exc, RateLimited):
        return t(f"limited_{exc.what}", minutes=exc.minutes)
    return str(exc)


def feedback_widget(g: Guide, done: list[str]) -> None:
    st.divider()
    st.markdown(f"**{t('fb_question')}**")
    store = get_store()
    if not store.enabled:
        st.caption(t("fb_off"))
        return
    if st.session_state.pop(f"fb_reset:{g.id}", False):
        st.session_state.pop(f"fb:{g.id}", None)
    st.feedback("thumbs", key=f"fb:{g.id}", on_change=_on_vote, args=(g.id, done))
    error = st.session_state.pop(f"fb_error:{g.id}", None)
    if error:
        st.error(error)
    row = st.session_state.get(f"fb_row:{g.id}")
    if row is None:
        return
    st.success(t("fb_thanks"))
    sent_key = f"fb_sent:{g.id}"
    comment = st.text_input(t("fb_comment"), key=f"fb_comment:{g.id}", max_chars=2000)
    # Never disabled by what is typed: the box commits on blur, so a click on a button drawn
    # disabled from the last run would be lost. Sending the same comment again changes nothing.
    if st.button(t("fb_send"), key=f"fb_send:{g.id}") and comment.strip():
        try:
            store.add_comment(row, comment, client=client_address())
        except StoreUnavailable as exc:
            st.error(shown(exc))
        else:
            st.session_state[sent_key] = comment
    if st.session_state.get(sent_key):
        st.caption(t("fb_comment_added"))


def record_unmatched(d: Diagnosis) -> None:
    """Count this paste's error signature once per session; never store the paste itself."""
    store = get_store()
    signature = d.unmatched
    if not store.enabled or not signature:
        return
    seen = st.session_state.setdefault("unmatched_seen", set())
    if signature in seen:
        return
    try:
        store.record_unmatched(signature, lang(), client=client_address())
    except StoreUnavailable as exc:
        log.warning("unmatched signature not stored: %s", exc)
        st.caption(shown(exc))
        return
    seen.add(signature)
