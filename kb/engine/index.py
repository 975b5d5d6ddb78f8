"""The index: every signature's literal anchor in one Aho-Corasick automaton, so a paste
is scanned once whatever the number of guides; the few candidates it finds are then
verified with their RE2 patterns (compiled on first use)."""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import ahocorasick
import re2

from kb.engine.guidestore import GuideMeta, GuideStore, encode_guide, guide_meta  # noqa: F401 (re-exported)
from kb.engine.likely import Ref, guide_refs, guide_shingles
from kb.engine.postings import Postings
from kb.engine.signature import Compiled, TemplateError, compile_regex, compile_template
from kb.engine.textsim import boilerplate, weight, words
from kb.guides.load import GUIDES_DIR, Loaded, Problem, check_guides, guide_files, load_guides, read_many
from schema.models import Guide

if TYPE_CHECKING:
    from kb.engine.filecache import GuideFileCache

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
    guides: Mapping[str, Guide]  # a GuideStore
    patterns: list[Pattern]
    automaton: ahocorasick.Automaton | None
    problems: list[Problem]
    paths: dict[str, Path]
    # BM25 over guide text (kb.engine.postings): the likely and similar tiers' candidates.
    bm25: Postings
    contexts: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    refs: dict[str, tuple[Ref, ...]] = field(default_factory=dict)  # what each guide knows of its error (kb.engine.likely)
    boilerplate: frozenset[str] = frozenset()  # runs of words many guides' raw errors hold (kb.engine.textsim)

    def contexts_of(self, p: Pattern) -> list[Pattern]:
        return [self.patterns[i] for i in self.contexts.get((p.guide, p.sig), ())]

    def idf(self, term: str, df: int) -> float:
        """BM25's inverse document frequency of a term held by `df` guides, times how much the term says."""
        n = len(self.bm25) or 1
        return weight(term) * math.log(1 + (n - df + 0.5) / (df + 0.5))

    def similar(self, query: list[str], k: int = 3, exclude: set[str] = frozenset()) -> list[tuple[str, float]]:
        """The k guides whose words score best for the query (BM25), leaving out `exclude`
        among the k + len(exclude) best."""
        return [(g, s) for g, s in self.bm25.top(query, k + len(exclude)) if g not in exclude][:k]

    # What the arrays hold, as plain structures: for tests and tools, not for matching.
    @property
    def postings(self) -> dict[str, list[tuple[str, int]]]:
        return self.bm25.as_dict()

    @property
    def doc_len(self) -> dict[str, int]:
        return self.bm25.doc_len()

    @property
    def avg_len(self) -> float:
        return self.bm25.avg

    def _plist(self, term: str) -> list[tuple[str, int]] | None:
        return self.bm25.plist(term)

    # Pickling (kb/engine/cache.py): paths travel as strings; the postings are a few arrays.
    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_cores", None)  # the likely tier's memo, rebuilt on use
        state["paths"] = {k: str(v) for k, v in self.paths.items()}
        return state

    def __setstate__(self, state):
        state["paths"] = {k: Path(v) for k, v in state["paths"].items()}
        self.__dict__.update(state)


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
    return Index(guides, patterns, automaton, problems, {k: v for k, v in paths_in.items() if k in guides},
                 Postings(docs, weight), dict(contexts), refs, boilerplate(shingled))


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


def load_index(root: Path | str | None = None, files_cache: "GuideFileCache | None" = None) -> Index:
    """Every guide under root, indexed. With `files_cache` (kb.engine.filecache), a file whose
    path, size, mtime and inode are those of its cached entry is not read again."""
    root = Path(root) if root else GUIDES_DIR
    base = root if root.is_dir() else root.parent
    files = guide_files(root)
    from kb.guides.load import _workers
    if files_cache is None and _workers(len(files)) <= 1:
        return build_index(load_guides(root))
    # Worker processes read, validate, compile and encode each guide; this process never
    # holds the decoded guides (the same index as build_index(load_guides())).
    if files_cache is None:
        results = read_many(files, base, _light)
    else:
        results = _reuse(files, base, files_cache)
    lights, paths, problems = check_guides(root, base, files, results)
    preps = [(x.id, x.patterns, x.errors, x.toks, x.refs, x.shingles) for x in lights]
    return _assemble(preps, problems, paths, None, {x.id: x.blob for x in lights}, {x.id: x.meta for x in lights})


def _reuse(files: list[Path], base: Path, files_cache: "GuideFileCache") -> list:
    """Each file's read result: from the cache when the file is unchanged, else read again."""
    from kb.engine.filecache import file_sig
    names = [str(f) for f in files]
    sigs = [file_sig(n) for n in names]
    results = [files_cache.get(n, sig) for n, sig in zip(names, sigs, strict=False)]
    todo = [i for i, r in enumerate(results) if r is None]
    for i, r in zip(todo, read_many([files[i] for i in todo], base, _light), strict=False):
        results[i] = r
    files_cache.replace({names[i]: (sigs[i], results[i]) for i in todo}, set(names))
    return results
