"""All guides, searchable by text and filterable by component, tag, hardware and status."""
from __future__ import annotations

import streamlit as st

from components.i18n import lang, t
from components.markup import esc, label
from components.state import get_index
from kb.render import text
from schema.models import Guide

STATUSES = ("fixed", "workaround", "unresolved")


def _haystack(g: Guide) -> str:
    parts = [g.id, g.component, " ".join(g.tags), g.title.en or "", g.title.zh or "", g.summary.en or "", g.summary.zh or ""]
    parts += [s.template or s.anchor or "" for s in g.signatures]
    return " ".join(parts).lower()


def _hardware(g: Guide) -> list[str]:
    hw = g.applies_to.hardware
    return [f"SM{cc.replace('.', '')}" for cc in hw.compute_capability] if hw else []


def filter_guides(guides: list[Guide], query: str, components: list[str], tags: list[str], hardware: list[str], statuses: list[str]) -> list[Guide]:
    words = [w for w in query.lower().split() if w]
    out = []
    for g in guides:
        hay = _haystack(g)
        if words and not all(w in hay for w in words):
            continue
        if components and g.component not in components:
            continue
        if tags and not set(tags) & set(g.tags):
            continue
        if hardware and not set(hardware) & set(_hardware(g)):
            continue
        if statuses and g.status not in statuses:
            continue
        out.append(g)
    return out


def guide_list(key_prefix: str = "browse") -> None:
    index = get_index()
    guides = sorted(index.guides.values(), key=lambda g: (g.component, g.id))
    query = st.text_input(t("search"), key=f"{key_prefix}_q", placeholder=t("search_placeholder"), max_chars=200)
    cols = st.columns(4)
    comps = cols[0].multiselect(t("component"), sorted({g.component for g in guides}), key=f"{key_prefix}_component")
    tags = cols[1].multiselect(t("tag"), sorted({x for g in guides for x in g.tags}), key=f"{key_prefix}_tag")
    hw = cols[2].multiselect(t("hardware"), sorted({x for g in guides for x in _hardware(g)}), key=f"{key_prefix}_hardware")
    sts = cols[3].multiselect(t("status"), STATUSES, format_func=t, key=f"{key_prefix}_status")
    shown = filter_guides(guides, query or "", comps, tags, hw, sts)
    st.caption(t("guides_count", n=len(shown)))
    if not shown:
        st.info(t("no_guides"))
    for g in shown:
        with st.container(border=True):
            st.page_link(st.session_state["_home_page"], label=label(text(g.title, lang())), query_params=_params(g.id))
            st.caption(f"{esc(g.component)} · {esc(t(g.status))} · `{g.id}`" + (" · " + esc(", ".join(_hardware(g))) if _hardware(g) else ""))


def _params(gid: str) -> dict[str, str]:
    return {"guide": gid, **({"lang": lang()} if lang() != "en" else {})}


def page() -> None:
    st.title(t("browse"), anchor=False)
    guide_list()
