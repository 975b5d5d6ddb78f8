"""The two baselines `kb eval` compares the matcher with: a BM25 search box over the
guides' text, and an exact search for the exception's last line."""
from __future__ import annotations

import math
from collections import Counter, defaultdict

from kb.engine.index import Index, tokens
from kb.engine.parse import last_error_line, parse


def strings_in(value) -> list[str]:
    """Every string in a nested structure of dicts, lists and tuples (a guide's dumped fields)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []


class BM25:
    """A knowledge-base search box: BM25 (k1 1.2, b 0.75) over every text of every guide."""

    def __init__(self, index: Index, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tf: dict[str, Counter] = {}
        df: Counter = Counter()
        for gid, g in index.guides.items():
            toks = tokens(" ".join(strings_in(g.model_dump(mode="json"))))
            self.tf[gid] = Counter(toks)
            df.update(set(toks))
        n = len(self.tf) or 1
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.len = {gid: sum(c.values()) or 1 for gid, c in self.tf.items()}
        self.avg = sum(self.len.values()) / n
        self.postings: dict[str, list[str]] = defaultdict(list)
        for gid, c in self.tf.items():
            for t in c:
                self.postings[t].append(gid)

    def search(self, query: str, k: int = 10) -> list[str]:
        scores: dict[str, float] = defaultdict(float)
        for t in set(tokens(query)):
            for gid in self.postings.get(t, ()):
                tf = self.tf[gid][t]
                scores[gid] += self.idf[t] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.len[gid] / self.avg))
        return [gid for gid, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:k]]


class ExactLastLine:
    """An exact search for the exception's last line among the guides' raw errors."""

    def __init__(self, index: Index):
        self.by_line: dict[str, list[str]] = defaultdict(list)
        for gid, g in index.guides.items():
            for raw in g.raw_errors:
                line = last_error_line(parse(raw.text))
                if line and gid not in self.by_line[line.strip()]:
                    self.by_line[line.strip()].append(gid)

    def search(self, text: str) -> list[str]:
        line = last_error_line(parse(text))
        return sorted(self.by_line.get(line.strip(), ())) if line else []
