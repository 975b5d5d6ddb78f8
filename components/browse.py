"""All guides, searchable by text and filterable by component, tag, hardware and status.

Works on the index's per-guide rows (kb.engine.index.GuideMeta), so listing ten thousand guides
decodes none of them; a page shows PAGE_SIZE rows at a time.
"""
from __future__ import annotations

import math
import re

import streamlit as st

from components.i18n import lang, t
from components.markup import esc, label
from components.state import get_index
from kb.engine.guidestore import GuideMeta
from kb.env.gpus import find_gpu, normalise_name

STATUSES = ("fixed", "workaround", "unresolved")
PAGE_SIZE = 50


def _hardware(m: GuideMeta) -> list[str]:
    return [f"SM{cc.replace('.', '')}" for cc in m.compute_capability]


_SM = re.compile(r"\bSM_?(\d{2,3})\b")
# How reports spell a GPU around its model ("NVIDIA H100-SXM5-80GB"): part of the name, not search words.
_GPU_WORDS = re.compile(r"nvidia|geforce|tesla|sxm\d?|pcie|nvl|hbm\d?e?|\d+gb", re.I)


def gpu_in_query(query: str) -> tuple[str, str, list[str]] | None:
    """A GPU named in a search ("H100", "rtx 5090", "SM90"): its name as found, its compute
    capability, and the query's other words; None when the query names none."""
    norm = normalise_name(query)
    sm = _SM.search(norm)
    if sm:
        digits = sm.group(1)
        cc, span = f"{digits[:-1]}.{digits[-1]}", sm.span()
    else:
        found = find_gpu(norm)
        if found is None:
            return None
        cc, span = found[2], found[:2]
    rest = [w for w in (norm[: span[0]] + " " + norm[span[1]:]).lower().split() if not _GPU_WORDS.fullmatch(w)]
    return norm[span[0]: span[1]], cc, rest


def filter_guides(rows: dict[str, GuideMeta], query: str, components: list[str], tags: list[str], hardware: list[str],
                  statuses: list[str]) -> list[str]:
    """Ids of the guides that fit, ordered by component then id. A GPU in the query finds the
    guides for its compute capability, and those whose text names it."""
    words = [w for w in query.lower().split() if w]
    gpu = gpu_in_query(query) if words else None
    if gpu is not None:
        name, cc, words = gpu[0].lower(), gpu[1], gpu[2]
    out = []
    for gid, m in rows.items():
        if gpu is not None and cc not in m.compute_capability and name not in m.search:
            continue
        if words and not all(w in m.search for w in words):
            continue
        if components and m.component not in components:
            continue
        if tags and not set(tags) & set(m.tags):
            continue
        if hardware and not set(hardware) & set(_hardware(m)):
            continue
        if statuses and m.status not in statuses:
            continue
        out.append(gid)
    return sorted(out, key=lambda gid: (rows[gid].component, gid))


def guide_list(key_prefix: str = "browse") -> None:
    rows = get_index().guides.meta
    query = st.text_input(t("search"), key=f"{key_prefix}_q", placeholder=t("search_placeholder"), max_chars=200)
    cols = st.columns(4)
    comps = cols[0].multiselect(t("component"), sorted({m.component for m in rows.values()}), key=f"{key_prefix}_component")
    tags = cols[1].multiselect(t("tag"), sorted({x for m in rows.values() for x in m.tags}), key=f"{key_prefix}_tag")
    hw = cols[2].multiselect(t("hardware"), sorted({x for m in rows.values() for x in _hardware(m)}), key=f"{key_prefix}_hardware")
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
            st.caption(f"{esc(m.component)} · {esc(t(m.status))} · `{gid}`" + (" · " + esc(", ".join(_hardware(m))) if _hardware(m) else ""))


def _params(gid: str) -> dict[str, str]:
    return {"guide": gid, **({"lang": lang()} if lang() != "en" else {})}


def page() -> None:
    st.title(t("browse"), anchor=False)
    guide_list()
