"""Authors: which errors have no guide yet, and which guides help. Read-only for visitors."""
from __future__ import annotations

import streamlit as st

from components.feedback import get_store
from components.i18n import lang, t
from components.markup import label
from components.state import get_index
from kb.diagnosis import skeleton_of
from kb.feedback.store import StoreUnavailable
from kb.guides.render import text


def page() -> None:
    st.title(t("authors"), anchor=False)
    st.caption(t("au_intro"))
    store = get_store()
    if not store.enabled:
        st.info(t("au_off"))
    for section in (_unmatched, _helpfulness, _over_time):
        try:
            section(store)
        except StoreUnavailable as exc:
            st.error(str(exc))


def _unmatched(store) -> None:
    st.subheader(t("au_unmatched"), anchor=False)
    rows = store.top_unmatched(20)
    if not rows:
        st.info(t("au_no_unmatched"))
    for row in rows:
        with st.container(border=True):
            st.caption(t("au_seen", n=row.count, people=row.addresses, last=row.last_seen.strftime("%Y-%m-%d %H:%M UTC")))
            st.code(row.signature, language=None, wrap_lines=True)
            st.download_button(t("au_start"), skeleton_of(row.signature), file_name=f"new-guide-{row.signature_hash[:8]}.yaml",
                               mime="text/yaml", key=f"start:{row.signature_hash}", on_click="ignore")


def _helpfulness(store) -> None:
    st.subheader(t("au_helpfulness"), anchor=False)
    rows = store.helpfulness()
    if not rows:
        st.info(t("au_no_feedback"))
        return
    guides = get_index().guides

    def title(guide_id: str) -> str:
        return label(text(guides[guide_id].title, lang())) if guide_id in guides else label(guide_id)

    # st.table reads its cells as Markdown: only our numbers and escaped guide titles go in.
    # Ranked by distinct addresses (the store's order): many tabs of one visitor count once.
    st.table([{t("au_guide"): title(r.guide_id), t("au_addresses"): r.addresses, t("au_answers"): r.answers,
               t("au_rate"): f"{r.rate:.0%}"} for r in rows])
    # Visitors' comments are shown as plain text (st.text parses neither Markdown nor HTML):
    # no escaping can keep up with every extension Streamlit's Markdown reads (links, directives,
    # icons, emoji shortcodes, strike-through), and every author sees this page.
    for r in rows:
        if r.recent_comments:
            st.markdown(f"**{t('au_comments')}** · {title(r.guide_id)}")
            for comment in r.recent_comments:
                st.text(comment)


def _over_time(store) -> None:
    st.subheader(t("au_over_time"), anchor=False)
    days = store.feedback_over_time()
    if not days:
        st.info(t("au_no_feedback"))
        return
    st.bar_chart({"day": [d.day.isoformat() for d in days], t("au_yes"): [d.helpful for d in days], t("au_no"): [d.not_helpful for d in days]},
                 x="day", y=[t("au_yes"), t("au_no")], color=["#16a34a", "#dc2626"])
