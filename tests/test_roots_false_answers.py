"""Mechanisms that gave confident wrong answers on the tuned part of the wide sample (tests/data/wide),
each fixed as a class and tested on the real reports that showed it:

- vLLM's "Worker failed with error '<message>', please check the stack trace above" quotes the worker's
  error: the quoted message is the root error, and the paste does not lack it;
- a line found by looks alone that states an error of its own ("CMake Error: …", "EBNF parser error at
  line 16, column 1: …") above a traceback cut before its end is that traceback's error: the paste does
  not lack it either;
- a log line at a quiet level (an INFO prefix, NCCL's inline "NCCL INFO") reports no failure: it is
  neither the root error nor a class guide's error;
- a guide that knows its error by signatures of its own is not the answer for the shell command that ran
  the failing program: with the traceback cut before its error, the answer is that the root error is missing.
"""
import pytest

from kb.engine.match import ROOT_MISSING, match
from tests.roots_data import paste, wide


def _first(result):
    return (result.matches[0].guide_id, result.matches[0].confidence) if result.matches else None


@pytest.mark.parametrize("case_id, words", [
    pytest.param("W-R1-137", 'torch_call_dispatcher( "aten::empty"', id="dynamo-stable-abi"),
    pytest.param("W-S1-067", "Current vLLM config is not set.", id="vllm-config-not-set"),
])
def test_a_quoted_worker_error_is_the_root(index, case_id, words):
    result = match(index, wide(case_id))
    assert result.root.text.startswith(words) and not result.root.wrapper_only
    assert all(m.guide_id != ROOT_MISSING for m in result.matches)


@pytest.mark.parametrize("case_id, words", [
    pytest.param("W-S1-130", "[09:11:40] /project/cpp/grammar_parser.cc:560: EBNF parser error", id="xgrammar-ebnf"),
    pytest.param("W-S4-045", "`Exception: Current loss scale already at minimum", id="deepspeed-loss-scale"),
    pytest.param("W-S4-117", "[02/12/2024-12:40:19] [TRT] [E] 9:", id="trt-plugin-formats"),
    pytest.param("W-S4-159", "CMake Error: Generator: execution of make failed.", id="cmake-make-program"),
])
def test_an_error_stated_above_a_cut_traceback_is_in_the_paste(index, case_id, words):
    result = match(index, wide(case_id))
    assert result.root.text.startswith(words)
    assert all(m.guide_id != ROOT_MISSING for m in result.matches)


@pytest.mark.parametrize("case_id, words", [
    # The traceback is cut after lines that state no error: its error is the one missing.
    pytest.param("W-S4-001", "Engine building failed, please check the error log.", id="trtllm-engine-build-failed"),
    pytest.param("W-R2-051", "Caught exception:", id="common-distributed-caught"),
])
def test_a_line_that_states_no_error_above_a_cut_traceback_leaves_it_missing(index, case_id, words):
    result = match(index, wide(case_id))
    assert _first(result) == (ROOT_MISSING, "triage")
    assert ("root_cut", ) == tuple(code for code, _ in result.matches[0].notes)[:1]


@pytest.mark.parametrize("case_id, guide", [
    # NCCL's own INFO line: mlx5's optional symbol was not found, which NCCL notes and goes on.
    pytest.param("W-R3-091", "compiled-extension-undefined-symbol", id="nccl-info-dlvsym"),
    # Dynamo's INFO note that chunked prefill "is not supported yet, setting to False".
    pytest.param("W-R1-180", "feature-not-supported-in-release", id="dynamo-info-not-supported"),
])
def test_a_quiet_log_line_is_no_class_guides_error(index, case_id, guide):
    result = match(index, wide(case_id))
    assert result.root is None or "INFO" not in result.root.text
    assert all(m.guide_id != guide or not m.tier.addresses for m in result.matches)
    assert _first(result) == (ROOT_MISSING, "triage")


def test_the_command_line_that_ran_an_import_is_no_answer_when_its_error_was_cut(index):
    # TensorRT-LLM: `root@…:/TensorRT-LLM# python3 -c "import tensorrt_llm"`, then the import's traceback,
    # cut in _utils.py before its error line.
    result = match(index, wide("W-S4-106"))
    assert _first(result) == (ROOT_MISSING, "triage")
    assert next((m.confidence for m in result.matches if m.guide_id == "trtllm-import-failed"), "help") == "help"


def test_a_guide_about_a_wrapper_alone_still_answers_for_its_frames(index):  # a guard
    # vllm#19018: the EngineCore's busy-loop frames, cut before its error; the engine-dead guide (every
    # signature a wrapper) is the answer, as tests/test_roots_access_log.py says.
    result = match(index, paste("vllm-19018-access-log-then-engine-core-traceback.txt"))
    assert _first(result) == ("vllm-engine-dead-error", "triage")
