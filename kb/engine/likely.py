"""The "likely" tier: no signature verified, but the root error reads like a guide's error.

Upstream rewords messages, issue trackers cut pastes inside the error line, and issue
titles hold only the first half of a message. For those, the root error (its masked
text, its exception type and the packages of its innermost frames) is compared with
what every guide knows of its error: its signatures, the error lines of its raw errors,
and, as counter-examples, its near misses. rapidfuzz's WRatio scores the wording; it
handles reworded (token set) and cut (partial) texts alike.

Candidates come from the index's word search first, so the comparison costs the same
with 50 guides or 10,000. The threshold was calibrated on the dev set and the tuned part
of the traffic set (kb/evaluation/calibrate.py); its precision is reported on held-out
sets it never saw.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from rapidfuzz import fuzz

from kb.engine.parse import parse, strip_prefixes
from kb.engine.roots import TYPED, RootError, root_error
from kb.engine.textsim import MASKS, literal_letters, mask, mask_template, shingles, strip_boilerplate, weight, words

if TYPE_CHECKING:
    from kb.engine.index import Index
    from schema.models import Guide

# Calibrated (`python -m kb.evaluation.calibrate --cases`): the lowest score at which the tier stays
# above 95 % precision on the probes built from the guides' raw errors (96.5 % at 82, recall 44.5 %).
# Rechecked on 1,024 labelled reports (the dev set, the tuned parts of the traffic set and of the wide
# sample): the tier is asked on 376 whose root no signature covers and names a specific guide on at most
# three at any threshold from 60 to 94 (1 of 3 right below 82, 1 of 2 from 82 to 94, 1 of 1 from 96), so
# these reports do not move the threshold; what keeps the tier quiet there is MIN_COVERAGE and MARGIN.
# The one wrong answer from 82 to 94 reads "exitcode: -11" as the SIGKILL guide's "exitcode: -9" (numbers
# are masked), a mechanism a threshold does not fix. MARGIN keeps it from choosing between two guides
# that read alike.
THRESHOLD = 82.0
MARGIN = 4.0
MIN_LETTERS = 16  # a root error with less wording than this says too little to compare
TYPE_MISMATCH = 12.0  # two different exception types are seldom the same error
CANDIDATES = 40
MIN_COVERAGE = 0.85  # of the paste's error's words, weighted, that the guide's must have too
COMMON_WORD = 0.5  # the weight in `coverage` of a word every log prints ("error", "cuda"), against 1 for the others
_QUOTED = re.compile(r"'[^'\n]{1,200}'|\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`")


class Ref(NamedTuple):
    text: str  # masked
    exc: str | None  # the exception's short type, lower case
    kind: str  # "raw", "signature" or "near"
    key: str  # which raw error, signature or near miss it came from ("raw:0")


@dataclass(frozen=True)
class Likely:
    guide: str
    score: float
    query: str  # the root error, masked
    ref: Ref  # what it was closest to
    runner_up: tuple[str, float] | None
    missing: tuple[str, ...]  # words of the guide's error the paste does not have
    extra: tuple[str, ...]  # words of the paste's error the guide's does not have


def short_type(exc: str | None) -> str | None:
    return exc.rsplit(".", 1)[-1].lower() if exc else None


def _exception_type(paste, i: int) -> str | None:
    return next((short_type(e.exc_type) for e in paste.errors if e.index == i), None)


def _matched_lines(text: str, regexes: list) -> list[tuple[str, str | None]]:
    """The lines of a raw error that the guide's own signatures match: what the guide
    recognises, as a user would paste it."""
    paste = parse(text)
    out: list[tuple[str, str | None]] = []
    for rx in regexes:
        m = rx.search(paste.text)
        if m is not None:
            i = paste.line_at(m.start())
            line = paste.lines[i].text.strip()
            if all(line != t for t, _ in out):
                out.append((line, _exception_type(paste, i)))
    return out[:3]


def _root_line(text: str) -> list[tuple[str, str | None]]:
    root = root_error(parse(text))
    return [(root.text, short_type(root.exc_type))] if root else []


def guide_refs(g: "Guide", regexes: list | None = None) -> tuple[Ref, ...]:
    """What a guide knows of its error, masked, for comparison with a root error: its
    non-wrapper signatures, the lines of its raw errors those signatures match, and the
    root errors of its near misses (what they really are)."""
    refs: list[Ref] = []
    for s in g.signatures:
        if s.template and not s.wrapper and not s.context:
            first = s.template.strip().split("\n")[0]
            exc = first.split(":", 1)[0] if ":" in first and " " not in first.split(":", 1)[0] else None
            refs.append(Ref(mask_template(first), short_type(exc), "signature", f"sig:{s.id}"))
    for i, raw in enumerate(g.raw_errors):
        for line, exc in _matched_lines(raw.text, regexes or []):
            refs.append(Ref(mask(line), exc, "raw", f"raw:{i}"))
    for i, near in enumerate(g.near_misses):
        for line, exc in _root_line(near.text):
            refs.append(Ref(mask(line), exc, "near", f"near:{i}"))
    return tuple(r for r in refs if literal_letters(r.text) >= MIN_LETTERS)


MAX_SHINGLE_LINES = 400  # of one raw error: enough to see what every log of the stack prints


def guide_shingles(g: "Guide") -> frozenset[str]:
    """The runs of words the guide's raw errors hold, masked, log prefixes off: counted over all
    guides, the ones many hold are boilerplate (kb.engine.textsim.boilerplate)."""
    out: set[str] = set()
    for raw in g.raw_errors:
        for line in raw.text.split("\n", MAX_SHINGLE_LINES)[:MAX_SHINGLE_LINES]:
            out |= shingles(mask(strip_prefixes(line)[1]))
    return frozenset(out)


def _core(text: str, common: frozenset[str], cache: dict[str, str]) -> str:
    core = cache.get(text)
    if core is None:
        core = cache[text] = strip_boilerplate(text, common)  # a reference of nothing but boilerplate says nothing
    return core


def _cored(ref: Ref, common: frozenset[str], cache: dict) -> Ref | None:
    """The reference without its boilerplate, or None when too little wording is left; kept
    per reference, so that a paste's 40 candidates cost only their scores."""
    out = cache.get(ref, cache)
    if out is cache:
        core = ref._replace(text=_core(ref.text, common, cache))
        out = cache[ref] = core if literal_letters(core.text) >= MIN_LETTERS else None
    return out


def _score(query: str, q_exc: str | None, ref: Ref) -> float:
    """How well `ref` accounts for the query: read whole against whole (a reworded message),
    or against the reference's start (a paste cut inside the error line, an issue title
    holding its first half)."""
    s = max(fuzz.ratio(query, ref.text), fuzz.token_sort_ratio(query, ref.text))
    if len(query) < len(ref.text):
        s = max(s, fuzz.ratio(query, ref.text[: len(query)]), fuzz.ratio(query, ref.text[: len(query) + len(query) // 10]))
    if q_exc and ref.exc and q_exc != ref.exc:
        s -= TYPE_MISMATCH
    return s


def coverage(query: str, ref_text: str) -> float:
    """The weighted share of the query's words the reference also has. Every word counts, the
    common ones too ("list index out of range" is not "index out of range in self") though at half
    the weight of the words that say which error it is ("an illegal instruction" is not "an illegal
    memory access" however much the rest agrees); quoted names weigh double (they say which
    module, which class); the last word of a cut query may be cut too."""
    ref_words = set(words(ref_text))
    quoted = {w for q in _QUOTED.findall(query) for w in words(q)}
    q_words = [w for w in words(query) if w not in MASKS]
    total = got = 0.0
    for i, w in enumerate(q_words):
        wt = 2.0 if w in quoted else max(weight(w), COMMON_WORD)
        total += wt
        if w in ref_words or (i == len(q_words) - 1 and any(r.startswith(w) for r in ref_words)):
            got += wt
    return got / total if total else 0.0


def q_exc_of(root: RootError) -> str | None:
    typed = TYPED.match(root.text)
    return short_type(root.exc_type) or (short_type(typed.group(1)) if typed else None)


def find_likely(index: "Index", root: RootError | None, exclude: frozenset[str] = frozenset(),
                leave_out: tuple[str, str] | None = None, threshold: float = THRESHOLD) -> Likely | None:
    """The guide whose error the root error most likely is, or None.

    `leave_out` (guide, key) drops one reference, so that calibration can score a guide's
    own raw error without comparing it with itself.
    """
    if root is None or root.wrapper_only:
        return None
    # What many errors print around their own words is left out of both sides: it makes two errors alike.
    common: frozenset[str] = getattr(index, "boilerplate", frozenset())
    cores: dict[str, str] = index.__dict__.setdefault("_cores", {})
    query = strip_boilerplate(mask(root.text), common)
    # The exception's type alone ("NotImplementedError") says which class, not which error.
    if re.fullmatch(r"[\w.]+(?:Error|Exception|Interrupt|Exit|Warning)", root.text.strip()):
        return None
    message = query.split(":", 1)[1] if q_exc_of(root) and ":" in query else query
    if literal_letters(message) < MIN_LETTERS:
        return None
    q_exc = short_type(root.exc_type)
    best: dict[str, tuple[float, Ref]] = {}
    near: dict[str, float] = {}
    for gid, _ in index.similar(words(query), CANDIDATES, exclude):
        for ref in index.refs.get(gid, ()):
            if leave_out and gid == leave_out[0] and ref.key == leave_out[1]:
                continue
            ref = _cored(ref, common, cores)
            if ref is None:
                continue  # without its boilerplate the reference says too little to compare, as a query would
            s = _score(query, q_exc, ref)
            if s >= threshold and coverage(query, ref.text) < MIN_COVERAGE:
                s = min(s, threshold - 1)  # it does not account for the paste's own words
            if ref.kind == "near":
                near[gid] = max(near.get(gid, 0.0), s)
            elif s > best.get(gid, (-1.0, ref))[0]:
                best[gid] = (s, ref)
    # A guide whose counter-example reads as much like the paste as its own error does not claim it.
    ranked = sorted(((s, gid, ref) for gid, (s, ref) in best.items() if s > near.get(gid, -1.0)), reverse=True)
    if not ranked or ranked[0][0] < threshold:
        return None
    s, gid, ref = ranked[0]
    runner = (ranked[1][1], ranked[1][0]) if len(ranked) > 1 else None
    if runner and s - runner[1] < MARGIN:
        return None
    qw, rw = set(words(query)), set(words(ref.text))
    return Likely(gid, round(s, 1), query, ref, runner, tuple(sorted(rw - qw))[:8], tuple(sorted(qw - rw))[:8])
