"""The "similar" tier: when nothing answers, at most three guides whose error shares rare,
informative words with the paste's root error and the files of its innermost frames.

Words every log of the stack prints weigh a fifth of the others (kb.engine.textsim), the
rest by how rare they are among the guides; below a floor nothing is offered, and an
empty list is a fine answer.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kb.engine.roots import RootError
from kb.engine.textsim import MASKS, STACK_WORDS, mask, words
from kb.engine.tracebacks import FRAME_ANYWHERE

if TYPE_CHECKING:
    from kb.engine.index import Index
    from kb.engine.parse import Paste

FLOOR = 0.35  # share of the query's informative weight a guide must share
MIN_SHARED = 2  # informative words in common, at least
_FILE = re.compile(r"([\w-]+)\.py$")


def query_words(paste: "Paste", root: RootError | None) -> list[str]:
    """The root error's words (masked), and the files and packages of the paste's frames."""
    text = root.text if root is not None else " ".join(paste.lines[e.index].text for e in paste.errors[:5])
    out = words(mask(text))
    files = []
    for m in FRAME_ANYWHERE.finditer(paste.text[-200_000:]):
        f = _FILE.search(m.group(1).replace("\\", "/"))
        if f:
            files.append(f.group(1).lower())
    out += files[-6:] + [p.lower() for p in paste.modules]
    return [w for w in dict.fromkeys(out) if w not in MASKS]


def similar(index: "Index", paste: "Paste", root: RootError | None, exclude: set[str],
            k: int) -> list[tuple[str, float, list[str]]]:
    """(guide, share of the query's weight it shares, the informative words shared), best first."""
    if k <= 0:
        return []
    query = query_words(paste, root)
    if not query:
        return []
    # A word's guides are looked up for the few candidates only (kb.engine.postings), never listed.
    idf = {t: index.idf(t, index.bm25.df(t)) for t in query}
    total = sum(idf.values()) or 1.0
    out: list[tuple[str, float, list[str]]] = []
    found = index.similar(query, k * 3, frozenset(exclude))
    held = index.bm25.holding(query, [gid for gid, _ in found])
    for gid, _ in found:
        shared = [t for t in query if t in held[gid]]
        informative = [t for t in shared if t not in STACK_WORDS]
        share = sum(idf[t] for t in shared) / total
        if len(informative) < MIN_SHARED or share < FLOOR:
            continue
        out.append((gid, share, sorted(informative, key=lambda t: -idf[t])[:8]))
        if len(out) >= k:
            break
    return out
