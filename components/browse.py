"""All guides, searchable by text and filterable by component, tag, hardware and status.

The search is kb's (kb.diagnosis.search, also `GET /v1/guides?q=`); it works on the index's per-guide
rows, so listing ten thousand guides decodes none of them. A page shows PAGE_SIZE rows at a time.
"""
from __future__ import annotations

import math

import streamlit as st

from components.i18n import lang, t
from components.markup import esc, label
from components.state import get_index
from kb.diagnosis.search import STATUSES, filter_guides, gpu_in_query, hardware_of

__all__ = ["filter_guides", "guide_list", "page"]
PAGE_SIZE = 50


def guide_list(key_prefix: str = "browse") -> None:
    rows = get_index().guides.meta
    query = st.text_input(t("search"), key=f"{key_prefix}_q", placeholder=t("search_placeholder"), max_chars=200)
    cols = st.columns(4)
    comps = cols[0].multiselect(t("component"), sorted({m.component for m in rows.values()}), key=f"{key_prefix}_component")
    tags = cols[1].multiselect(t("tag"), sorted({x for m in rows.values() for x in m.tags}), key=f"{key_prefix}_tag")
    hw = cols[2].multiselect(t("hardware"), sorted({x for m in rows.values() for x in hardware_of(m)}), key=f"{key_prefix}_hardware")
    sts = cols[3].multiselect(t("status"), STATUSES, format_func=t, key=f"{key_prefix}_status")
    shown = filter_guides(rows, query or "", comps, tags, hw, sts)
    gpu = gpu_in_query(query or "")
    if gpu is not None:
        st.caption(t("gpu_found", gpu=esc(gpu[0]), cc=gpu[1], sm=gpu[1].replace(".", "")))
    st.caption(t("guides_count", n=len(shown)))
    if not shown:
        st.info(t("no_guides"))
        return
    pages = math.ceil(len(shown) / PAGE_SIZE)
    page_no = st.number_input(t("page"), 1, pages, 1, key=f"{key_prefix}_page") if pages > 1 else 1
    for gid in shown[(page_no - 1) * PAGE_SIZE: page_no * PAGE_SIZE]:
        m = rows[gid]
        with st.container(border=True):
            title = m.title_zh if lang() == "zh" else m.title_en
            st.page_link(st.session_state["_home_page"], label=label(title), query_params=_params(gid))
            st.caption(f"{esc(m.component)} · {esc(t(m.status))} · `{gid}`" + (" · " + esc(", ".join(hardware_of(m))) if hardware_of(m) else ""))


def _params(gid: str) -> dict[str, str]:
    return {"guide": gid, **({"lang": lang()} if lang() != "en" else {})}


def page() -> None:
    st.title(t("browse"), anchor=False)
    guide_list()
