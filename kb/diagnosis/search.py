"""The guide list's search (the Browse page, `GET /v1/guides?q=`): words, a GPU by its name, filters.

Works on the index's per-guide rows (GuideMeta), so searching ten thousand guides decodes none of them.
"""
from __future__ import annotations

import re
from typing import Any

from kb.engine.guidestore import GuideMeta
from kb.engine.index import Index
from kb.env.gpus import find_gpu, normalise_name

STATUSES = ("fixed", "workaround", "unresolved")


def hardware_of(m: GuideMeta) -> list[str]:
    return [f"SM{cc.replace('.', '')}" for cc in m.compute_capability]


_SM = re.compile(r"\bSM_?(\d{2,3})\b")
# How reports spell a GPU around its model ("NVIDIA H100-SXM5-80GB"): part of the name, not search words.
_GPU_WORDS = re.compile(r"nvidia|geforce|tesla|sxm\d?|pcie|nvl|hbm\d?e?|\d+gb", re.I)


# A GeForce model number searched alone ("4090"): people drop the "RTX" that reports write.
# Only in a search, where a bare 4090 means the card; in a report it could be any number.
_BARE_RTX = re.compile(r"(?<![A-Z0-9])\b((?:20[6-8]|30[5-9]|40[5-9]|50[5-9])0)\b")


def gpu_in_query(query: str) -> tuple[str, str, list[str]] | None:
    """A GPU named in a search ("H100", "rtx 5090", "4090", "SM90"): its name as found, its
    compute capability, and the query's other words; None when the query names none."""
    norm = normalise_name(query)
    if find_gpu(norm) is None and not _SM.search(norm):
        norm = _BARE_RTX.sub(r"RTX \1", norm)
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
        if hardware and not set(hardware) & set(hardware_of(m)):
            continue
        if statuses and m.status not in statuses:
            continue
        out.append(gid)
    return sorted(out, key=lambda gid: (rows[gid].component, gid))


def search_guides(index: Index, query: str, limit: int = 50) -> list[dict[str, Any]]:
    """The guides a search finds, as the API lists them: id, component, status, titles."""
    rows = index.guides.meta
    return [{"id": gid, "component": rows[gid].component, "status": rows[gid].status,
             "title": {"en": rows[gid].title_en, "zh": rows[gid].title_zh}}
            for gid in filter_guides(rows, query, [], [], [], [])[:limit]]
