"""Authors: which errors have no guide yet, and which guides help. Read-only for visitors."""
from __future__ import annotations

import streamlit as st

from components.feedback import get_store
from components.i18n import lang, t
from components.markup import label
from components.state import get_index
from kb.parse import parse
from kb.render import text
from kb.skeleton import skeleton
from kb.store import StoreUnavailable

TEXT = {
    "intro": ("What people pasted that no guide answers yet, and how the guides do. Read-only; nothing here changes the knowledge base.",
              "大家粘贴过但还没有指南能回答的报错，以及各指南的效果。只读页面，不会修改知识库。"),
    "unmatched": ("Most frequent unmatched errors", "最常见的未匹配报错"),
    "no_unmatched": ("No unmatched error recorded yet.", "还没有记录到未匹配的报错。"),
    "seen": ("seen {n}×, last {last}", "出现 {n} 次，最近 {last}"),
    "start": ("Start a guide from this", "从这里新建指南"),
    "helpfulness": ("Helpfulness by guide", "各指南的有用程度"),
    "no_feedback": ("No feedback yet.", "还没有反馈。"),
    "over_time": ("Feedback over time", "反馈随时间变化"),
    "off": ("Recording is switched off on this server (KB_RECORDING=0).", "本服务器已关闭记录（KB_RECORDING=0）。"),
    "guide": ("guide", "指南"), "answers": ("answers", "回答数"), "rate": ("helpful", "有用比例"), "comments": ("recent comments", "最近评论"),
    "yes": ("helpful", "有用"), "no": ("not helpful", "没用"),
}


def _t(key: str, **kw: object) -> str:
    s = TEXT[key][1 if lang() == "zh" else 0]
    return s.format(**kw) if kw else s


def page() -> None:
    st.title(t("authors"), anchor=False)
    st.caption(_t("intro"))
    store = get_store()
    if not store.enabled:
        st.info(_t("off"))
    for section in (_unmatched, _helpfulness, _over_time):
        try:
            section(store)
        except StoreUnavailable as exc:
            st.error(str(exc))


def _unmatched(store) -> None:
    st.subheader(_t("unmatched"), anchor=False)
    rows = store.top_unmatched(20)
    if not rows:
        st.info(_t("no_unmatched"))
    for n, row in enumerate(rows):
        with st.container(border=True):
            st.caption(_t("seen", n=row.count, last=row.last_seen.strftime("%Y-%m-%d %H:%M UTC")))
            st.code(row.signature, language=None, wrap_lines=True)
            st.download_button(_t("start"), skeleton(parse(row.signature)), file_name=f"new-guide-{row.signature_hash[:8]}.yaml",
                               mime="text/yaml", key=f"start:{row.signature_hash}", on_click="ignore")


def _helpfulness(store) -> None:
    st.subheader(_t("helpfulness"), anchor=False)
    rows = store.helpfulness()
    if not rows:
        st.info(_t("no_feedback"))
        return
    guides = get_index().guides
    # st.table reads its cells as Markdown: visitors' comments and guide titles go in as text.
    st.table([{_t("guide"): label(text(guides[r.guide_id].title, lang())) if r.guide_id in guides else label(r.guide_id),
                   _t("answers"): r.answers, _t("rate"): f"{r.rate:.0%}", _t("comments"): label(" | ".join(r.recent_comments))}
              for r in rows])


def _over_time(store) -> None:
    st.subheader(_t("over_time"), anchor=False)
    days = store.feedback_over_time()
    if not days:
        st.info(_t("no_feedback"))
        return
    st.bar_chart({"day": [d.day.isoformat() for d in days], _t("yes"): [d.helpful for d in days], _t("no"): [d.not_helpful for d in days]},
                 x="day", y=[_t("yes"), _t("no")], color=["#16a34a", "#dc2626"])
