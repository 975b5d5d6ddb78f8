"""Time redaction on hostile and shaped input: linear in its input, whatever the shape.

Each row is the best of --repeat runs of `redact()` on one input, at two sizes: a time that
grows much faster than the size (2 MB taking four times 1 MB) is a quadratic rule.

    .venv/bin/python bench/redact.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.feedback.redact import redact  # noqa: E402
from tests.planted_shapes import shaped  # noqa: E402

SHAPED = "\n".join(paste for _, _, paste in shaped())
UNITS = {
    "a:b@ repeated": "a:b@",
    "user@host prompts": "alice@gpu-node-17:~$ python x.py\n",
    "JSON log records": '{"exc_info": "Traceback\\n  File \\"/home/a/x.py\\"\\nValueError: token=abcdefgh123 \\"x\\""}\n',
    "percent-encoded access log": 'INFO: 1.2.3.4:5 - "GET /x?e=ValueError%3A%20token%3Dabcdefgh123 HTTP/1.1" 500\n',
    "the shaped secret corpus": SHAPED + "\n",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'input':<30} {'1 MB s':>8} {'2 MB s':>8} {'ratio':>6}")
    for name, unit in UNITS.items():
        times = []
        for size in (1_000_000, 2_000_000):
            text = (unit * (size // len(unit) + 1))[:size]
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                redact(text)
                best = min(best, time.perf_counter() - t0)
            times.append(best)
        print(f"{name:<30} {times[0]:>8.2f} {times[1]:>8.2f} {times[1] / times[0]:>6.2f}")


if __name__ == "__main__":
    main()
