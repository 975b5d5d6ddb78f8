"""Result files of the benchmarks: bench/results/<name>.json, committed.

The README's figures are rendered from these files (kb/authoring/readme_blocks.py), so each
file says how it was measured: the command, the commit and whether the tree had changes,
the date, the machine and how busy it was.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def provenance(command: str, commit: str | None = None) -> dict:
    return {
        "command": command,
        "commit": commit or _git("rev-parse", "--short=10", "HEAD"),
        # Uncommitted changes other than result files: the figures belong to a tree no commit has.
        "dirty": commit is None and bool(_git("status", "--porcelain", "--", ".", ":!bench/results")),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "machine": {"cpus": os.cpu_count(), "cpu": _cpu_model(), "load_avg_1m": round(os.getloadavg()[0], 2),
                    "python": sys.version.split()[0]},
    }


def save(path: Path | str, command: str, result: dict, commit: str | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**provenance(command, commit), "result": result}, indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    return path
