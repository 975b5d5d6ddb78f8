"""`python -m kb eval` on the dev set (tests/data/cases.jsonl) and its pasted-like variants."""
import json
import subprocess
import sys

import pytest

from kb.evaluation.cases import VARIANTS, Case, read_cases, variants
from kb.evaluation.scoring import evaluate
from tests.conftest import DATA, ROOT

CASES = DATA / "cases.jsonl"
# Floors, below the targets (top-1 >= 95 %, false matches <= 2 %) so that one new hard case
# does not fail the suite; the figures themselves are in README.md. Top-1 here is right first
# with a tier that addresses the paste: a class guide never answers "match", its "triage" is
# right when the case expects that guide.
TOP1_FLOOR = 0.90
FALSE_MATCH_CEILING = 0.05


@pytest.fixture(scope="module")
def report(index):
    cases = read_cases(CASES)
    return evaluate(index, cases + variants(cases))


def test_dev_set_is_the_merge_of_its_groups():
    proc = subprocess.run([sys.executable, str(DATA / "merge_cases.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_dev_set_expects_guides_that_exist(index):
    missing = sorted({c.expect for c in read_cases(CASES) if c.expect and c.expect not in index.guides})
    assert not missing, missing


def test_matcher_meets_the_floors(report):
    m = report["methods"]["matcher"]["all"]
    assert m["top1_answer"] >= TOP1_FLOOR, report["methods"]["matcher"]["failures"]
    assert m["false_match_rate"] <= FALSE_MATCH_CEILING, report["methods"]["matcher"]["failures"]


def test_three_methods_side_by_side(report):
    assert set(report["methods"]) == {"matcher", "bm25", "exact"}
    for name, entry in report["methods"].items():
        for group in ("all", "as_written", "variants"):
            g = entry[group]
            assert set(g) == {"cases_with_expect", "cases_expecting_null", "top1", "top1_answer", "top3", "likely_given",
                              "likely_precision", "triage_given", "triage_precision", "false_answer_rate",
                              "false_match_rate", "median_ms", "worst_ms"}
            assert 0 <= g["top1"] <= g["top1_answer"] <= 1, (name, group, g)
            assert g["top1_answer"] <= g["top3"] or name != "matcher", (name, group, g)
        for f in entry["failures"]:
            assert set(f) == {"id", "expected", "first", "confidence"}
    # The matcher beats a search box on false matches and an exact search on recall.
    m, b, e = (report["methods"][k]["all"] for k in ("matcher", "bm25", "exact"))
    assert m["false_match_rate"] < b["false_match_rate"]
    assert m["top1"] > e["top1"]


def test_variants_are_deterministic_and_cover_every_kind():
    cases = read_cases(CASES)
    a, b = variants(cases), variants(cases)
    assert [(v.id, v.text) for v in a] == [(v.id, v.text) for v in b]
    assert {v.variant for v in a} == set(VARIANTS)
    assert all(v.expect == next(c.expect for c in cases if c.id == v.id.split("~")[0]) for v in a[:50])


def test_variant_shapes():
    case = Case("x", "INFO 11-29 10:00:01 [core.py:1] starting\nTraceback (most recent call last):\n"
                     '  File "/a.py", line 3, in f\n    g()\nValueError: No common block size for 64', "some-guide")
    v = {c.variant: c.text for c in variants([case])}
    assert v["last-line"] == "ValueError: No common block size for 64"
    assert v["traceback-only"].startswith("Traceback") and "INFO" not in v["traceback-only"]
    assert "Traceback" not in v["log-only"] and "File " not in v["log-only"] and "No common block size" in v["log-only"]
    assert "(RayWorkerWrapper pid=" in v["ray"] and "RayTaskError(ValueError)" in v["ray"]
    assert "ChildFailedError" in v["torchrun"] and "[rank" in v["torchrun"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in v["chinese"])
    assert "\r\n" in v["crlf"] and "\x1b[" in v["ansi"]
    assert sum(line.endswith("No common block size for 64") for line in v["8-ranks"].splitlines()) == 8


def test_eval_cli_json_shape(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(c) for c in [
        {"id": "a", "text": (DATA / "pastes" / "seed1-serve.log").read_text(), "expect": "vllm-dsv41-sm120-no-common-block-size"},
        {"id": "b", "text": "nothing to see here", "expect": None},
    ]) + "\n")
    proc = subprocess.run([sys.executable, "-m", "kb", "eval", "--json", str(cases)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["cases"] == 2 and out["variants"] > 0
    assert out["methods"]["matcher"]["as_written"]["top1"] == 1.0
    assert out["methods"]["matcher"]["as_written"]["false_match_rate"] == 0.0
    text = subprocess.run([sys.executable, "-m", "kb", "eval", str(cases)], cwd=ROOT, capture_output=True, text=True, timeout=300).stdout
    for label in ("matcher (kb match)", "BM25 search box", "exact last line", "top-1", "+lk/tri", "false ans."):
        assert label in text


def test_eval_cli_refuses_a_broken_cases_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n')
    proc = subprocess.run([sys.executable, "-m", "kb", "eval", str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "bad.jsonl:1" in proc.stderr


def test_former_held_out_set_meets_the_targets(index):
    """The 67 held-out pastes (tests/data/heldout.md) now guard against regressions."""
    cases = read_cases(DATA / "heldout.jsonl")
    m = evaluate(index, cases)["methods"]["matcher"]
    assert m["all"]["top1_answer"] >= 0.95, m["failures"]
    assert m["all"]["false_match_rate"] <= 0.02, m["failures"]


def test_a_labelled_set_reads_the_family_map_it_is_told(tmp_path):
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in [
        {"id": "a", "text": "x", "family": "f1"}, {"id": "b", "text": "y", "family": "f2"}]) + "\n")
    (tmp_path / "families.json").write_text(json.dumps({"covered": {"f1": "g1", "f2": "g2"}}))
    (tmp_path / "then.json").write_text(json.dumps({"covered": {"f1": "g1"}}))  # f2 had no guide then
    assert [c.expect for c in read_cases(tmp_path)] == ["g1", "g2"]
    assert [c.expect for c in read_cases(tmp_path, "then.json")] == ["g1", None]
    proc = subprocess.run([sys.executable, "-m", "kb", "eval", str(tmp_path), "--families", "missing.json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "missing.json" in proc.stderr and "Traceback" not in proc.stderr
