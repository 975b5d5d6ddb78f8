"""The index: every signature's literal anchor in one Aho-Corasick automaton, so a paste
is scanned once whatever the number of guides; the few candidates it finds are then
verified with their RE2 patterns (compiled on first use)."""
from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import ahocorasick
import re2

from kb.engine.guidestore import GuideMeta, GuideStore, encode_guide, guide_meta  # noqa: F401 (re-exported)
from kb.engine.likely import Ref, guide_refs, guide_shingles
from kb.engine.signature import Compiled, TemplateError, compile_regex, compile_template
from kb.engine.textsim import boilerplate, weight, words
from kb.guides.load import GUIDES_DIR, Loaded, Problem, check_guides, guide_files, load_guides, read_many
from schema.models import Guide

_STOP = frozenset("the and for with this that was not are you from has have when can its".split())


def tokens(text: str) -> list[str]:
    return [t for t in words(text) if t not in _STOP]


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
    guides: GuideStore
    patterns: list[Pattern]
    automaton: ahocorasick.Automaton | None
    problems: list[Problem]
    paths: dict[str, Path]
    # BM25 over guide text, only for offering "similar" guides when nothing matches.
    postings: dict[str, list[tuple[str, int]]]
    doc_len: dict[str, int]
    avg_len: float
    contexts: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    refs: dict[str, tuple[Ref, ...]] = field(default_factory=dict)  # what each guide knows of its error (kb.engine.likely)
    boilerplate: frozenset[str] = frozenset()  # runs of words many guides' raw errors hold (kb.engine.textsim)

    def contexts_of(self, p: Pattern) -> list[Pattern]:
        return [self.patterns[i] for i in self.contexts.get((p.guide, p.sig), ())]

    def idf(self, term: str, df: int) -> float:
        """BM25's inverse document frequency of a term held by `df` guides, times how much the term says."""
        n = len(self.doc_len) or 1
        return weight(term) * math.log(1 + (n - df + 0.5) / (df + 0.5))

    def similar(self, query: list[str], k: int = 3, exclude: AbstractSet[str] = frozenset()) -> list[tuple[str, float]]:
        scores: dict[str, float] = defaultdict(float)
        for term in set(query):
            plist = self._plist(term)
            if not plist:
                continue
            idf = self.idf(term, len(plist))
            for gid, tf in plist:
                dl = self.doc_len[gid]
                scores[gid] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / self.avg_len))
        # as Counter.most_common(n) ranks: the n largest, ties in insertion order
        return [(g, s) for g, s in heapq.nlargest(k + len(exclude), scores.items(), key=itemgetter(1)) if g not in exclude][:k]


    # Pickling (kb/engine/cache.py): postings travel as two integer arrays per term and are turned
    # back into lists only for the terms a query uses (or all of them, when .postings is
    # read); paths travel as strings. A cached index then loads in a fraction of a second.
    def __getstate__(self):
        state = dict(self.__dict__)
        if "postings" in state:
            state["_packed"] = _pack_postings(state.pop("postings"), list(self.doc_len))
        state["paths"] = {k: str(v) for k, v in self.paths.items()}
        return state

    def __setstate__(self, state):
        state["paths"] = {k: Path(v) for k, v in state["paths"].items()}
        self.__dict__.update(state)

    def __getattr__(self, name):
        packed = self.__dict__.get("_packed")
        if name == "postings" and packed is not None:
            self.postings = {term: _unpack(packed[0], *arrays) for term, arrays in packed[1].items()}
            return self.postings
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _plist(self, term: str) -> list[tuple[str, int]] | None:
        if "postings" in self.__dict__:
            return self.postings.get(term)
        ids, terms = self.__dict__["_packed"]
        arrays = terms.get(term)
        return _unpack(ids, *arrays) if arrays is not None else None


def _pack_postings(postings: dict[str, list[tuple[str, int]]], ids: list[str]):
    from array import array
    pos = {gid: i for i, gid in enumerate(ids)}
    return ids, {term: (array("I", [pos[g] for g, _ in plist]).tobytes(), array("I", [tf for _, tf in plist]).tobytes())
                 for term, plist in postings.items()}


def _unpack(ids: list[str], docs: bytes, tfs: bytes) -> list[tuple[str, int]]:
    from array import array
    return [(ids[d], tf) for d, tf in zip(array("I", docs), array("I", tfs), strict=True)]


def _doc_text(g: Guide, refs: tuple[Ref, ...]) -> str:
    """What the word search looks in: the guide's error as its signatures and raw errors
    print it, the packages and files of the raw errors' frames, and its title."""
    parts = [g.title.en or "", g.title.zh or "", g.component, " ".join(g.tags)]
    parts += [s.template or s.anchor or "" for s in g.signatures]
    parts += [r.text for r in refs if r.kind != "near"]
    for raw in g.raw_errors:
        for m in _FRAME_FILE.finditer(raw.text[:20_000]):
            parts.append(m.group(1).replace("/", " ").replace("\\", " ").replace(".py", ""))
    return " ".join(parts)


_FRAME_FILE = re.compile(r'File "[^"\n]*?([\w-]+[\\/][\w.-]+\.py)"')


def compile_guide(g: Guide) -> tuple[list[Pattern], list[str]]:
    """Patterns for one guide's signatures and contexts, and a message per one that fails."""
    out: list[Pattern] = []
    errors: list[str] = []
    for s in g.signatures:
        items = [(-1, s.template, s.regex, s.anchor)] + [(i, c.template, c.regex, c.anchor) for i, c in enumerate(s.context)
                                                          if c.template is not None or c.regex is not None]
        compiled: list[Pattern] = []
        for ctx, template, regex, anchor in items:
            where = f"signatures[{s.id}]" + (f".context[{ctx}]" if ctx >= 0 else "")
            # A signature that needs context may match a line every log has: its context makes it specific.
            generic_ok = ctx == -1 and bool(s.context)
            source = template if template is not None else regex
            assert source is not None  # the schema: a signature or context item has a template or a regex
            try:
                c = compile_template(source, generic_ok) if template is not None else compile_regex(source, anchor or "", generic_ok)
            except TemplateError as exc:
                errors.append(f"{where}: {exc}")
                break
            compiled.append(Pattern(g.id, s.id, ctx, source, "template" if template is not None else "regex", c, s.wrapper))
        else:
            out.extend(compiled)
    return out, errors


def _prepared(g: Guide) -> tuple[list[Pattern], list[str], Counter, tuple[Ref, ...], frozenset[str]]:
    pats, errors = compile_guide(g)
    # Only signatures that need no context and wrap nothing: a wrapper's lines say nothing about the
    # error it wraps, and a line that needs context ("IndexError: list index out of range" in a
    # TORCH_CUDA_ARCH_LIST build) does not tell the guide's error from any other alone.
    alone = {s.id for s in g.signatures if not s.context and not s.wrapper}
    refs = guide_refs(g, [p.regex for p in pats if p.ctx == -1 and p.sig in alone])
    return pats, errors, Counter(tokens(_doc_text(g, refs))), refs, guide_shingles(g)


def build_index(loaded: Loaded) -> Index:
    preps = [(g.id, *_prepared(g)) for g in loaded.guides]
    return _assemble(preps, loaded.problems, loaded.paths, {g.id: g for g in loaded.guides}, None)


def _assemble(preps, problems_in: list[Problem], paths_in: dict[str, Path], guides_in: dict[str, Guide] | None,
              blobs_in: dict[str, bytes] | None, meta_in: dict[str, GuideMeta] | None = None) -> Index:
    """The index over prepared guides: (id, patterns, compile errors, token counts) each."""
    problems = list(problems_in)
    patterns: list[Pattern] = []
    kept: list[str] = []
    docs: dict[str, Counter] = {}
    refs: dict[str, tuple[Ref, ...]] = {}
    shingled: dict[str, frozenset[str]] = {}
    for gid, pats, errors, toks, grefs, shingles in preps:
        for e in errors:
            problems.append(Problem(str(paths_in.get(gid, gid)), None, e.split(":")[0], e.split(": ", 1)[-1]))
        if not any(p.ctx == -1 for p in pats):
            problems.append(Problem(str(paths_in.get(gid, gid)), None, "signatures", "no usable signature; the guide is not served"))
            continue
        kept.append(gid)
        docs[gid] = toks
        refs[gid] = grefs
        shingled[gid] = shingles
        patterns.extend(pats)
    if blobs_in is not None:
        assert meta_in is not None  # the cache stores both
        guides = GuideStore(blobs={gid: blobs_in[gid] for gid in kept}, meta={gid: meta_in[gid] for gid in kept})
    else:
        assert guides_in is not None
        guides = GuideStore({gid: guides_in[gid] for gid in kept})
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
    for gid in kept:
        toks = docs[gid]
        doc_len[gid] = sum(toks.values()) or 1
        for term, tf in toks.items():
            postings[term].append((gid, tf))
    avg = sum(doc_len.values()) / len(doc_len) if doc_len else 1.0
    return Index(guides, patterns, automaton, problems, {k: v for k, v in paths_in.items() if k in guides},
                 dict(postings), doc_len, avg, dict(contexts), refs, boilerplate(shingled))


@dataclass(frozen=True)
class _Light:
    """What a worker sends back for one guide: what the checks across files and the index need."""

    id: str
    component: str
    related: tuple[str, ...]
    meta: GuideMeta
    blob: bytes
    patterns: list[Pattern]
    errors: list[str]
    toks: Counter
    refs: tuple[Ref, ...]
    shingles: frozenset[str]


def _light(g: Guide) -> _Light:
    return _Light(g.id, g.component, tuple(g.related), guide_meta(g), encode_guide(g), *_prepared(g))


def load_index(root: Path | str | None = None) -> Index:
    root = Path(root) if root else GUIDES_DIR
    base = root if root.is_dir() else root.parent
    files = guide_files(root)
    from kb.guides.load import _workers
    if _workers(len(files)) <= 1:
        return build_index(load_guides(root))
    # A large base: worker processes read, validate, compile and encode each guide; this
    # process never holds the decoded guides (the same index as build_index(load_guides())).
    lights, paths, problems = check_guides(root, base, files, read_many(files, base, _light))
    preps = [(x.id, x.patterns, x.errors, x.toks, x.refs, x.shingles) for x in lights]
    return _assemble(preps, problems, paths, None, {x.id: x.blob for x in lights}, {x.id: x.meta for x in lights})
