"""The real pastes the root-error tests read: files of tests/data/roots, cases of the tuned part of
tests/data/traffic (by id; a held-out case is refused), raw errors and near misses of a guide."""
from __future__ import annotations

import json

from tests.conftest import DATA

ROOTS = DATA / "roots"


def paste(name: str) -> str:
    return (ROOTS / name).read_text(encoding="utf-8")


def traffic(case_id: str) -> str:
    for line in (DATA / "traffic" / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            assert case["split"] == "tuned", f"{case_id} is held out: never a test input"
            return case["text"]
    raise KeyError(case_id)


def corpus_negative(ref: str) -> str:
    """A real error of the corpus (tests/data/corpus) that belongs to none of its families."""
    for n in json.loads((DATA / "corpus" / "families.json").read_text(encoding="utf-8"))["negatives"]:
        if n.get("ref") == ref:
            return n["raw"]
    raise KeyError(ref)


def guide_text(index, guide: str, source: str) -> str:
    """The raw error of `guide` that came from `source`."""
    return next(r.text for r in index.guides[guide].raw_errors if r.source == source)


def wide(case_id: str) -> str:
    """A report of the tuned part of tests/data/wide, by id; a held-out one is refused."""
    for line in (DATA / "wide" / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            assert case["split"] == "tuned", f"{case_id} is held out: never a test input"
            return case["text"]
    raise KeyError(case_id)
