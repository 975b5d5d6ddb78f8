"""Merge the dev set's groups tests/data/cases/*.jsonl into tests/data/cases.jsonl.

    python tests/data/merge_cases.py          # write cases.jsonl
    python tests/data/merge_cases.py --check  # exit 1 if cases.jsonl is not the merge of the groups

Each line is {"id", "text", "expect"} (expect: a guide id, or null when no guide may
claim the paste); ids must be unique across groups. The pasted-like variants are not
stored: kb/evaluation/evaluate.py derives them from these cases.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "cases.jsonl"


def merged() -> str:
    seen: dict[str, str] = {}
    lines = []
    for path in sorted((HERE / "cases").glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            case = json.loads(line)
            if set(case) != {"id", "text", "expect"} or not isinstance(case["text"], str):
                raise SystemExit(f"{path.name}:{n}: want exactly {{id, text, expect}}, got {sorted(case)}")
            if case["id"] in seen:
                raise SystemExit(f"{path.name}:{n}: id {case['id']!r} already in {seen[case['id']]}")
            seen[case["id"]] = path.name
            lines.append(json.dumps({"id": case["id"], "text": case["text"], "expect": case["expect"]}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = merged()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale: run python {Path(__file__).relative_to(HERE.parent.parent)}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10))} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
