"""The index: every signature's literal anchor in one Aho-Corasick automaton, so a paste
is scanned once whatever the number of guides; the few candidates it finds are then
verified with their RE2 patterns (compiled on first use)."""
from __future__ import annotations

import math
import pickle
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import ahocorasick
import re2

from kb.guides.load import GUIDES_DIR, Loaded, Problem, check_guides, guide_files, load_guides, read_many
from kb.engine.signature import Compiled, TemplateError, compile_regex, compile_template
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


class GuideMeta(NamedTuple):
    """A guide's row in lists: enough to search, filter and link without decoding it."""

    component: str
    status: str
    tags: tuple[str, ...]
    compute_capability: tuple[str, ...]
    title_en: str
    title_zh: str
    search: str  # lower-case text a search box looks in


def guide_meta(g: Guide) -> GuideMeta:
    hw = g.applies_to.hardware
    search = " ".join([g.id, g.component, *g.tags, g.title.en or "", g.title.zh or "", g.summary.en or "", g.summary.zh or "",
                       *(s.template or s.anchor or "" for s in g.signatures)]).lower()
    return GuideMeta(g.component, g.status, tuple(g.tags), tuple(hw.compute_capability) if hw else (),
                     g.title.en or g.title.zh or g.id, g.title.zh or g.title.en or g.id, search)


class GuideStore(Mapping):
    """The served guides by id: a read-only mapping in load order.

    A guide that comes from the on-disk index cache (kb/engine/cache.py) or from a worker process
    stays encoded (compressed JSON of exactly the fields its file set) until it is first
    used, and is kept once decoded: a cached index of 10,000 guides loads in a fraction
    of a second, and a paste touches only the few guides it matches.
    """

    __slots__ = ("_blobs", "_guides", "meta")

    def __init__(self, guides: dict[str, Guide] | None = None, blobs: dict[str, bytes] | None = None,
                 meta: dict[str, "GuideMeta"] | None = None):
        self._guides: dict[str, Guide] = dict(guides or {})
        # every id, in order; the encoded guide, or None while only the decoded one exists
        self._blobs: dict[str, bytes | None] = dict(blobs) if blobs is not None else dict.fromkeys(self._guides)
        # what lists and filters show, without decoding any guide (Browse, "other guides of this component")
        self.meta: dict[str, GuideMeta] = dict(meta) if meta is not None else {
            gid: guide_meta(g) for gid, g in self._guides.items()}

    @property
    def components(self) -> dict[str, str]:
        return {gid: m.component for gid, m in self.meta.items()}

    def __getitem__(self, gid: str) -> Guide:
        g = self._guides.get(gid)
        if g is None:
            g = self._guides[gid] = decode_guide(self._blobs[gid])
        return g

    def __contains__(self, gid: object) -> bool:
        return gid in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)

    def __repr__(self) -> str:
        return f"GuideStore({len(self)} guides, {len(self._guides)} decoded)"

    def __getstate__(self):
        blobs = {gid: blob if blob is not None else encode_guide(self._guides[gid]) for gid, blob in self._blobs.items()}
        return blobs, self.meta

    def __setstate__(self, state):
        self._blobs, self.meta = state
        self._guides = {}


def encode_guide(g: Guide) -> bytes:
    """JSON of the fields the file set (so that decoding gives an equal guide with the same
    fields set); pickle where JSON cannot carry a value."""
    try:
        return b"j" + zlib.compress(g.model_dump_json(exclude_unset=True).encode("utf-8"), 1)
    except (ValueError, TypeError, UnicodeError):
        return b"p" + zlib.compress(pickle.dumps(g, protocol=pickle.HIGHEST_PROTOCOL), 1)


def decode_guide(blob: bytes) -> Guide:
    data = zlib.decompress(blob[1:])
    return Guide.model_validate_json(data) if blob[:1] == b"j" else pickle.loads(data)


@dataclass
class Index:
    guides: Mapping[str, Guide]  # a GuideStore
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
            plist = self._plist(term)
            if not plist:
                continue
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            for gid, tf in plist:
                dl = self.doc_len[gid]
                scores[gid] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / self.avg_len))
        return [(g, s) for g, s in scores.most_common(k + len(exclude)) if g not in exclude][:k]


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
    return [(ids[d], tf) for d, tf in zip(array("I", docs), array("I", tfs))]


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
        items = [(-1, s.template, s.regex, s.anchor)] + [(i, c.template, c.regex, c.anchor) for i, c in enumerate(s.context)
                                                          if c.template is not None or c.regex is not None]
        compiled: list[Pattern] = []
        for ctx, template, regex, anchor in items:
            where = f"signatures[{s.id}]" + (f".context[{ctx}]" if ctx >= 0 else "")
            # A signature that needs context may match a line every log has: its context makes it specific.
            generic_ok = ctx == -1 and bool(s.context)
            try:
                c = compile_template(template, generic_ok) if template is not None else compile_regex(regex, anchor, generic_ok)
            except TemplateError as exc:
                errors.append(f"{where}: {exc}")
                break
            compiled.append(Pattern(g.id, s.id, ctx, template if template is not None else regex,
                                    "template" if template is not None else "regex", c, s.wrapper))
        else:
            out.extend(compiled)
    return out, errors


def _prepared(g: Guide) -> tuple[list[Pattern], list[str], Counter]:
    pats, errors = compile_guide(g)
    return pats, errors, Counter(tokens(_doc_text(g)))


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
    for gid, pats, errors, toks in preps:
        for e in errors:
            problems.append(Problem(str(paths_in.get(gid, gid)), None, e.split(":")[0], e.split(": ", 1)[-1]))
        if not any(p.ctx == -1 for p in pats):
            problems.append(Problem(str(paths_in.get(gid, gid)), None, "signatures", "no usable signature; the guide is not served"))
            continue
        kept.append(gid)
        docs[gid] = toks
        patterns.extend(pats)
    if blobs_in is not None:
        guides = GuideStore(blobs={gid: blobs_in[gid] for gid in kept}, meta={gid: meta_in[gid] for gid in kept})
    else:
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
                 dict(postings), doc_len, avg, dict(contexts))


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
    preps = [(x.id, x.patterns, x.errors, x.toks) for x in lights]
    return _assemble(preps, problems, paths, None, {x.id: x.blob for x in lights}, {x.id: x.meta for x in lights})
