"""What the engine answers for real pastes: the root error first, wrappers as help, the likely
tier for cut and reworded messages, the environment as evidence wherever it is pasted, and
explanations in the user's words."""
from __future__ import annotations

import json

import pytest

from kb.diagnosis import as_json, diagnose
from kb.engine.match import explain_notes, match
from tests.conftest import DATA, read

TUNED = {json.loads(line)["id"]: json.loads(line) for line in (DATA / "traffic" / "cases.jsonl").read_text().splitlines()
         if json.loads(line)["split"] == "tuned"}


def ranking(res):
    return [(m.guide_id, m.confidence) for m in res.matches]


def test_wrapper_with_an_uncovered_root_error_is_not_the_answer(index):
    # yangjianxin1/Firefly#32: the worker's own error, then torchrun's summary of it.
    res = match(index, read("pastes/firefly32-torchrun-json-error.log"))
    assert res.root is not None and res.root.text == "Exception: expected value at line 1 column 1"
    assert not res.covered and res.answer is None
    wrapper = next(m for m in res.matches if m.guide_id == "torchrun-childfailederror-wrapper")
    assert wrapper.confidence == "help"
    out = as_json(diagnose(index, read("pastes/firefly32-torchrun-json-error.log")))
    assert out["root_error"] == {"line": 1, "text": "Exception: expected value at line 1 column 1", "covered": False,
                                 "triage": False}
    assert any("No guide covers it yet" in n for n in out["notes"])


def test_a_paste_of_nothing_but_the_wrapper_gets_the_wrapper_guides_triage_procedure(index):
    # A wrapper only reports another error: its guide (a class guide) is the procedure to find it, not a match.
    text = read("pastes/firefly32-torchrun-json-error.log").split("\n", 1)[1]  # the launcher's lines only
    res = match(index, text)
    assert ranking(res)[0] == ("torchrun-childfailederror-wrapper", "triage")
    assert res.answer is None and res.triaged
    assert res.root.wrapper_only and not res.covered


def test_the_error_a_wrapper_prints_after_its_colon_is_the_root(index):
    # sgl-project/sglang#4205 (kept in the guide as a near miss): the capture wrapper with a gloo
    # error after its colon, which no guide covers.
    g = index.guides["sglang-capture-cuda-graph-failed"]
    res = match(index, next(n.text for n in g.near_misses if n.source == "sgl-project/sglang#4205"))
    assert res.root.text.startswith("[../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection cl")
    assert res.answer is None and ("sglang-capture-cuda-graph-failed", "help") in ranking(res)
    # The same wrapper with nothing after its colon (sgl-project/sglang#11218) leads, as its triage procedure.
    res = match(index, next(r.text for r in g.raw_errors if r.source == "sgl-project/sglang#11218"))
    assert ranking(res)[0] == ("sglang-capture-cuda-graph-failed", "triage")
    # torchrun's 'of binary:' is followed by a path, not by a message: still the wrapper's procedure.
    text = read("pastes/firefly32-torchrun-json-error.log").split("\n", 1)[1]
    assert ranking(match(index, text))[0] == ("torchrun-childfailederror-wrapper", "triage")


def test_root_error_of_a_chain_is_its_first_exception(index):
    text = ("Traceback (most recent call last):\n  File \"/x/configuration_auto.py\", line 1, in f\nKeyError: 'qwen9_moe'\n\n"
            "During handling of the above exception, another exception occurred:\n\n"
            "Traceback (most recent call last):\n  File \"/x/train.py\", line 9, in main\n"
            "ValueError: The checkpoint you are trying to load has model type `qwen9_moe` but Transformers does not recognize this architecture.")
    res = match(index, text)
    assert res.root.exc_type == "KeyError" and res.root.no == 3


def test_a_paste_cut_inside_a_class_guides_error_line_gets_its_triage_procedure(index):
    # The reproduced message as an issue excerpt cuts it: inside the line, before its last word. The
    # likely tier finds the guide; the guide covers a family of kernel faults, so it only triages.
    line = next(ln for ln in _repro("cuda-illegal-memory-access").splitlines() if "illegal memory access" in ln)
    cut = line[: line.index("was") + 3]
    res = match(index, cut)
    assert ranking(res)[0] == ("cuda-illegal-memory-access", "triage")
    assert any("reads like this guide's error" in r for r in explain_notes(res.matches[0]))
    assert not res.covered and res.triaged


def test_an_issue_title_with_the_first_half_of_a_message_is_answered_as_likely(index):
    title = "ValueError: Bfloat16 is only supported on GPUs with compute capability"
    res = match(index, title)
    assert ranking(res)[0] == ("bfloat16-requires-compute-capability-8", "likely")


def test_the_likely_tier_keeps_its_precision_on_its_calibration_probes(index):
    from kb.engine.likely import THRESHOLD
    from kb.evaluation.calibrate import table
    row = table(index, thresholds=(THRESHOLD,))[0]
    assert row["precision"] >= 0.9 and row["recall"] >= 0.4, row


def test_likely_never_claims_another_error_of_the_same_type(index):
    # The same exception type and a generic opening, but another module: no likely answer.
    for text in ("ModuleNotFoundError: No module named 'torch'", "ModuleNotFoundError: No module named 'flash_attn_2_cuda'"):
        res = match(index, text)
        assert not any(m.guide_id == "vllm-c-module-not-found" and m.confidence in ("match", "likely") for m in res.matches)


@pytest.mark.parametrize(("report", "first"), [
    # nvidia-smi proves an SM120 GPU: the SM120 wheel guide's context is found in the report.
    ("env/nvidia_smi_rtxpro6000.txt", "gpu-arch-not-in-wheel-sm120"),
    # This collect_env shows the SM120 GPU and torch 2.7.0+cu128, outside the guide's affected range: it ranks lower.
    ("env/vllm_collect_env_rtxpro6000_head.txt", "cuda-no-kernel-image"),
])
def test_a_report_in_the_box_or_in_the_paste_gives_the_same_ranking(index, report, first):
    error = next(r.text for r in index.guides["cuda-no-kernel-image"].raw_errors if r.source == "vllm-project/vllm#5547")
    env = read(report)
    boxed = match(index, error, env_report=env)
    inline = match(index, error + "\n\n" + env)
    before = match(index, env + "\n\n" + error)
    assert ranking(boxed) == ranking(inline) == ranking(before)
    assert ranking(boxed)[0] == (first, "match")
    sm120 = next(m for m in boxed.matches if m.guide_id == "gpu-arch-not-in-wheel-sm120")
    assert sm120.confidence == "match"
    fact = [c for c in sm120.contexts if c.kind == "fact"]
    assert fact and fact[0].found and "12.0" in (fact[0].detail or "")
    # Without the report the bare error belongs to the generic guide.
    assert ranking(match(index, error))[0] == ("cuda-no-kernel-image", "match")


def test_explanations_name_the_users_lines_not_the_regex(index):
    res = match(index, read("pastes/seed1-serve.log"))
    reasons = explain_notes(res.matches[0])
    assert not any("\\b" in r or "(?:" in r or "{int}" in r for r in reasons)
    assert any("No common block size for 64" in r for r in reasons)
    verbose = explain_notes(res.matches[0], verbose=True)
    assert any(r.startswith("pattern: ") for r in verbose)


def test_similar_needs_rare_words_and_may_be_empty(index):
    # yangjianxin1/Firefly#32's worker error: common words only, no guide's error.
    assert match(index, "Exception: expected value at line 1 column 1").matches == []
    # An uncovered error whose frames are inside SGLang's graph capture (the frame line from sglang#11218):
    # the graph-capture guide is offered by the files of the frames, not by common words.
    frame = next(ln for r in index.guides["sglang-capture-cuda-graph-failed"].raw_errors
                 for ln in r.text.splitlines() if 'File "' in ln and "cuda_graph_runner" in ln)
    res = match(index, f"Traceback (most recent call last):\n{frame}\nIndexError: list index out of range")
    assert res.answer is None and len(res.matches) <= 3
    sg = next(m for m in res.matches if m.guide_id == "sglang-capture-cuda-graph-failed")
    assert sg.confidence == "similar" and "cuda_graph_runner" in explain_notes(sg)[0]


REPRO = json.loads((DATA.parent.parent / "repro" / "results.json").read_text())


def _repro(script: str, *args: str) -> str:
    return next(r["output"] for r in REPRO["runs"] if r["script"] == script and r["args"] == list(args))


def fits(index, text: str) -> dict[int, bool | None]:
    m = match(index, text).matches[0]
    return {c.index: c.fits for c in m.causes}


def test_the_oom_numbers_pick_the_cause(index):
    causes = index.guides["cuda-oom"].causes
    other = next(i for i, c in enumerate(causes) if c.when and "other" in c.when.test)
    job = next(i for i, c in enumerate(causes) if c.when and "total" in c.when.test)
    # Reproduced on the H200: another process holds 112 GiB while this one holds nothing.
    assert fits(index, _repro("cuda-oom", "other"))[other] is True
    # FoundationVision/GenerateU#10: the only 'Process N' line is the reporting process itself (in a container).
    generateu = next(r.text for r in index.guides["cuda-oom"].raw_errors if r.source == "FoundationVision/GenerateU#10")
    f = fits(index, generateu)
    assert f[other] is False and f[job] is True
    text = as_json(diagnose(index, generateu))["matches"][0]["explanation"]["causes"]
    assert any("14.06 GiB" in c.get("says", "") for c in text), text


def test_the_nccl_and_vllm_numbers_say_what_to_do(index):
    g = index.guides["vllm-v1-kv-cache-too-small-for-max-seq-len"]
    m = match(index, g.raw_errors[0].text).matches[0]
    assert m.values["estimated"].text == "34736" and m.causes[0].fits is True
    assert "--max-model-len 34736" in m.causes[0].says_en
    w = index.guides["nccl-watchdog-collective-timeout"]
    m = match(index, w.raw_errors[0].text).matches[0]
    assert m.values["seq"].number == 469508
    assert [c.fits for c in m.causes if c.fits is not None] == [True, False]


def test_the_unmatched_queue_and_the_skeleton_start_from_the_root_error(index):
    from kb.authoring.skeleton import skeleton
    from kb.feedback.signature import error_signature
    res = match(index, read("pastes/firefly32-torchrun-json-error.log"))
    signature = error_signature(res.paste, res.root)
    assert signature.startswith("Exception: expected value at line {int} column {int}")
    assert "ChildFailedError" not in signature and "failed (exitcode" not in signature
    sk = skeleton(res.paste, res.root)
    first = sk.split("template: ", 1)[1].splitlines()[0]
    assert first.startswith('"Exception: expected value at line {int} column {int}')


def test_a_similar_wrapper_guide_does_not_claim_the_paste_holds_nothing_else(index):
    # A bare assert with no SGLang frame: the SGLang triage guide (its AssertionError signature
    # is a wrapper that needs SGLang's code) is only similar, and must not say that the paste
    # holds nothing but its message.
    res = match(index, "AssertionError: assert logits.shape[0] == len(seq_lens_expanded)")
    m = next(m for m in res.matches if m.guide_id == "sglang-internal-assertion-error")
    codes = [code for code, _ in m.notes]
    assert m.confidence == "similar" and "wrapper_similar" in codes and "wrapper" not in codes
