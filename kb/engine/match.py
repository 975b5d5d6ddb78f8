"""Rank guides for a paste and explain the ranking.

Retrieval scans the paste once with the index's automaton; each hit's pattern is then
verified on a few lines around it (kb.engine.verify). A guide *matches* when one of its
signatures verified and all that signature's required context is present: lines of the
paste, the packages of its traceback, facts of an environment report.

The answer is about the root error (kb.engine.roots): the first error that is not only a
wrapper around another. When no signature covers it, the "likely" tier compares it with
what every guide knows of its error (kb.engine.likely). A wrapper guide is the answer
only when the paste holds nothing but the wrapper; otherwise it is listed as help for
reading the log. With no answer, at most three guides are offered as "similar".
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kb.engine import ranking
from kb.engine.environment import environment, fact_outcome, rerank
from kb.engine.index import Index, Pattern
from kb.engine.likely import Likely, find_likely
from kb.engine.parse import Paste, parse
from kb.engine.reasons import word
from kb.engine.roots import RootError, answering_wrappers, root_error
from kb.engine.signature import Compiled
from kb.engine.similar import similar
from kb.engine.values import CauseFit, Value, capture, cause_fits
from kb.engine.verify import Evidence, Span, candidates, verify
from kb.env.conditions import FitNote
from kb.env.record import EnvRecord

ANSWERING = ("match", "likely")
TIERS = {"match": 0, "likely": 1, "help": 2, "similar": 3}
MAX_SIMILAR = 3

__all__ = ["ANSWERING", "ContextHit", "Evidence", "Match", "Result", "Span", "explain_notes", "match"]


@dataclass
class ContextHit:
    """One required context entry of a signature and whether the paste (or the report) has it."""

    kind: str  # "pattern", "module" or "fact"
    source: str  # the template or regex as written, "module vllm", or the fact's condition
    evidence: Evidence | None  # the line that holds it (pattern, module)
    found: bool
    detail: str | None = None  # what was found, in words (the module's file, the report's value)
    why: object | None = None  # the context's L10n `why`, shown when it is missing
    literal_chars: int = 0


@dataclass
class Match:
    guide_id: str
    confidence: str  # "match", "likely", "help" or "similar"
    score: float
    signature: str | None = None
    evidence: Evidence | None = None
    contexts: list[ContextHit] = field(default_factory=list)
    notes: list[tuple[str, dict]] = field(default_factory=list)  # reason codes, worded by kb.engine.reasons
    wrapper: bool = False
    specificity: int = 0
    values: dict[str, Value] = field(default_factory=dict)
    causes: list[CauseFit] = field(default_factory=list)  # which causes the values point to
    likely: Likely | None = None
    env_notes: list[FitNote] = field(default_factory=list)

    @property
    def first_line(self) -> int:
        return self.evidence.spans[0].line if self.evidence else 1 << 30

    @property
    def n_context(self) -> int:
        return sum(1 for c in self.contexts if c.found)


@dataclass
class Result:
    paste: Paste
    matches: list[Match]
    root: RootError | None = None
    covered: bool = False  # a match or a likely guide answers for the root error
    notes: list[tuple[str, dict]] = field(default_factory=list)  # about the paste as a whole
    env: EnvRecord | None = None

    @property
    def confident(self) -> list[Match]:
        """The matches that answer (match or likely)."""
        return [m for m in self.matches if m.confidence in ANSWERING]

    @property
    def answer(self) -> Match | None:
        return self.matches[0] if self.matches and self.matches[0].confidence in ANSWERING else None


def match(index: Index, text: str | Paste, limit: int | None = None, env_report: str | None = None,
          likely: bool = True) -> Result:
    """Rank the guides for `text`. `env_report`: what the environment box holds; a report
    inside the paste is read as well, and both count the same."""
    paste = text if isinstance(text, Paste) else parse(text, limit)
    env = environment(paste.text, env_report) if not paste.empty else None
    found = _verified(index, paste, env)
    matches = list(found.values())
    wrappers = [m for m in matches if m.wrapper and m.confidence == "match"]
    # A wrapper whose message ends in a colon prints the wrapped error after it, on its line.
    wrapper_ends = {m.evidence.spans[-1].line: m.evidence.spans[-1].end for m in wrappers
                    if m.evidence is not None and m.evidence.pattern.source.rstrip().endswith(":")}
    root = root_error(paste, frozenset(m.first_line for m in wrappers), wrapper_ends)
    root, covered = ranking.cover(matches, root, paste)
    answering = answering_wrappers(root, paste, {m.guide_id: m.first_line for m in wrappers})
    if root is not None and root.wrapper_only:
        covered = bool(answering)  # the wrapper guide answers
    if likely and root is not None and not covered and not root.wrapper_only:
        hit = find_likely(index, root)
        if hit is not None:
            _add_likely(matches, hit, root)
            covered = True
    for m in matches:
        if m.wrapper and m.confidence == "match" and root is not None and m.guide_id not in answering:
            m.confidence = "help"  # the wrapped error is in the paste (or cut off it): the wrapper only helps read the log
        elif not covered and root is not None and m.confidence == "match" and not m.wrapper:
            # It matched another line (a cascade after the root error, a warning before it): not the answer.
            m.confidence = "help"
            m.notes.append(("not_root", {"line": paste.lines[m.first_line].no, "root": root.no}))
    ranking.rank(matches, paste, TIERS)
    if env is not None:
        rerank(index, matches, env, lambda m: TIERS[m.confidence])
    result = Result(paste, matches, root, covered, env=env)
    for m in matches:
        if m.confidence in ANSWERING or m.confidence == "help":
            g = index.guides[m.guide_id]
            m.values = capture(g, m, paste) if m.evidence is not None else {}
            m.causes = cause_fits(g, m.values) if m.values else []
    if not result.confident:
        n = MAX_SIMILAR - sum(1 for m in matches if m.confidence == "similar")
        for gid, share, shared in similar(index, paste, root, {m.guide_id for m in matches}, n):
            m = Match(gid, "similar", round(min(0.4, 0.4 * share), 3))
            m.notes.append(("similar_words", {"words": ", ".join(shared)}))
            matches.append(m)
    ranking.word_root(result)
    return result


def _verified(index: Index, paste: Paste, env: EnvRecord | None) -> dict[str, Match]:
    """The best verified signature of each guide, with its context."""
    verified: dict[int, Evidence] = {}
    for pid, lines in candidates(index, paste).items():
        ev = verify(index.patterns[pid], paste, lines)
        if ev is not None:
            verified[pid] = ev
    ctx_ev = {(p.guide, p.sig, p.ctx): ev for pid, ev in verified.items() if (p := index.patterns[pid]).ctx >= 0}
    by_guide: dict[str, Match] = {}
    for pid, ev in verified.items():
        p = index.patterns[pid]
        if p.ctx >= 0:
            continue
        sig = next(s for s in index.guides[p.guide].signatures if s.id == p.sig)
        contexts = _contexts(index, p, sig, paste, env, ctx_ev)
        complete = all(c.found for c in contexts)
        cand = Match(p.guide, "match" if complete else "similar", 0.0, sig.id, ev, contexts, wrapper=p.wrapper,
                     specificity=p.compiled.literal_chars + sum(c.literal_chars for c in contexts if c.found))
        best = by_guide.get(p.guide)
        if best is None or ranking.evidence_key(cand, TIERS) < ranking.evidence_key(best, TIERS):
            by_guide[p.guide] = cand
    return by_guide


def _contexts(index: Index, p: Pattern, sig, paste: Paste, env: EnvRecord | None,
              ctx_ev: dict[tuple[str, str, int], Evidence]) -> list[ContextHit]:
    patterns = {q.ctx: q for q in index.contexts_of(p)}
    out = []
    for i, c in enumerate(sig.context):
        if c.module is not None:
            li = paste.modules.get(c.module)
            ev = None if li is None else Evidence(p, [Span(li, 0, len(paste.lines[li].text))], 1)
            out.append(ContextHit("module", f"module {c.module}", ev, li is not None,
                                  paste.lines[li].text.strip()[:200] if li is not None else None, c.why, len(c.module)))
            continue
        q = patterns.get(i)
        ev = ctx_ev.get((p.guide, p.sig, i)) if q is not None else None
        hit = ContextHit("pattern", q.source if q else "", ev, ev is not None, why=c.why,
                         literal_chars=q.compiled.literal_chars if q else 0)
        fact = f"{c.fact.kind} {c.fact.spec or c.fact.package or ''}".strip() if c.fact is not None else ""
        if c.fact is not None and ev is None:
            outcome = fact_outcome(c.fact, env)
            if outcome is not None and outcome.status == "pass":
                hit = ContextHit("fact", fact, None, True, outcome.found, c.why, hit.literal_chars)
        elif q is None and c.fact is not None:
            hit = ContextHit("fact", fact, None, False, why=c.why)
        if q is None and c.fact is None:
            continue  # a context the index could not compile is reported by validation
        out.append(hit)
    return out


def _add_likely(matches: list[Match], hit: Likely, root: RootError) -> None:
    line = root.index
    ev = Evidence(Pattern(hit.guide, "", -1, hit.ref.text, "likely", Compiled("", "", 0, 1)),
                  [Span(line, 0, len(root.text))], 1)
    existing = next((m for m in matches if m.guide_id == hit.guide), None)
    if existing is not None:
        if existing.confidence == "match":
            return  # it matched elsewhere in the paste: that stands
        matches.remove(existing)
    matches.append(Match(hit.guide, "likely", 0.0, None, ev, likely=hit, specificity=0))


def explain_notes(m: Match, lang: str = "en", verbose: bool = False) -> list[str]:
    out = [word(code, lang, **vals) for code, vals in m.notes]
    if verbose:
        out += [word("pattern_detail", lang, **vals) for code, vals in m.notes if vals.get("pattern")]
    return out
