"""Rank guides for a paste and explain the ranking.

Retrieval scans the paste once with the index's automaton; each hit's pattern is then
verified on a few lines around it. A guide is a confident match only when one of its
signatures verified and all that signature's required context is present. Among
matches, the root error (the earliest failing line) comes first, a wrapper message
last, and on the same line the guide with more context and a more specific signature.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kb.engine.index import Index, Pattern, tokens
from kb.engine.signature import Compiled
from kb.engine.parse import Paste, parse
from kb.engine.reasons import word

MAX_LINES_PER_PATTERN = 16  # eight ranks printing the same crash twice is plenty
MAX_SIMILAR = 3


@dataclass(frozen=True)
class Span:
    line: int  # index into Paste.lines
    start: int  # character offsets within that line's text
    end: int


@dataclass
class Evidence:
    pattern: Pattern
    spans: list[Span]  # the first verified occurrence, one span per line it covers
    occurrences: int


@dataclass
class Match:
    guide_id: str
    confidence: str  # "match" or "similar"
    score: float
    signature: str | None = None
    evidence: Evidence | None = None
    contexts: list[tuple[Pattern, Evidence | None]] = field(default_factory=list)
    notes: list[tuple[str, dict]] = field(default_factory=list)  # reason codes, worded by kb.engine.reasons
    wrapper: bool = False
    specificity: int = 0

    @property
    def first_line(self) -> int:
        return self.evidence.spans[0].line if self.evidence else 1 << 30

    @property
    def n_context(self) -> int:
        return sum(1 for _, ev in self.contexts if ev is not None)


@dataclass
class Result:
    paste: Paste
    matches: list[Match]

    @property
    def confident(self) -> list[Match]:
        return [m for m in self.matches if m.confidence == "match"]


_WINDOW_OK: dict[str, bool] = {}


def _window_ok(pattern: str) -> bool:
    """Whether searching a window of whole lines cut out of the paste finds what searching
    the paste between the same bounds finds: true unless the pattern pins the start or the
    end of the whole text (an unescaped ^ or $ outside a class, \\A, \\z). Word boundaries
    agree, since a window starts and ends at line boundaries."""
    ok = _WINDOW_OK.get(pattern)
    if ok is None:
        ok, i, in_class = True, 0, False
        while i < len(pattern):
            c = pattern[i]
            if c == "\\":
                if pattern[i + 1:i + 2] in ("A", "z"):
                    ok = False
                i += 2
                continue
            if in_class:
                in_class = c != "]"
            elif c == "[":
                in_class = True
                i += 1
                if pattern[i:i + 1] == "^":
                    i += 1
                if pattern[i:i + 1] == "]":  # a leading ] is a literal
                    i += 1
                continue
            elif c in "^$":
                ok = False
            i += 1
        _WINDOW_OK[pattern] = ok
    return ok


def _verify(p: Pattern, paste: Paste, line_ids: list[int]) -> Evidence | None:
    first: list[Span] | None = None
    count = 0
    n = p.compiled.nlines
    # The RE2 binding converts the whole subject to UTF-8 at every call: searching a window
    # of a few lines, not the whole paste between bounds, keeps verification independent of
    # the paste's length.
    window = _window_ok(p.compiled.pattern)
    for li in line_ids:
        # One extra line each side: terminals and issue trackers wrap long error lines.
        lo, hi = max(0, li - n), min(len(paste.lines), li + n + 1)
        base = paste.starts[lo]
        end = paste.starts[hi - 1] + len(paste.lines[hi - 1].text)
        if window:
            m = p.regex.search(paste.text[base:end])
            if m is None:
                continue
            start, stop = base + m.start(), base + m.end()
        else:
            m = p.regex.search(paste.text, base, end)
            if m is None:
                continue
            start, stop = m.start(), m.end()
        count += 1
        if first is None:
            first = _spans(paste, start, stop)
    return Evidence(p, first, count) if first else None


def _spans(paste: Paste, start: int, end: int) -> list[Span]:
    out = []
    a, b = paste.line_at(start), paste.line_at(max(start, end - 1))
    for li in range(a, b + 1):
        ls = paste.starts[li]
        le = ls + len(paste.lines[li].text)
        out.append(Span(li, max(start, ls) - ls, min(end, le) - ls))
    return out


def candidates(index: Index, paste: Paste) -> dict[int, list[int]]:
    """Pattern id → line indices where its anchor occurs (deduplicated, capped)."""
    found: dict[int, list[int]] = {}
    if index.automaton is None or not paste.text:
        return found
    for end, (length, ids) in index.automaton.iter(paste.text):
        li = paste.line_at(end - length + 1)
        for pid in ids:
            lines = found.setdefault(pid, [])
            if len(lines) < MAX_LINES_PER_PATTERN and (not lines or lines[-1] != li):
                lines.append(li)
    return found


def _strength(m: Match) -> float:
    """How strong the evidence is: a longer literal signature and more required context count."""
    if m.confidence != "match":
        return round(min(0.45, 0.2 + 0.05 * m.specificity / 20), 3)
    s = 0.8 + 0.15 * min(1.0, m.specificity / 40) + 0.05 * min(m.n_context, 1) - (0.25 if m.wrapper else 0)
    return round(max(0.5, min(1.0, s)), 3)


def match(index: Index, text: str | Paste, limit: int | None = None) -> Result:
    paste = text if isinstance(text, Paste) else parse(text, limit)
    hits = candidates(index, paste)
    verified: dict[int, Evidence] = {}
    for pid, lines in hits.items():
        ev = _verify(index.patterns[pid], paste, lines)
        if ev is not None:
            verified[pid] = ev
    by_guide: dict[str, Match] = {}
    ctx_ev = {(p.guide, p.sig, p.ctx): ev for pid, ev in verified.items() if (p := index.patterns[pid]).ctx >= 0}
    for pid, ev in verified.items():
        p = index.patterns[pid]
        if p.ctx >= 0:
            continue
        guide = index.guides[p.guide]
        sig = next(s for s in guide.signatures if s.id == p.sig)
        contexts = [(q, ctx_ev.get((p.guide, p.sig, q.ctx))) for q in index.contexts_of(p)]
        contexts += _module_contexts(sig, p, paste)
        complete = all(e is not None for _, e in contexts)
        cand = Match(p.guide, "match" if complete else "similar", 0.0, sig.id, ev, contexts, wrapper=p.wrapper,
                     specificity=p.compiled.literal_chars + sum(q.compiled.literal_chars for q, e in contexts if e))
        best = by_guide.get(p.guide)
        if best is None or _evidence_key(cand) < _evidence_key(best):
            by_guide[p.guide] = cand
    matches = list(by_guide.values())
    _rank(matches, paste)
    if not any(m.confidence == "match" for m in matches):
        matches.extend(_similar(index, paste, {m.guide_id for m in matches}, MAX_SIMILAR - len(matches)))
    return Result(paste, matches)


def _module_contexts(sig, p: Pattern, paste: Paste) -> list[tuple[Pattern, Evidence | None]]:
    """A `module` context is found when a traceback frame of the paste is in that package's code."""
    out = []
    for i, c in enumerate(sig.context):
        if c.module is None:
            continue
        q = Pattern(p.guide, p.sig, i, f"module {c.module}", "module", Compiled("", c.module, len(c.module), 1))
        li = paste.modules.get(c.module)
        out.append((q, None if li is None else Evidence(q, [Span(li, 0, len(paste.lines[li].text))], 1)))
    return out


def _evidence_key(m: Match) -> tuple:
    return (m.confidence != "match", m.wrapper, m.first_line, -m.n_context, -m.specificity)


def _rank(matches: list[Match], paste: Paste) -> None:
    # The order is the rule; the score shows the evidence's strength, never above the guide ranked before.
    matches.sort(key=lambda m: (*_evidence_key(m), m.guide_id))
    ceiling = 1.0
    for m in matches:
        m.score = ceiling = min(_strength(m), ceiling)
    for m in matches:
        ev = m.evidence
        if ev is not None:
            m.notes.append(("verified", {"sig": m.signature, "line": _no(paste, ev), "pattern": ev.pattern.source}))
            if ev.occurrences > 1:
                m.notes.append(("repeated", {"count": ev.occurrences, "line": _no(paste, ev)}))
        for q, e in m.contexts:
            m.notes.append(("context_found", {"line": _no(paste, e), "pattern": q.source}) if e else ("context_missing", {"pattern": q.source}))
        if m.wrapper:
            m.notes.append(("wrapper", {}))
    top = matches[0] if matches and matches[0].confidence == "match" else None
    if top is None:
        return
    for m in matches[1:]:
        if m.confidence != "match":
            continue
        vals = {"top": top.guide_id}
        if m.wrapper and not top.wrapper:
            m.notes.append(("below_wrapper", vals))
        elif m.first_line > top.first_line:
            m.notes.append(("later_line", {**vals, "line": _no(paste, m.evidence), "top_line": _no(paste, top.evidence)}))
        elif m.n_context < top.n_context:
            m.notes.append(("less_context", {**vals, "n": top.n_context}))
        else:
            m.notes.append(("less_specific", {**vals, "chars": m.specificity, "top_chars": top.specificity}))


def _no(paste: Paste, ev: Evidence) -> int:
    """The line number as the person sees it in what they pasted."""
    return paste.lines[ev.spans[0].line].no


def _similar(index: Index, paste: Paste, exclude: set[str], k: int) -> list[Match]:
    if k <= 0:
        return []
    query: list[str] = []
    for err in paste.errors[:20]:
        query += tokens(paste.lines[err.index].text)
    if not query:
        return []
    out = []
    qset = set(query)
    for gid, s in index.similar(query, k, exclude):
        guide = index.guides[gid]
        shared = sorted(qset & set(tokens(" ".join([guide.title.en or "", *(x.template or "" for x in guide.signatures)]))))
        if len(shared) < 2:
            continue
        m = Match(gid, "similar", round(min(0.4, s / 40), 3))
        m.notes.append(("similar_words", {"words": ", ".join(shared[:8])}))
        out.append(m)
    return out


def explain_notes(m: Match, lang: str = "en") -> list[str]:
    return [word(code, lang, **vals) for code, vals in m.notes]
