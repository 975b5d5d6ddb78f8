"""The "likely" tier on labelled reports: its precision and recall per threshold, on the parts of the
labelled sets it may be tuned on.

`python -m kb.evaluation.calibrate --cases` prints this table after the probes' (kb/evaluation/calibrate.py).
The sets are the dev set as written (tests/data/cases.jsonl), and the tuned parts of the traffic set and
of the wide sample (tests/data/traffic, tests/data/wide): a case whose split is "held-out" is dropped
before anything reads its text, so a threshold chosen here has never seen the held-out reports.

For each report the matcher runs as it does (kb.engine.match) without the likely tier; where its root
error is not covered by a signature, the tier is asked at each threshold what it would say:

- given: it names a specific guide (a class guide's likeness is only its triage, not this tier);
- right: that guide is one of the report's expected guides; wrong otherwise (a wrong guide, or any
  guide on a report that expects none, or one that displaces a right triage answer);
- recall: right over the reports that expect a specific guide and that the matcher, without this tier,
  does not answer right first: what the tier could win.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kb.engine.index import Index
from kb.engine.likely import find_likely
from kb.engine.match import match
from kb.evaluation.cases import Case, read_cases
from kb.evaluation.scoring import Outcome

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
SETS = (DATA / "cases.jsonl", DATA / "traffic", DATA / "wide")


def tuned_cases(sets=SETS) -> list[Case]:
    """The cases of every set that exists, less the held-out ones."""
    out: list[Case] = []
    for path in sets:
        if Path(path).exists():
            out += [c for c in read_cases(path) if c.split != "held-out"]
    return out


@dataclass(frozen=True)
class Probe:
    case: Case
    root: object  # the root error, when no signature covers it; else None (the tier is not asked)
    right_without: bool  # the matcher without the likely tier answers right first
    own: dict  # guide → its confidence in that result: a "match" elsewhere stands over a likeness


def case_probes(index: Index, cases: list[Case]) -> list[Probe]:
    out = []
    for c in cases:
        r = match(index, c.text, likely=False)
        ranked = [(m.guide_id, m.confidence) for m in r.matches]
        ask = r.root is not None and not r.covered and not r.root.wrapper_only
        out.append(Probe(c, r.root if ask else None, Outcome(c, ranked, 0.0).right, dict(ranked)))
    return out


def _specific(index: Index, gid: str | None) -> bool:
    return gid is not None and index.guides[gid].scope == "specific"


def cases_table(index: Index, thresholds, probes: list[Probe] | None = None) -> list[dict]:
    ps = probes if probes is not None else case_probes(index, tuned_cases())
    could = [p for p in ps if _specific(index, p.case.expect) and not p.right_without]
    rows = []
    for t in thresholds:
        right = wrong = 0
        wrong_ids: list[str] = []
        for p in ps:
            if p.root is None:
                continue
            hit = find_likely(index, p.root, threshold=t)
            if hit is None or not _specific(index, hit.guide) or p.own.get(hit.guide) in ("match", "triage"):
                continue  # no likeness, a class guide's triage, or its own hit says more
            ok = hit.guide in (p.case.expect, *p.case.also)
            right += ok
            wrong += not ok
            if not ok:
                wrong_ids.append(p.case.id)
        rows.append({"threshold": t, "given": right + wrong, "right": right,
                     "precision": right / (right + wrong) if right + wrong else None,
                     "recall": right / len(could) if could else None, "could": len(could), "wrong": wrong_ids})
    return rows


def format_rows(rows: list[dict], n_cases: int) -> str:
    out = [f"labelled reports (dev as written, tuned traffic, tuned wide): {n_cases}",
           f"{'threshold':>9} {'given':>6} {'right':>6} {'precision':>10} {'recall':>7}"]
    for r in rows:
        prec = "n/a" if r["precision"] is None else f"{100 * r['precision']:.1f}%"
        out.append(f"{r['threshold']:>9} {r['given']:>6} {r['right']:>6} {prec:>10} {100 * (r['recall'] or 0):6.1f}%"
                   f"   of {r['could']}")
    return "\n".join(out) + "\n"
