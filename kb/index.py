"""The index: every signature's literal anchor in one Aho-Corasick automaton, so a paste
is scanned once whatever the number of guides; the few candidates it finds are then
verified with their RE2 patterns (compiled on first use)."""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import ahocorasick
import re2

from kb.load import Loaded, Problem, load_guides
from kb.signature import Compiled, TemplateError, compile_regex, compile_template
from schema.models import Guide

_WORD = re.compile(r"[a-z][a-z0-9_]{2,}|[\u4e00-\u9fff]{2,}")
_STOP = frozenset("the and for with this that was not are you from has have when can its".split())


def tokens(text: str) -> list[str]:
    return [t for t in _WORD.findall(text.lower()) if t not in _STOP]


@dataclass
class Pattern:
    guide: str
    sig: str  # signature id
    ctx: int  # -1: the signature itself; otherwise the index of its context entry
    source: str  # the template or regex as written, for explanations
    kind: str  # "template" or "regex"
    compiled: Compiled
    wrapper: bool = False
    _re: object = field(default=None, repr=False, compare=False)

    @property
    def regex(self):
        if self._re is None:
            self._re = re2.compile(self.compiled.pattern)
        return self._re

    def __getstate__(self):
        # Compiled RE2 objects don't pickle; they are rebuilt lazily after a cache load.
        state = dict(self.__dict__)
        state["_re"] = None
        return state


@dataclass
class Index:
    guides: dict[str, Guide]
    patterns: list[Pattern]
    automaton: ahocorasick.Automaton | None
    problems: list[Problem]
    paths: dict[str, Path]
    # BM25 over guide text, only for offering "similar" guides when nothing matches.
    postings: dict[str, list[tuple[str, int]]]
    doc_len: dict[str, int]
    avg_len: float
    contexts: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    def contexts_of(self, p: Pattern) -> list[Pattern]:
        return [self.patterns[i] for i in self.contexts.get((p.guide, p.sig), ())]

    def similar(self, query: list[str], k: int = 3, exclude: set[str] = frozenset()) -> list[tuple[str, float]]:
        n = len(self.doc_len) or 1
        scores: Counter[str] = Counter()
        for term in set(query):
            plist = self.postings.get(term)
            if not plist:
                continue
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            for gid, tf in plist:
                dl = self.doc_len[gid]
                scores[gid] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / self.avg_len))
        return [(g, s) for g, s in scores.most_common(k + len(exclude)) if g not in exclude][:k]


def _doc_text(g: Guide) -> str:
    parts = [g.title.en or "", g.title.zh or "", g.summary.en or "", g.component, " ".join(g.tags)]
    parts += [s.template or s.anchor or "" for s in g.signatures]
    parts += [s.en or "" for s in g.symptoms]
    return " ".join(parts)


def compile_guide(g: Guide) -> tuple[list[Pattern], list[str]]:
    """Patterns for one guide's signatures and contexts, and a message per one that fails."""
    out: list[Pattern] = []
    errors: list[str] = []
    for s in g.signatures:
        items = [(-1, s.template, s.regex, s.anchor)] + [(i, c.template, c.regex, c.anchor) for i, c in enumerate(s.context)]
        compiled: list[Pattern] = []
        for ctx, template, regex, anchor in items:
            where = f"signatures[{s.id}]" + (f".context[{ctx}]" if ctx >= 0 else "")
            try:
                c = compile_template(template) if template is not None else compile_regex(regex, anchor)
            except TemplateError as exc:
                errors.append(f"{where}: {exc}")
                break
            compiled.append(Pattern(g.id, s.id, ctx, template if template is not None else regex,
                                    "template" if template is not None else "regex", c, s.wrapper))
        else:
            out.extend(compiled)
    return out, errors


def build_index(loaded: Loaded) -> Index:
    problems = list(loaded.problems)
    patterns: list[Pattern] = []
    guides: dict[str, Guide] = {}
    for g in loaded.guides:
        pats, errors = compile_guide(g)
        for e in errors:
            problems.append(Problem(str(loaded.paths.get(g.id, g.id)), None, e.split(":")[0], e.split(": ", 1)[-1]))
        if not any(p.ctx == -1 for p in pats):
            problems.append(Problem(str(loaded.paths.get(g.id, g.id)), None, "signatures", "no usable signature; the guide is not served"))
            continue
        guides[g.id] = g
        patterns.extend(pats)
    contexts: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, p in enumerate(patterns):
        if p.ctx >= 0:
            contexts[(p.guide, p.sig)].append(i)
    automaton = None
    if patterns:
        by_anchor: dict[str, list[int]] = defaultdict(list)
        for i, p in enumerate(patterns):
            by_anchor[p.compiled.anchor].append(i)
        automaton = ahocorasick.Automaton()
        for anchor, ids in by_anchor.items():
            automaton.add_word(anchor, (len(anchor), tuple(ids)))
        automaton.make_automaton()
    postings: dict[str, list[tuple[str, int]]] = defaultdict(list)
    doc_len: dict[str, int] = {}
    for gid, g in guides.items():
        toks = tokens(_doc_text(g))
        doc_len[gid] = len(toks) or 1
        for term, tf in Counter(toks).items():
            postings[term].append((gid, tf))
    avg = sum(doc_len.values()) / len(doc_len) if doc_len else 1.0
    return Index(guides, patterns, automaton, problems, {k: v for k, v in loaded.paths.items() if k in guides},
                 dict(postings), doc_len, avg, dict(contexts))


def load_index(root: Path | str | None = None) -> Index:
    return build_index(load_guides(root))
