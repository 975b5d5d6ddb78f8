"""The engine's answers on the page (AppTest): the root error when no guide covers it, the
likely tier, the patterns behind a details toggle, the user's numbers and the cause they
point to, the quotes a cause stands on, and a guide's reproduction."""
from __future__ import annotations

import json

from tests.conftest import ROOT
from tests.test_app import app, no_crash, texts

REPRO = json.loads((ROOT / "repro" / "results.json").read_text(encoding="utf-8"))


def _repro(script: str, *args: str) -> str:
    return next(r["output"] for r in REPRO["runs"] if r["script"] == script and r["args"] == list(args))


def test_an_issue_title_with_half_a_message_is_answered_as_likely_with_what_was_close():
    at = app()
    at.text_area(key="paste").input("ValueError: Bfloat16 is only supported on GPUs with compute capability").run()
    no_crash(at)
    shown = texts(at)
    assert ":blue-badge[Likely — no exact match]" in shown and "reads like this guide's error" in shown
    assert "No guide for this error yet." not in shown


def test_a_class_guide_is_shown_as_a_triage_procedure_never_as_a_match():
    # A cut illegal-memory-access line: the likely tier finds the guide, which covers a family of kernel faults.
    line = next(ln for ln in _repro("cuda-illegal-memory-access").splitlines() if "illegal memory access" in ln)
    at = app()
    at.text_area(key="paste").input(line[: line.index("was") + 3]).run()
    no_crash(at)
    shown = texts(at)
    assert ":violet-badge[Triage procedure — for this family of errors, not a diagnosis]" in shown
    assert ":green-badge[Match]" not in shown and "No guide names this error's exact cause" in shown
    assert "This guide covers a family of errors, not one mechanism" in shown
    # The card keeps its widget key, and the procedure is the result to open.
    button = next(b for b in at.button if b.key == "open:cuda-illegal-memory-access")
    assert button.proto.type == "primary"
    at.session_state["lang"] = "zh"
    at.run()
    assert ":violet-badge[排查流程：针对这一类错误，并非确诊]" in texts(at)


def test_patterns_are_behind_the_details_toggle_not_in_the_reasons():
    at = app()
    at.text_area(key="paste").input(_repro("cuda-misaligned-address")).run()
    no_crash(at)
    reasons = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert reasons and not any("{" in r or "(?:" in r for r in reasons)
    details = [e for e in at.expander if e.label.startswith("Details: the patterns")]
    assert details and any("misaligned address" in m.value for m in details[0].markdown)


def test_the_oom_numbers_and_the_cause_they_point_to_are_on_the_card_and_the_guide():
    at = app()
    at.text_area(key="paste").input(_repro("cuda-oom", "other")).run()
    no_crash(at)
    shown = texts(at)
    assert "Your numbers:" in shown and "112.35 GiB" in shown
    assert "Fits your paste" in shown and "it is another job" in shown
    at.button(key="open:cuda-oom").click().run()
    no_crash(at)
    shown = texts(at)
    assert "Fits your paste" in shown  # under the cause, on the guide opened from the results
    assert "Reproduced" in shown and "NVIDIA H200" in shown and "repro/cuda-oom.py" in shown


def test_a_guide_shows_why_we_believe_each_quoted_cause():
    at = app(guide="cuda-oom")
    no_crash(at)
    why = [e for e in at.expander if e.label == "Why we believe this"]
    assert why
    quoted = [c.value for e in why for c in e.code]
    assert any("lowered the batch size" in q for q in quoted), quoted


def test_a_counter_example_is_shown_as_one():
    # cuda-unknown-error keeps the words of the reporter who found PyTorch's CUDA_VISIBLE_DEVICES hint irrelevant.
    at = app(guide="cuda-unknown-error")
    no_crash(at)
    why = [e for e in at.expander if e.label == "Why we believe this"]
    labels = [m.value.replace("\\", "") for e in why for m in e.markdown]  # Markdown-escaped on the page
    assert any(v.startswith("Against this cause:") and "pytorch/pytorch#88639" in v for v in labels), labels
    assert any(not v.startswith("Against") and "pytorch/pytorch#88639" in v for v in labels)  # the same thread, for the fix


def test_the_guide_page_shows_a_printed_error_in_its_raw_error_box(index):
    # The box shows the first raw error: for the CUDA OOM guide once an issue's title, now the reproduction's output.
    from kb.authoring.raw_title import title_reason
    first = index.guides["cuda-oom"].raw_errors[0]
    assert title_reason(index.guides["cuda-oom"]) is None
    at = app(guide="cuda-oom")
    no_crash(at)
    box = next(e for e in at.expander if e.label == "Raw error")
    assert [c.value for c in box.code] == [first.text]
    assert "torch.OutOfMemoryError: CUDA out of memory" in first.text
    assert "sglang offline inference" not in texts(at)
