"""`python -m kb eval CASES`: how well pastes find their guide, tier by tier, against what
a person would otherwise do.

CASES is a JSONL file of {"id", "text", "expect"} (`expect`: the guide the paste must find,
or null when no guide may claim it), or a labelled set: a folder whose cases name an error
family and whose families.json says which guide covers each (kb/evaluation/cases.py). To
JSONL cases are added variants derived from each the way people really paste
(kb/evaluation/cases.py); KB_EVAL_VARIANTS=0 leaves them out. Labelled sets are scored as
sampled, without variants.

Three methods, side by side, on the same cases (kb/evaluation/scoring.py says what counts):

- matcher: this knowledge base (kb.engine.match), with its tiers: top-1 with "match",
  top-1 with "match", "likely" or "triage" (a class guide's procedure, right only when the
  case's family maps to that guide), the likely and triage tiers' precision, false answers.
- bm25: a knowledge-base search box. The query is the paste's last error line, the
  documents every text of every guide, ranked with BM25; every hit counts as an answer.
- exact: an exact search for the exception's last line among the guides' raw errors.

`--answers FILE` scores the matcher's answers as another version printed them with
`kb match --jsonl` (to measure a version in the past on today's cases); the baselines are
then left out.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from kb import config
from kb.engine.index import load_index
from kb.evaluation.cases import FAMILIES, read_cases, variants
from kb.evaluation.scoring import METHODS, Ranked, evaluate
from kb.guides.load import GUIDES_DIR


def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


LABELS = (("matcher", "matcher (kb match)"), ("bm25", "BM25 search box"), ("exact", "exact last line"))


def format_report(r: dict) -> str:
    out = [f"{r['cases']} cases + {r['variants']} pasted-like variants, {r['guides']} guides.", ""]
    if r["unknown_expected_guides"]:
        out += ["Expected guides that do not exist (or do not load): " + ", ".join(r["unknown_expected_guides"]), ""]
    head = (f"{'':22} {'top-1':>7} {'+lk/tri':>8} {'top-3':>7} {'likely ok':>10} {'false ans.':>11}"
            f" {'median ms':>10} {'worst ms':>9}")
    groups = (("all", "All cases"),) + ((("as_written", "Cases as written"), ("variants", "Pasted-like variants"))
                                         if r["variants"] else ())
    for group, title in groups:
        g0 = r["methods"]["matcher"][group]
        out.append(f"{title}: {g0['cases_with_expect']} expecting a guide, {g0['cases_expecting_null']} expecting none")
        out.append(head)
        for name, label in LABELS:
            if name not in r["methods"]:
                continue
            g = r["methods"][name][group]
            med = "" if g["median_ms"] is None else f"{g['median_ms']:10.2f}"
            worst = "" if g["worst_ms"] is None else f"{g['worst_ms']:9.2f}"
            likely = f"{_pct(g['likely_precision'])} ({g['likely_given']})" if name == "matcher" else "—"
            out.append(f"{label:22} {_pct(g['top1']):>7} {_pct(g['top1_answer']):>8} {_pct(g['top3']):>7} {likely:>10}"
                       f" {_pct(g['false_answer_rate']):>11} {med:>10} {worst:>9}")
        out.append("")
    labelled = r["methods"]["matcher"].get("labelled")
    if labelled:
        out.append(f"{'labelled set':14} {'cases':>6} {'coverage':>9} {'right-first':>12} {'of covered':>11}"
                   f" {'likely right':>13} {'triage right':>13} {'false ans.':>11}")
        for split, g in labelled.items():
            likely = f"{g['likely_right']} of {g['likely_given']}" if g["likely_given"] else "-"
            triage = f"{g['triage_right']} of {g['triage_given']}" if g.get("triage_given") else "-"
            out.append(f"{split:14} {g['cases']:>6} {_pct(g['coverage']):>9} {_pct(g['right_first']):>12}"
                       f" {_pct(g['right_first_of_covered']):>11} {likely:>13} {triage:>13} {_pct(g['false_answers']):>11}")
        out += ["", "Most frequent families without a guide:"]
        out += [f"  {n:3}  {fam}" for fam, n in labelled["all"]["uncovered_families"]]
        out.append("")
    if r["methods"]["matcher"]["by_variant"]:
        out.append("Matcher by variant (right first with match, likely or triage / false answers):")
        for kind, g in r["methods"]["matcher"]["by_variant"].items():
            out.append(f"  {kind:15} {_pct(g['top1_answer'])} / {_pct(g['false_answer_rate'])}"
                       f"   ({g['cases_with_expect']} + {g['cases_expecting_null']})")
    fails = r["methods"]["matcher"]["failures"]
    out += ["", f"Matcher failures ({len(fails)}):" if fails else "Matcher failures: none."]
    for f in fails:
        got = f"{f['first']} ({f['confidence']})" if f["first"] else "nothing"
        out.append(f"  {f['id']}: expected {f['expected'] or 'no answer'}, first {got}")
    for name in ("bm25", "exact"):
        if name in r["methods"]:
            out.append(f"{name}: {len(r['methods'][name]['failures'])} failing cases (see --json).")
    return "\n".join(out) + "\n"


def read_answers(path: str | Path) -> dict[str, Ranked]:
    """Answers as `kb match --jsonl` prints them: {"id", "matches": [{"id", "confidence"}, …]} per line."""
    out: dict[str, Ranked] = {}
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            out[str(d["id"])] = [(str(m["id"]), str(m["confidence"])) for m in d["matches"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a `kb match --jsonl` line ({exc})") from None
    return out


def main(args) -> int:
    index = load_index(getattr(args, "guides", None) or GUIDES_DIR)
    try:
        cases = read_cases(args.cases, getattr(args, "families", None) or FAMILIES)
        if getattr(args, "split", None):
            cases = [c for c in cases if c.split == args.split]
        answers = read_answers(args.answers) if getattr(args, "answers", None) else None
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not Path(args.cases).is_dir() and config.get("KB_EVAL_VARIANTS"):
        cases = cases + variants(cases)
    report = evaluate(index, cases, ("matcher",) if answers is not None else METHODS, answers)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(format_report(report))
    return 0
