"""BM25 over guide words as an inverted index of flat arrays, and its top-k search.

The likely and similar tiers take their candidates from here. A query's words are often
words nearly every guide holds ("error", "cuda", "file"); scoring every posting of those
would cost time in proportion to the number of guides. The search is MaxScore's: the rare
words' postings are scored first, and a common word's postings are read only for the few
guides that could still reach the top k (each word's highest contribution bounds what the
others can add). The result is the one scoring every posting gives: same guides, same
scores; guides of equal score come in load order.

Every posting's BM25 contribution is computed once, when the index is built; the arrays
pickle as a few large buffers, so a cached index loads without millions of objects.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np

K1, B = 1.2, 0.75
_EPS = 1e-9  # float slack on the bounds: summing in another order may differ in the last bits
_FIRST_BUDGET = 2048  # postings of the rarest words scored before the bound is tried


class Postings:
    """Words -> the guides that hold them (by position in `ids`), with each posting's BM25 score."""

    __slots__ = ("ids", "terms", "offsets", "docs", "tfs", "contrib", "ub", "lens", "avg", "_pos")

    def __init__(self, docs: dict[str, Counter], weight: Callable[[str], float]):
        self.ids: list[str] = list(docs)
        lens = [sum(c.values()) or 1 for c in docs.values()]
        self.avg = sum(lens) / len(lens) if lens else 1.0
        by_term: dict[str, tuple[list[int], list[int]]] = {}
        for d, toks in enumerate(docs.values()):
            for term, tf in toks.items():
                lists = by_term.get(term)
                if lists is None:
                    lists = by_term[term] = ([], [])
                lists[0].append(d)
                lists[1].append(tf)
        self.terms: dict[str, int] = {t: i for i, t in enumerate(by_term)}
        sizes = np.fromiter((len(v[0]) for v in by_term.values()), dtype=np.int64, count=len(by_term))
        self.offsets = np.zeros(len(by_term) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.offsets[1:])
        self.docs = np.fromiter((d for v in by_term.values() for d in v[0]), dtype=np.int32, count=int(self.offsets[-1]))
        self.tfs = np.fromiter((f for v in by_term.values() for f in v[1]), dtype=np.int32, count=int(self.offsets[-1]))
        self.lens = np.asarray(lens, dtype=np.int64)
        n = len(self.ids) or 1
        idf = np.fromiter((weight(t) * math.log(1 + (n - len(v[0]) + 0.5) / (len(v[0]) + 0.5)) for t, v in by_term.items()),
                          dtype=np.float64, count=len(by_term))
        # The same expression, in the same order, as scoring one posting at a time.
        tf = self.tfs.astype(np.float64)
        dl = self.lens[self.docs].astype(np.float64)
        self.contrib = np.repeat(idf, sizes) * tf * 2.2 / (tf + K1 * (0.25 + B * dl / self.avg))
        self.ub = np.maximum.reduceat(self.contrib, self.offsets[:-1]) if len(sizes) and self.offsets[-1] else np.zeros(len(sizes))
        self._pos: dict[str, int] | None = None

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.ids)

    def df(self, term: str) -> int:
        t = self.terms.get(term)
        return 0 if t is None else int(self.offsets[t + 1] - self.offsets[t])

    def position(self, gid: str) -> int | None:
        if self._pos is None:
            self._pos = {g: i for i, g in enumerate(self.ids)}
        return self._pos.get(gid)

    def holds(self, term: str, gid: str) -> bool:
        t, d = self.terms.get(term), self.position(gid)
        if t is None or d is None:
            return False
        docs = self.docs[self.offsets[t]:self.offsets[t + 1]]
        i = int(np.searchsorted(docs, d))
        return i < len(docs) and int(docs[i]) == d

    def holding(self, terms: Iterable[str], gids: list[str]) -> dict[str, set[str]]:
        """For each guide of `gids`, which of `terms` it holds: one look-up per term, not per pair."""
        out: dict[str, set[str]] = {g: set() for g in gids}
        pos = [self.position(g) for g in gids]
        known = [(g, d) for g, d in zip(gids, pos, strict=False) if d is not None]
        if not known:
            return out
        cand = np.asarray([d for _, d in known], dtype=np.int32)
        for term in dict.fromkeys(terms):
            t = self.terms.get(term)
            if t is None:
                continue
            docs, _ = self._slice(t)
            i = np.searchsorted(docs, cand)
            i[i >= len(docs)] = 0
            for (g, _), hit in zip(known, (docs[i] == cand).tolist(), strict=False):
                if hit:
                    out[g].add(term)
        return out

    def plist(self, term: str) -> list[tuple[str, int]] | None:
        t = self.terms.get(term)
        if t is None:
            return None
        a, b = self.offsets[t], self.offsets[t + 1]
        return [(self.ids[d], int(f)) for d, f in zip(self.docs[a:b].tolist(), self.tfs[a:b].tolist(), strict=False)]

    def as_dict(self) -> dict[str, list[tuple[str, int]]]:
        return {term: self.plist(term) for term in self.terms}

    def doc_len(self) -> dict[str, int]:
        return dict(zip(self.ids, self.lens.tolist(), strict=False))

    # -- search ----------------------------------------------------------------------------

    def _slice(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.offsets[t], self.offsets[t + 1]
        return self.docs[a:b], self.contrib[a:b]

    def _full(self, cand: np.ndarray, terms: list[int]) -> np.ndarray:
        """The scores of guides `cand` (sorted positions), summed over `terms` in their order."""
        out = np.zeros(len(cand), dtype=np.float64)
        for t in terms:
            docs, contrib = self._slice(t)
            i = np.searchsorted(docs, cand)
            i[i >= len(docs)] = 0
            hit = docs[i] == cand
            out += np.where(hit, contrib[i], 0.0)
        return out

    def top(self, query: Iterable[str], m: int, budget: int = _FIRST_BUDGET) -> list[tuple[str, float]]:
        """The `m` best guides for the query's words (each word counted once), best first.
        `budget`: postings scored before the bound is first tried (a test sets it to 1)."""
        terms = [t for t in (self.terms.get(w) for w in dict.fromkeys(query)) if t is not None]
        if not terms or m <= 0:
            return []
        rare = sorted(terms, key=lambda t: (int(self.offsets[t + 1] - self.offsets[t]), t))
        total = sum(int(self.offsets[t + 1] - self.offsets[t]) for t in terms)
        j = 0
        partial = np.zeros(len(self.ids), dtype=np.float64)
        used = 0
        while True:
            # Score the rarest words' postings, up to the budget (at least one word more).
            while j < len(rare) and (used < budget or j == 0):
                docs, contrib = self._slice(rare[j])
                partial[docs] += contrib
                used += len(docs)
                j += 1
            if j == len(rare):
                break  # every posting is scored: no bound needed
            rest = float(self.ub[rare[j:]].sum())
            touched = np.flatnonzero(partial)
            if len(touched) >= m:
                p = partial[touched]
                floor = np.partition(p, len(p) - m)[len(p) - m]  # the m-th best partial score: the full one is at least it
                cand = touched[p + rest + _EPS >= floor]
                full = self._full(cand, terms)
                theta = np.partition(full, len(full) - m)[len(full) - m]
                if rest + _EPS < theta:  # a guide outside `cand` scores at most `rest`, or less than `floor`
                    return self._best(cand, full, m)
            if used >= total:
                break
            budget *= 4
        cand = np.flatnonzero(partial)
        return self._best(cand, self._full(cand, terms), m)

    def _best(self, cand: np.ndarray, full: np.ndarray, m: int) -> list[tuple[str, float]]:
        order = np.lexsort((cand, -full))[:m]  # score, then load order
        return [(self.ids[int(cand[i])], float(full[i])) for i in order]
