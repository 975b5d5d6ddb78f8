"""Time the engine on hostile pastes: what tests/test_hostile.py checks for outcome, timed.

Each input is built in memory and run through what the Diagnose page does with a paste:
parse + match (one call), then the error signature and the new-guide skeleton that a
paste without a confident match gets. Best of --repeat runs, after one warm-up.

    .venv/bin/python bench/hostile.py [--repeat 3] [--save bench/results/hostile.json]
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.authoring.skeleton import skeleton  # noqa: E402
from kb.engine.index import load_index  # noqa: E402
from kb.engine.match import match  # noqa: E402
from kb.feedback.signature import error_signature  # noqa: E402

IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"
LOG_LINE = "INFO 11-29 10:00:01 [core.py:123] Avg prompt throughput: 0.0 tokens/s, Running: 0 reqs\n"


def chain(n: int) -> str:
    block = ("Traceback (most recent call last):\n"
             '  File "/srv/app/step{i}.py", line {i}, in step{i}\n'
             "    raise ValueError(f'step {i} failed')\n"
             "ValueError: step {i} failed\n\n"
             "During handling of the above exception, another exception occurred:\n\n")
    return "".join(block.format(i=i) for i in range(n)) + IMA + "\n"


CASES = {
    "10 MB log (90-char lines)": lambda: LOG_LINE * (10_000_000 // len(LOG_LINE)) + IMA + "\n",
    "10 MB log (4-char lines)": lambda: "ok!\n" * 2_500_000 + IMA + "\n",
    "one 2 MB line, no newline": lambda: "x" * 2_000_000 + " " + IMA,
    "1,000,000 short lines": lambda: "ok\n" * 1_000_000 + IMA + "\n",
    "1,000 chained exceptions": lambda: chain(1000),
    "150,000 identical errors, no match": lambda: "ValueError: the same line\n" * 150_000,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--save", type=Path, metavar="FILE", help="also write the rows, with how they were measured, to FILE")
    args = ap.parse_args()
    index = load_index(ROOT / "guides")
    match(index, IMA)  # warm-up: RE2 patterns compiled
    rows = []
    for name, build in CASES.items():
        text = build()
        best_match = best_after = float("inf")
        for _ in range(args.repeat):
            gc.collect()
            t0 = time.perf_counter()
            result = match(index, text)
            t1 = time.perf_counter()
            if not result.confident:
                error_signature(result.paste, result.root)  # as the page calls them
                skeleton(result.paste, result.root)
            t2 = time.perf_counter()
            best_match, best_after = min(best_match, t1 - t0), min(best_after, t2 - t1)
        top = result.confident[0].guide_id if result.confident else None
        rows.append({"input": name, "mb": round(len(text) / 1e6, 1), "lines_read": len(result.paste.lines),
                     "cut": bool(result.paste.truncation), "match_s": round(best_match, 3),
                     "no_match_extras_s": None if result.confident else round(best_after, 3), "top": top})
    if args.save:
        sys.path.insert(0, str(ROOT / "bench"))
        import results
        results.save(args.save, "python bench/hostile.py " + " ".join(sys.argv[1:]), {"repeat": args.repeat, "guides": len(index.guides), "rows": rows})
    table = [(r["input"], f"{r['mb']:.1f} MB", f"{r['lines_read']:,}", "cut" if r["cut"] else "whole", f"{r['match_s']:.2f}",
              "—" if r["no_match_extras_s"] is None else f"{r['no_match_extras_s']:.2f}", r["top"] or "(no match)") for r in rows]
    head = ("input", "size", "lines read", "paste", "match s", "no-match extras s", "top guide")
    widths = [max(len(str(r[i])) for r in [head, *table]) for i in range(len(head))]
    for r in [head, tuple("-" * w for w in widths), *table]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


if __name__ == "__main__":
    main()
