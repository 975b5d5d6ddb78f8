"""`python -m kb eval` on the code and guides of an earlier commit, saved as a result file.

    python bench/eval_at.py COMMIT CASES.jsonl --save bench/results/heldout-first.json [--variants]

For figures that belong to a past state: the held-out set was scored once, on the commit
that added it, before any guide was changed for it (tests/data/heldout.md). The commit is
unpacked into a temporary folder (git archive) and evaluated there, with this checkout's
Python and packages; variants are left out unless --variants.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))


def evaluate_at(commit: str, cases: str, with_variants: bool) -> tuple[str, dict]:
    full = subprocess.run(["git", "rev-parse", "--short=10", commit], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="kb-eval-at-"))
    try:
        archive = subprocess.run(["git", "archive", full], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        env = {**os.environ, "KB_EVAL_VARIANTS": "1" if with_variants else "0", "KB_CACHE_DIR": str(tmp / ".kb-cache")}
        proc = subprocess.run([sys.executable, "-m", "kb", "eval", "--json", cases], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            raise SystemExit(f"kb eval failed at {full}:\n{proc.stderr[-2000:]}")
        return full, json.loads(proc.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("commit")
    ap.add_argument("cases", metavar="CASES.jsonl", help="path inside that commit")
    ap.add_argument("--variants", action="store_true", help="add the pasted-like variants, as kb eval does by default")
    ap.add_argument("--save", type=Path, required=True, metavar="FILE")
    args = ap.parse_args(argv)
    commit, report = evaluate_at(args.commit, args.cases, args.variants)
    import results
    results.save(args.save, "python bench/eval_at.py " + " ".join(argv if argv is not None else sys.argv[1:]), report, commit=commit)
    m = report["methods"]["matcher"]["all"]
    print(f"{commit}: matcher top-1 {m['top1']:.1%}, false matches {m['false_match_rate']:.1%} -> {args.save}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
