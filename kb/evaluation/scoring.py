"""Scoring answers against labelled cases, by tier (kb.engine.tiers).

An answer is the ranked list of (guide, tier) for a case. The first result *addresses* the
case when its tier is "match" or "likely" (a confident answer) or "triage" (a class guide's
procedure for the error's family); "help" and "similar" only suggest. Per case:

- right: the first result addresses the case and is one of the guides its label names; a
  triage answer is right only when the label's family maps to that class guide
  (families.json), i.e. when its procedure fits the report's mechanism;
- top-1 "match": right with tier "match" only;
- false answer: the first result addresses the case but is not one of its guides (a wrong
  guide, a triage procedure for another family, or anything on a case that expects none);
- top-3: the expected guide is among the first three results, whatever their tier.
"""
from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

from kb.engine.index import Index
from kb.engine.match import match
from kb.engine.parse import last_error_line, parse
from kb.engine.tiers import ADDRESSING, ANSWERING  # noqa: F401 (ANSWERING re-exported)
from kb.evaluation.baselines import BM25, ExactLastLine
from kb.evaluation.cases import VARIANTS, Case

METHODS = ("matcher", "bm25", "exact")
Ranked = list[tuple[str, str]]  # (guide id, confidence), best first


@dataclass
class Outcome:
    case: Case
    ranked: Ranked
    ms: float

    @property
    def first(self) -> str | None:
        return self.ranked[0][0] if self.ranked else None

    @property
    def first_confidence(self) -> str | None:
        return self.ranked[0][1] if self.ranked else None

    @property
    def answered(self) -> bool:
        """The first result addresses the case: a confident answer or a triage procedure."""
        return self.first_confidence in ADDRESSING

    @property
    def right(self) -> bool:
        return self.answered and self.case.expect is not None and self.first in (self.case.expect, *self.case.also)

    @property
    def top1(self) -> bool:
        return self.right and self.first_confidence == "match"

    @property
    def top3(self) -> bool:
        return any(g in (self.case.expect, *self.case.also) for g, _ in self.ranked[:3])

    @property
    def false_answer(self) -> bool:
        return self.answered and not self.right

    @property
    def failed(self) -> bool:
        return self.false_answer if self.case.expect is None else not self.right


@dataclass
class Scores:
    n_expect: int = 0
    n_null: int = 0
    top1: int = 0  # right with "match"
    right: int = 0  # right with "match", "likely" or "triage"
    top3: int = 0
    likely_given: int = 0  # first result answers with "likely"
    likely_right: int = 0
    triage_given: int = 0  # first result is a class guide's triage procedure
    triage_right: int = 0
    false_answers: int = 0  # over every case
    false_on_null: int = 0  # answers on cases expecting none
    times_ms: list[float] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.times_ms.append(o.ms)
        self.false_answers += o.false_answer
        if o.first_confidence == "likely":
            self.likely_given += 1
            self.likely_right += o.right
        if o.first_confidence == "triage":
            self.triage_given += 1
            self.triage_right += o.right
        if o.case.expect is None:
            self.n_null += 1
            self.false_on_null += o.answered
        else:
            self.n_expect += 1
            self.top1 += o.top1
            self.right += o.right
            self.top3 += o.top3

    def as_dict(self) -> dict:
        def rate(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None
        n = self.n_expect + self.n_null
        return {"cases_with_expect": self.n_expect, "cases_expecting_null": self.n_null,
                "top1": rate(self.top1, self.n_expect), "top1_answer": rate(self.right, self.n_expect),
                "top3": rate(self.top3, self.n_expect),
                "likely_given": self.likely_given, "likely_precision": rate(self.likely_right, self.likely_given),
                "triage_given": self.triage_given, "triage_precision": rate(self.triage_right, self.triage_given),
                "false_answer_rate": rate(self.false_answers, n), "false_match_rate": rate(self.false_on_null, self.n_null),
                "median_ms": round(statistics.median(self.times_ms), 3) if self.times_ms else None,
                "worst_ms": round(max(self.times_ms), 3) if self.times_ms else None}


def tally(outcomes: list[Outcome]) -> Scores:
    s = Scores()
    for o in outcomes:
        s.add(o)
    return s


def scores(outcomes: list[Outcome]) -> dict:
    return tally(outcomes).as_dict()


def run_method(name: str, index: Index, cases: list[Case], bm25: BM25 | None = None,
               exact: ExactLastLine | None = None) -> list[Outcome]:
    out = []
    for c in cases:
        t0 = time.perf_counter()
        if name == "matcher":
            ranked = [(m.guide_id, m.confidence) for m in match(index, c.text).matches]
        else:
            # A search box and an exact search present every hit as the answer.
            if name == "bm25":
                assert bm25 is not None, "run_method('bm25') needs the BM25 index"
                hits = bm25.search(last_error_line(parse(c.text)) or "")
            else:
                assert exact is not None, "run_method('exact') needs the exact-line index"
                hits = exact.search(c.text)
            ranked = [(g, "match") for g in hits]
        out.append(Outcome(c, ranked, (time.perf_counter() - t0) * 1000))
    return out


def failures(outcomes: list[Outcome]) -> list[dict]:
    return [{"id": o.case.id, "expected": o.case.expect, "first": o.first, "confidence": o.first_confidence}
            for o in outcomes if o.failed]


def method_entry(outcomes: list[Outcome]) -> dict:
    groups = {"all": lambda c: True, "as_written": lambda c: c.variant is None, "variants": lambda c: c.variant is not None}
    entry: dict = {g: scores([o for o in outcomes if keep(o.case)]) for g, keep in groups.items()}
    entry["by_variant"] = {kind: scores(sel) for kind in VARIANTS if (sel := [o for o in outcomes if o.case.variant == kind])}
    entry["failures"] = failures(outcomes)
    return entry


def labelled_entry(outcomes: list[Outcome], top_families: int = 15) -> dict:
    """For a labelled set: coverage, right-first and false answers over every case, per split,
    and the families with no guide, most frequent first."""
    out: dict = {}
    splits = sorted({o.case.split for o in outcomes if o.case.split})
    for split in ["all", *splits]:
        sel = [o for o in outcomes if split == "all" or o.case.split == split]
        n = len(sel)
        covered = sum(o.case.expect is not None for o in sel)
        rate = (lambda a, n=n: round(a / n, 4)) if n else (lambda a: None)
        uncovered = Counter(o.case.family or "(no error in the paste)" for o in sel if o.case.expect is None)
        counted = tally(sel)
        out[split] = {"cases": n, "coverage": rate(covered), "right_first": rate(sum(o.right for o in sel)),
                      "right_first_of_covered": round(sum(o.right for o in sel) / covered, 4) if covered else None,
                      "false_answers": rate(counted.false_answers),
                      # false answers among the reports no guide or class procedure covers
                      "false_on_uncovered": round(counted.false_on_null / (n - covered), 4) if n > covered else None,
                      "likely_given": counted.likely_given, "likely_right": counted.likely_right,
                      "triage_given": counted.triage_given, "triage_right": counted.triage_right,
                      "uncovered_families": uncovered.most_common(top_families)}
    return out


def evaluate(index: Index, cases: list[Case], methods: tuple[str, ...] = METHODS,
             answers: dict[str, Ranked] | None = None) -> dict:
    """Every method on the same cases. `answers` replaces the matcher's results by answers
    produced elsewhere (another version's `kb match --jsonl`), to score a version in the past."""
    unknown = sorted({c.expect for c in cases if c.expect is not None and c.expect not in index.guides})
    report: dict = {"guides": len(index.guides), "cases": sum(c.variant is None for c in cases),
                    "variants": sum(c.variant is not None for c in cases), "unknown_expected_guides": unknown,
                    "methods": {}}
    bm25 = BM25(index) if "bm25" in methods else None
    exact = ExactLastLine(index) if "exact" in methods else None
    for name in methods:
        if name == "matcher" and answers is not None:
            outcomes = [Outcome(c, answers.get(c.id, []), 0.0) for c in cases]
        else:
            outcomes = run_method(name, index, cases, bm25, exact)
        report["methods"][name] = method_entry(outcomes)
        if any(c.family is not None or c.split is not None for c in cases):
            report["methods"][name]["labelled"] = labelled_entry(outcomes)
    return report
