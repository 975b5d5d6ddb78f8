"""The likely tier's calibration on labelled reports reads only what it may be tuned on."""
import json

from kb.evaluation.calibrate_cases import SETS, case_probes, cases_table, tuned_cases
from tests.conftest import DATA


def test_no_held_out_report_is_read():
    held = {json.loads(line)["id"] for folder in ("traffic", "wide")
            for line in (DATA / folder / "cases.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip() and json.loads(line).get("split") == "held-out"}
    ids = {c.id for c in tuned_cases()}
    assert held and not held & ids
    assert DATA / "wide" in SETS and any(i.startswith("W-") for i in ids) and any(i.startswith("T-") for i in ids)


def test_the_table_counts_what_the_tier_says(index):
    cases = [c for c in tuned_cases() if c.id.startswith("W-S3-0")][:40]
    probes = case_probes(index, cases)
    low, high = cases_table(index, (60, 100), probes)
    for row in (low, high):
        assert row["right"] + len(row["wrong"]) == row["given"] and row["could"] <= len(cases)
    assert high["given"] <= low["given"]  # a higher threshold never says more
