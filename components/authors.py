"""Authors: which errors have no guide yet, and which guides help. Read-only for visitors."""
from __future__ import annotations

import streamlit as st

from components.feedback import get_store
from components.i18n import lang, t
from components.markup import label
from components.state import get_index
from kb.engine.parse import parse
from kb.guides.render import text
from kb.authoring.skeleton import skeleton
from kb.feedback.store import StoreUnavailable




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
    for n, row in enumerate(rows):
        with st.container(border=True):
            st.caption(t("au_seen", n=row.count, last=row.last_seen.strftime("%Y-%m-%d %H:%M UTC")))
            st.code(row.signature, language=None, wrap_lines=True)
            st.download_button(t("au_start"), skeleton(parse(row.signature)), file_name=f"new-guide-{row.signature_hash[:8]}.yaml",
                               mime="text/yaml", key=f"start:{row.signature_hash}", on_click="ignore")


def _helpfulness(store) -> None:
    st.subheader(t("au_helpfulness"), anchor=False)
    rows = store.helpfulness()
    if not rows:
        st.info(t("au_no_feedback"))
        return
    guides = get_index().guides
    # st.table reads its cells as Markdown: visitors' comments and guide titles go in as text.
    st.table([{t("au_guide"): label(text(guides[r.guide_id].title, lang())) if r.guide_id in guides else label(r.guide_id),
                   t("au_answers"): r.answers, t("au_rate"): f"{r.rate:.0%}", t("au_comments"): label(" | ".join(r.recent_comments))}
              for r in rows])


def _over_time(store) -> None:
    st.subheader(t("au_over_time"), anchor=False)
    days = store.feedback_over_time()
    if not days:
        st.info(t("au_no_feedback"))
        return
    st.bar_chart({"day": [d.day.isoformat() for d in days], t("au_yes"): [d.helpful for d in days], t("au_no"): [d.not_helpful for d in days]},
                 x="day", y=[t("au_yes"), t("au_no")], color=["#16a34a", "#dc2626"])
