"""The evaluation tables of README.md, rendered by running the evaluation itself: it is
deterministic (the cases, their variants and the matcher), so the README's figures are
what `python -m kb eval` prints today, and a test recomputes them.

Timings are left out here: they depend on the machine (bench/ measures them).
"""
from __future__ import annotations

from functools import lru_cache

from kb import ROOT
from kb.authoring.readme_blocks import block, pct, result_file, table
from kb.engine.index import load_index
from kb.evaluation.cases import VARIANTS, read_cases, variants
from kb.evaluation.scoring import evaluate

DEV = "tests/data/cases.jsonl"
HELDOUT = "tests/data/heldout.jsonl"
# What the matcher must reach on pastes it has never seen (the held-out set scored blind).
TARGET_TOP1, TARGET_FALSE = 0.95, 0.02
METHODS = (("matcher", "this matcher (`kb match`)"), ("bm25", "BM25 search box over the guides' text"),
           ("exact", "exact search for the exception's last line"))
VARIANT_NAMES = {
    "last-line": "only the last line", "traceback-only": "only the traceback", "log-only": "the log without the traceback",
    "ray": "inside a Ray worker's output", "torchrun": "inside torchrun's output (rank prefixes, the launcher's summary)", "chinese": "a Chinese sentence around it",
    "crlf": "Windows line endings", "ansi": "ANSI colours", "8-ranks": "8 ranks printing it, interleaved",
}


@lru_cache(maxsize=None)
def report(cases: str, with_variants: bool) -> dict:
    """`kb eval` (`KB_EVAL_VARIANTS=0` when not with_variants) on the served guides."""
    written = read_cases(ROOT / cases)
    return evaluate(load_index(), written + variants(written) if with_variants else written)


def methods_table(r: dict, group: str = "all") -> str:
    g = r["methods"]["matcher"][group]
    n = g["cases_with_expect"] + g["cases_expecting_null"]
    head = [f"{n:,} pastes ({g['cases_with_expect']:,} expect a guide, {g['cases_expecting_null']:,} none)", "top-1", "top-3", "false matches"]
    rows = []
    for name, label in METHODS:
        s = r["methods"][name][group]
        bold = (lambda x: f"**{x}**") if name == "matcher" else (lambda x: x)
        rows.append([label, bold(pct(s["top1"])), pct(s["top3"]), bold(pct(s["false_match_rate"]))])
    return table(head, rows)


@block("eval-dev", f"python -m kb eval {DEV}")
def eval_dev() -> str:
    r = report(DEV, True)
    return methods_table(r) + (f"\n{r['cases']} cases as written and {r['variants']} variants of them, on {r['guides']} guides: "
                               f"`python -m kb eval {DEV}`.")


@block("eval-dev-by-variant", f"python -m kb eval {DEV}")
def eval_dev_by_variant() -> str:
    m = report(DEV, True)["methods"]["matcher"]
    rows = [["the case as written", f"{m['as_written']['cases_with_expect']} + {m['as_written']['cases_expecting_null']}",
             pct(m["as_written"]["top1"]), pct(m["as_written"]["top3"]), pct(m["as_written"]["false_match_rate"])]]
    for kind in VARIANTS:
        s = m["by_variant"].get(kind)
        if s:
            rows.append([VARIANT_NAMES.get(kind, kind), f"{s['cases_with_expect']} + {s['cases_expecting_null']}",
                         pct(s["top1"]), pct(s["top3"]), pct(s["false_match_rate"])])
    return table(["the matcher on…", "pastes (guide + none)", "top-1", "top-3", "false matches"], rows)


@block("eval-heldout", f"KB_EVAL_VARIANTS=0 python -m kb eval {HELDOUT}")
def eval_heldout() -> str:
    r = report(HELDOUT, False)
    return methods_table(r) + f"\nToday's code and guides: `KB_EVAL_VARIANTS=0 python -m kb eval {HELDOUT}`."


@block("eval-heldout-first", "bench/results/heldout-first.json (python bench/eval_at.py)")
def eval_heldout_first() -> str:
    data = result_file("heldout-first.json")
    m = data["result"]["methods"]["matcher"]["all"]
    misses = sum(1 for f in data["result"]["methods"]["matcher"]["failures"] if f["expected"])
    targets = (f"Targets on unseen pastes: top-1 ≥ {pct(TARGET_TOP1)}: {'met' if m['top1'] >= TARGET_TOP1 else '**missed**'}; "
               f"false matches ≤ {pct(TARGET_FALSE)}: {'met' if m['false_match_rate'] <= TARGET_FALSE else '**missed**'}. "
               f"{misses} of the {m['cases_with_expect']} pastes that expect a guide did not find it first.")
    return methods_table(data["result"]) + "\n" + targets + (f"\nScored on the code and guides of commit {data['commit']}, the commit that added the "
                                            f"set, before any guide was changed for it: `{data['command']}`.")
