"""Reproductions (repro/): every guide marked `reproduced` has its script, keeps the output it
printed as a raw error, and says fix_verified only where the --fix run really succeeded. Every
text a guide attributes to a reproduction (a raw error, an evidence quote) is really in what
the runs printed: repro/results.json, or the unedited log of repro/extra/."""
from __future__ import annotations

import json

import pytest

from schema.models import Evidence
from tests.conftest import ROOT

RESULTS = json.loads((ROOT / "repro" / "results.json").read_text(encoding="utf-8"))
EXTRA = (ROOT / "repro" / "extra" / "all.log").read_text(encoding="utf-8")


def printed(gid: str) -> list[str]:
    return [r["output"] for r in RESULTS["runs"] if r["script"] == gid] + [EXTRA]


def test_enough_guides_are_reproduced(index):
    reproduced = [g for g in index.guides.values() if g.reproduced is not None]
    assert len(reproduced) >= 15, [g.id for g in reproduced]


def _attributed(index):
    for gid, g in index.guides.items():
        for r in g.raw_errors:
            if r.source.startswith("repro:"):
                yield gid, r.source, r.text
        for c in g.causes:
            for e in c.evidence:
                if isinstance(e, Evidence) and e.ref.startswith("repro:") and e.quote:
                    yield gid, e.ref, e.quote


def test_what_a_guide_attributes_to_a_reproduction_was_printed_by_it(index):
    missing = [(gid, ref, text[:80]) for gid, ref, text in _attributed(index)
               if not any(text in out for out in printed(ref.removeprefix("repro:")))]
    assert not missing, missing


def test_reproduction_records_match_the_runs(index):
    runs = {r["script"] for r in RESULTS["runs"]}
    for g in index.guides.values():
        rep = g.reproduced
        if rep is None:
            continue
        assert rep.script == f"repro/{g.id}.py" and (ROOT / rep.script).is_file()
        assert g.id in runs, f"{g.id}: no run of its script in repro/results.json"
        fixes = [r for r in RESULTS["runs"] if r["script"] == g.id and "--fix" in r["args"]]
        if rep.fix_verified:
            assert fixes and all(r["rc"] == 0 for r in fixes), g.id
        errors = [r for r in RESULTS["runs"] if r["script"] == g.id and "--fix" not in r["args"]]
        assert errors and all(r["rc"] != 0 for r in errors), f"{g.id}: the run without --fix must fail"


@pytest.mark.parametrize("path", sorted((ROOT / "repro").glob("*.py")), ids=lambda p: p.stem)
def test_every_script_is_run_and_names_a_guide(index, path):
    if path.stem == "run":
        return
    assert path.stem in index.guides, f"{path.name} names no guide"
    assert any(r["script"] == path.stem for r in RESULTS["runs"]), f"{path.name} was never run"
