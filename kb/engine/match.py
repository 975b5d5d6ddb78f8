"""Rank guides for a paste and explain the ranking.

Retrieval scans the paste once with the index's automaton; each hit's pattern is then
verified on a few lines around it (kb.engine.verify). A guide *matches* when one of its
signatures verified and all that signature's required context is present: lines of the
paste, the packages of its traceback, facts of an environment report.

The answer is about the root error (kb.engine.roots): the first error that is not only a
wrapper around another. A guide's scope decides its tier there (kb.engine.tiers): a specific
guide answers "match"; a class guide, which covers a family of mechanisms, gives its triage
procedure, filled in from the traceback (kb.engine.triage), and ranks under any specific
answer. When no specific signature covers the root, the "likely" tier compares it with what
every guide knows of its error (kb.engine.likely). A wrapper guide is the answer only when
the paste holds nothing but the wrapper; otherwise it is listed as help for reading the log.
With no answer, at most three guides are offered as "similar". Each tier is decided once,
when its Match is made from the verified signature (a Hit) and the root error.
"""
from __future__ import annotations

import re

from kb.engine import completeness, ranking
from kb.engine import triage as triage_reader
from kb.engine.environment import environment, fact_outcome, rerank
from kb.engine.index import Index, Pattern
from kb.engine.likely import Likely, find_likely
from kb.engine.parse import Paste, parse
from kb.engine.reasons import word
from kb.engine.results import ContextHit, Hit, Match, Result
from kb.engine.roots import RootError, answering_wrappers, quiet, root_error
from kb.engine.similar import similar
from kb.engine.tiers import ANSWERING, TIERS
from kb.engine.values import capture, cause_fits
from kb.engine.verify import Evidence, Span, candidates, verify
from kb.engine.wrappers import command_line
from kb.env.record import EnvRecord

MAX_SIMILAR = 3
# A line found by looks alone that states an error of its own, after the word that says so ("CMake Error:
# Generator: execution of make failed", "EBNF parser error at line 16, column 1: Expect element",
# "Error Code 9: Internal Error (… could not find any supported formats …)", "`Exception: Current loss
# scale already at minimum`"): the traceback cut after it re-raises that error, which is in the paste.
# A log level in capitals ("ERROR: test_x (…)") or a bare "Caught exception:" states none.
STATES_ERROR = re.compile(r"(?:\b[Ee]rror|\bException|\bexception)\b[^:\n]{0,30}:\s*[A-Za-z(\[`'\"]")
# The class guide for a paste whose root error is not in it: a traceback cut before its error
# line, or only a wrapper that says the cause is printed above. No line of the paste is its
# error, so no signature finds it: the engine offers it when nothing else addresses the paste.
ROOT_MISSING = "paste-lacks-root-error"

# Match, Result and ContextHit live in kb.engine.results; they are named here too, where
# callers have always found them. ANSWERING and TIERS come from the tier registry.
__all__ = ["ANSWERING", "TIERS", "ContextHit", "Evidence", "Match", "Result", "Span", "explain_notes", "match"]


def match(index: Index, text: str | Paste, limit: int | None = None, env_report: str | None = None,
          likely: bool = True) -> Result:
    """Rank the guides for `text`. `env_report`: what the environment box holds; a report
    inside the paste is read as well, and both count the same."""
    paste = text if isinstance(text, Paste) else parse(text, limit)
    env = environment(paste.text, env_report) if not paste.empty else None
    hits = list(_verified(index, paste, env).values())
    wrappers = [h for h in hits if h.wrapper and h.complete]
    # A wrapper whose message ends in a colon prints the wrapped error after it, on its line.
    wrapper_ends = {h.evidence.spans[-1].line: h.evidence.spans[-1].end for h in wrappers
                    if h.evidence.pattern is not None and h.evidence.pattern.source.rstrip().endswith(":")}
    root = root_error(paste, frozenset(h.first_line for h in wrappers), wrapper_ends)
    root, covered = ranking.cover(hits, root, paste)
    if not covered:
        # No specific guide fits the root: a class guide's hit may still show where it is.
        triaged_root, triaged = ranking.cover(hits, root, paste, tier="triage")
        if triaged:
            root = triaged_root
    # Which wrapper guides may answer a paste of wrappers only: none when the error a wrapper
    # prints was cut off it, not one that matched only an access-log line (kb.engine.wrappers).
    # A guide that also knows its error by signatures of its own (an import's undefined symbol) is not the
    # answer for the command line that ran it ("# python3 -c "import tensorrt_llm"") when the traceback
    # after it was cut before that error. A guide about a wrapper alone (every signature a wrapper) is.
    answering = answering_wrappers(root, paste, {h.guide_id: h.first_line for h in wrappers
                                                 if not (command_line(paste, h.first_line) and _knows_error(index, h.guide_id))})
    if root is not None and root.wrapper_only:
        covered = any(h.scope == "specific" and h.guide_id in answering for h in wrappers)
    hit = find_likely(index, root) if likely and root is not None and not covered and not root.wrapper_only else None
    matches: list[Match] = []
    if hit is not None:
        own = next((h for h in hits if h.guide_id == hit.guide), None)
        if own is not None and own.confidence == "match":
            covered = True  # it matched elsewhere in the paste: that stands
        elif own is not None and own.confidence == "triage":
            pass  # a class guide whose signature fits: its own hit says more than its likeness
        else:
            hits = [h for h in hits if h.guide_id != hit.guide]
            matches.append(_likely(index, hit, root, paste, env))
            covered = covered or matches[-1].confidence == "likely"
    matches += [_tiered(h, root, covered, paste, env, answering) for h in hits]
    # Its one signature (a wrapper that says another rank failed) does not make it help or similar:
    # it is offered as its triage or not at all.
    matches = [m for m in matches if m.guide_id != ROOT_MISSING or m.confidence == "triage"]
    missing = _root_missing(index, paste, root, matches)
    if missing is not None:
        matches.append(missing)
    ranking.rank(matches, paste)
    if env is not None:
        rerank(index, matches, env, lambda m: m.tier.rank)
    result = Result(paste, matches, root, covered, env=env)
    for m in matches:
        if m.confidence in ANSWERING or m.confidence in ("triage", "help"):
            g = index.guides[m.guide_id]
            m.values = capture(g, m, paste) if m.evidence is not None else {}
            m.causes = cause_fits(g, m.values) if m.values else []
    if not result.confident:
        n = MAX_SIMILAR - sum(1 for m in matches if m.confidence == "similar")
        for gid, share, shared in similar(index, paste, root, {m.guide_id for m in matches} | {ROOT_MISSING}, n):
            m = Match(gid, "similar", round(min(0.4, 0.4 * share), 3), scope=index.guides[gid].scope)
            m.notes.append(("similar_words", {"words": ", ".join(shared)}))
            matches.append(m)
    ranking.word_root(result)
    return result


def _root_missing(index: Index, paste: Paste, root: RootError | None, matches: list[Match]) -> Match | None:
    """The root-missing triage when nothing else addresses the paste and its root error is not
    in it: the last traceback stops before its error line, or the paste holds only wrappers."""
    if ROOT_MISSING not in index.guides or any(m.tier.addresses for m in matches):
        return None
    # Only where no line reads as an error: a root found by looks alone (a warning, a shell
    # command) is often the real error of a family no guide has yet, and "your paste lacks its
    # error" would then be a wrong answer (on the wide sample's tuned part, 11 of 35 such cases).
    lacking = root is None
    cut = next((vals for code, vals in completeness.cut_notes(paste) if code == "traceback_cut"), None)
    # A traceback cut after a line found by looks alone (a shell prompt, a warning): the error
    # that traceback ended with is the root, and it is not in the paste.
    if cut is not None and (lacking or (root.weak and root.index < _line_index(paste, cut["line"])
                                        and not STATES_ERROR.search(root.text))):
        i = _line_index(paste, cut["line"])
        note = ("root_cut", {"line": cut["line"]})
    elif root is not None and root.wrapper_only:
        i, note = root.index, ("root_wrapper_only", {"line": root.no})
    elif lacking and not paste.empty:
        i = max((k for k, ln in enumerate(paste.lines) if ln.text.strip()), default=0)
        note = ("root_none", {})
    else:
        return None
    ev = Evidence(None, [Span(i, 0, len(paste.lines[i].text))], 1)
    return Match(ROOT_MISSING, "triage", 0.0, None, ev, notes=[note], scope="class")


def _knows_error(index: Index, gid: str) -> bool:
    return any(not s.wrapper for s in index.guides[gid].signatures)


def _line_index(paste: Paste, no: int) -> int:
    return next((i for i, ln in enumerate(paste.lines) if ln.no == no), 0)


def _on_root(h: Hit, root: RootError | None, paste: Paste) -> bool:
    """Whether a class guide's hit fits the root error, by the rule a specific guide's hit covers it."""
    if root is None or root.wrapper_only:
        # Nothing else in the paste: still not a line a log prints at INFO (a note that a feature "is
        # not supported yet, setting to False"), which reports no failure.
        return not quiet(paste, h.first_line)
    return ranking.cover([h], root, paste, tier="triage")[1]


def _tiered(h: Hit, root: RootError | None, covered: bool, paste: Paste, env: EnvRecord | None,
            answering: set[str] = frozenset()) -> Match:  # type: ignore[assignment]
    """The hit as a ranked guide, with its tier decided here, once."""
    if not h.complete:
        return Match.of(h, "similar")
    if h.wrapper:
        if root is not None and (not root.wrapper_only or h.guide_id not in answering):
            # The wrapped error is in the paste, or was cut off it: the wrapper only helps read the log.
            return Match.of(h, "help")
        if h.scope == "class":
            return Match.of(h, "triage", triage=triage_reader.read(paste, h.first_line, env))
        return Match.of(h, "match")
    if h.scope == "class" and _on_root(h, root, paste):
        return Match.of(h, "triage", triage=triage_reader.read(paste, h.first_line, env))
    if h.scope == "specific" and (covered or root is None):
        return Match.of(h, "match")
    if root is None:
        return Match.of(h, "similar")  # a class guide's words on a line that reports no failure (an INFO note)
    # It matched another line (a cascade after the root error, a warning before it): not the answer.
    return Match.of(h, "help", [("not_root", {"line": paste.lines[h.first_line].no, "root": root.no})])


def _likely(index: Index, hit: Likely, root: RootError, paste: Paste, env: EnvRecord | None) -> Match:
    """The likely tier's guide, pointing at the root error's line it was compared with; a
    class guide's likeness is still only its triage procedure."""
    ev = Evidence(None, [Span(root.index, 0, len(root.text))], 1)
    scope = index.guides[hit.guide].scope
    if scope == "class":
        return Match(hit.guide, "triage", 0.0, None, ev, likely=hit, scope=scope,
                     triage=triage_reader.read(paste, root.index, env))
    return Match(hit.guide, "likely", 0.0, None, ev, likely=hit, scope=scope)


def _verified(index: Index, paste: Paste, env: EnvRecord | None) -> dict[str, Hit]:
    """The best verified signature of each guide, with its context."""
    verified: dict[int, Evidence] = {}
    for pid, lines in candidates(index, paste).items():
        ev = verify(index.patterns[pid], paste, lines)
        if ev is not None:
            verified[pid] = ev
    ctx_ev = {(p.guide, p.sig, p.ctx): ev for pid, ev in verified.items() if (p := index.patterns[pid]).ctx >= 0}
    by_guide: dict[str, Hit] = {}
    for pid, ev in verified.items():
        p = index.patterns[pid]
        if p.ctx >= 0:
            continue
        g = index.guides[p.guide]
        sig = next(s for s in g.signatures if s.id == p.sig)
        contexts = _contexts(index, p, sig, paste, env, ctx_ev)
        cand = Hit(p.guide, g.scope, sig.id, ev, contexts, p.wrapper,
                   p.compiled.literal_chars + sum(c.literal_chars for c in contexts if c.found))
        best = by_guide.get(p.guide)
        if best is None or ranking.evidence_key(cand) < ranking.evidence_key(best):
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


def explain_notes(m: Match, lang: str = "en", verbose: bool = False) -> list[str]:
    out = [word(code, lang, **vals) for code, vals in m.notes]
    if verbose:
        out += [word("pattern_detail", lang, **vals) for code, vals in m.notes if vals.get("pattern")]
    return out
