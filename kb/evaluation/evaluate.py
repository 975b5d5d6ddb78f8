"""`python -m kb eval CASES.jsonl`: how well pastes find their guide, against what a
person would otherwise do.

Each line of CASES.jsonl is {"id", "text", "expect"}: `expect` is the guide the paste
must find, or null when no guide may claim it. To the cases as written are added
variants derived from each of them the way people really paste (see VARIANTS), so that
they need not be stored; KB_EVAL_VARIANTS=0 leaves them out.

Three methods, side by side, on the same cases:

- matcher: this knowledge base (kb.engine.match). Top-1 counts when the first result is the
  expected guide with confidence "match"; a false match is any result with confidence
  "match" on a case expecting null.
- bm25: a knowledge-base search box. The query is the paste's last error line (what a
  person types into a search box), the documents every text of every guide (titles,
  summaries, symptoms, signatures, raw errors, causes, steps…), ranked with BM25. Any
  result on a case expecting null counts as a false match, as a search box shows it.
- exact: an exact search for the exception's last line: the paste's last error line
  (kb.engine.parse.last_error_line) equal, after stripping white space, to the last error line
  of one of a guide's raw errors.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

from kb.engine.index import Index, load_index
from kb.engine.match import match
from kb.engine.parse import last_error_line, parse
from kb.evaluation.baselines import BM25, ExactLastLine
from kb.evaluation.cases import VARIANTS, Case, read_cases, variants
from kb.guides.load import GUIDES_DIR

METHODS = ("matcher", "bm25", "exact")


@dataclass
class Outcome:
    case: Case
    ranked: list[str]  # guide ids, best first
    confident: list[str]  # those with confidence "match" (all of them for the baselines)
    ms: float

    @property
    def first(self) -> str | None:
        return self.ranked[0] if self.ranked else None

    @property
    def top1(self) -> bool:
        return bool(self.confident) and self.confident[0] == self.case.expect and self.first == self.case.expect

    @property
    def top3(self) -> bool:
        return self.case.expect in self.ranked[:3]

    @property
    def false_match(self) -> bool:
        return self.case.expect is None and bool(self.confident)

    @property
    def failed(self) -> bool:
        return self.false_match if self.case.expect is None else not self.top1


@dataclass
class Scores:
    n_expect: int = 0
    n_null: int = 0
    top1: int = 0
    top3: int = 0
    false_matches: int = 0
    times_ms: list[float] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.times_ms.append(o.ms)
        if o.case.expect is None:
            self.n_null += 1
            self.false_matches += o.false_match
        else:
            self.n_expect += 1
            self.top1 += o.top1
            self.top3 += o.top3

    def as_dict(self) -> dict:
        def rate(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None
        return {"cases_with_expect": self.n_expect, "cases_expecting_null": self.n_null,
                "top1": rate(self.top1, self.n_expect), "top3": rate(self.top3, self.n_expect),
                "false_match_rate": rate(self.false_matches, self.n_null),
                "median_ms": round(statistics.median(self.times_ms), 3) if self.times_ms else None,
                "worst_ms": round(max(self.times_ms), 3) if self.times_ms else None}


def run_method(name: str, index: Index, cases: list[Case], bm25: BM25 | None = None, exact: ExactLastLine | None = None) -> list[Outcome]:
    out = []
    for c in cases:
        t0 = time.perf_counter()
        if name == "matcher":
            res = match(index, c.text)
            ranked = [m.guide_id for m in res.matches]
            confident = [m.guide_id for m in res.matches if m.confidence == "match"]
        elif name == "bm25":
            ranked = bm25.search(last_error_line(parse(c.text)) or "")
            confident = ranked
        else:
            ranked = exact.search(c.text)
            confident = ranked
        out.append(Outcome(c, ranked, confident, (time.perf_counter() - t0) * 1000))
    return out


def evaluate(index: Index, cases: list[Case]) -> dict:
    bm25, exact = BM25(index), ExactLastLine(index)
    unknown = sorted({c.expect for c in cases if c.expect is not None and c.expect not in index.guides})
    report: dict = {"guides": len(index.guides), "cases": sum(c.variant is None for c in cases),
                    "variants": sum(c.variant is not None for c in cases), "unknown_expected_guides": unknown,
                    "methods": {}}
    groups = {"all": lambda c: True, "as_written": lambda c: c.variant is None, "variants": lambda c: c.variant is not None}
    for name in METHODS:
        outcomes = run_method(name, index, cases, bm25, exact)
        entry: dict = {}
        for group, keep in groups.items():
            s = Scores()
            for o in outcomes:
                if keep(o.case):
                    s.add(o)
            entry[group] = s.as_dict()
        by_variant = {}
        for kind in VARIANTS:
            s = Scores()
            for o in outcomes:
                if o.case.variant == kind:
                    s.add(o)
            if s.times_ms:
                by_variant[kind] = s.as_dict()
        entry["by_variant"] = by_variant
        entry["failures"] = [{"id": o.case.id, "expected": o.case.expect, "first": o.first,
                              "first_confident": o.confident[0] if o.confident else None}
                             for o in outcomes if o.failed]
        report["methods"][name] = entry
    return report


# ---------------------------------------------------------------------------------------
# Output.

def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def format_report(r: dict) -> str:
    out = [f"{r['cases']} cases + {r['variants']} pasted-like variants, {r['guides']} guides.", ""]
    if r["unknown_expected_guides"]:
        out += ["Expected guides that do not exist (or do not load): " + ", ".join(r["unknown_expected_guides"]), ""]
    head = f"{'':22} {'top-1':>7} {'top-3':>7} {'false match':>12} {'median ms':>10} {'worst ms':>9}"
    for group, title in (("all", "All cases"), ("as_written", "Cases as written"), ("variants", "Pasted-like variants")):
        g0 = r["methods"]["matcher"][group]
        out.append(f"{title}: {g0['cases_with_expect']} expecting a guide, {g0['cases_expecting_null']} expecting none")
        out.append(head)
        for name, label in (("matcher", "matcher (kb match)"), ("bm25", "BM25 search box"), ("exact", "exact last line")):
            g = r["methods"][name][group]
            med = "" if g["median_ms"] is None else f"{g['median_ms']:10.2f}"
            worst = "" if g["worst_ms"] is None else f"{g['worst_ms']:9.2f}"
            out.append(f"{label:22} {_pct(g['top1']):>7} {_pct(g['top3']):>7} {_pct(g['false_match_rate']):>12} {med:>10} {worst:>9}")
        out.append("")
    out.append("Matcher by variant (top-1 / false match):")
    for kind, g in r["methods"]["matcher"]["by_variant"].items():
        out.append(f"  {kind:15} {_pct(g['top1'])} / {_pct(g['false_match_rate'])}   ({g['cases_with_expect']} + {g['cases_expecting_null']})")
    fails = r["methods"]["matcher"]["failures"]
    out += ["", f"Matcher failures ({len(fails)}):" if fails else "Matcher failures: none."]
    for f in fails:
        got = f["first"] or "nothing"
        conf = "" if f["first"] is None or f["first"] == f["first_confident"] else " (similar)"
        out.append(f"  {f['id']}: expected {f['expected'] or 'no match'}, first {got}{conf}")
    for name in ("bm25", "exact"):
        out.append(f"{name}: {len(r['methods'][name]['failures'])} failing cases (see --json).")
    return "\n".join(out) + "\n"


def main(args) -> int:
    index = load_index(getattr(args, "guides", None) or GUIDES_DIR)
    try:
        cases = read_cases(args.cases)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if os.environ.get("KB_EVAL_VARIANTS", "1") != "0":
        cases = cases + variants(cases)
    report = evaluate(index, cases)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(format_report(report))
    return 0
