"""Where a cold load spends its time: each stage of reading one guide, per guide, in one process.

    python bench/load_stages.py [--guides 800] [--dir DIR]

The guides are synthetic ones (bench/synth.py, as bench/run.py writes them); the stages are the
ones a loading worker runs for each file (kb.engine.index._light): read and validate the YAML,
compile the signatures, build the likely tier's references and the search tokens, encode
for the cache.
Medians would hide nothing here: every guide costs about the same, so the figure is the mean.
A benchmark, not a test: nothing asserts a time.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from kb.engine.guidestore import encode_guide  # noqa: E402
from kb.engine.index import _prepared, compile_guide, guide_meta  # noqa: E402
from kb.guides.load import guide_files, read_guide  # noqa: E402

STAGES = ("read and validate", "compile signatures", "likely references and tokens", "encode and describe")


def stages(root: Path, n: int) -> dict[str, float]:
    """Mean milliseconds per guide of each stage, over the first `n` guide files under `root`.
    The worker's own functions are timed; the references and tokens are what `_prepared`
    takes beyond compiling the signatures."""
    spent = dict.fromkeys(STAGES, 0.0)
    files = guide_files(root)[:n]
    for path in files:
        t0 = time.perf_counter()
        g, _ = read_guide(path, root)
        t1 = time.perf_counter()
        compile_guide(g)
        t2 = time.perf_counter()
        _prepared(g)
        t3 = time.perf_counter()
        encode_guide(g), guide_meta(g)
        t4 = time.perf_counter()
        spent["read and validate"] += t1 - t0
        spent["compile signatures"] += t2 - t1
        spent["likely references and tokens"] += max(0.0, (t3 - t2) - (t2 - t1))
        spent["encode and describe"] += t4 - t3
    return {name: 1000 * s / len(files) for name, s in spent.items()}


def main(argv: list[str] | None = None) -> int:
    import synth
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--guides", type=int, default=800, help="how many synthetic guides to time")
    ap.add_argument("--dir", type=Path, help="keep the synthetic guides here (reused when unchanged)")
    args = ap.parse_args(argv)
    root = args.dir or Path(tempfile.mkdtemp(prefix="kb-stages-")) / "guides"
    synth.generate(args.guides, root)
    per = stages(root, args.guides)
    for name, ms in per.items():
        print(f"{name:22} {ms:6.2f} ms per guide")
    print(f"{'total':22} {sum(per.values()):6.2f} ms per guide")
    return 0


if __name__ == "__main__":
    sys.exit(main())
