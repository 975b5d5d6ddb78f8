"""Matching on realistic pastes: seeds inside vLLM logs, root vs cascade, generic vs specific."""
from kb.diagnosis import as_json, diagnose
from kb.engine.match import explain_notes, match
from tests.conftest import read

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
SEED2 = "vllm-dsv41-adaptive-verification-illegal-memory-access"


def top(index, text):
    res = match(index, text)
    return res, (res.matches[0] if res.matches else None)


def test_seed1_in_a_real_vllm_log(index):
    res, m = top(index, read("pastes/seed1-serve.log"))
    assert (m.guide_id, m.confidence) == (SEED1, "match")
    # The worker's error (line 13) is the root; the engine's re-raise and the API server's summary follow.
    assert m.evidence.spans[0].line + 1 == 13
    assert m.evidence.occurrences == 2
    d = as_json(diagnose(index, read("pastes/seed1-serve.log")))["matches"][0]
    assert d["explanation"]["lines"][0]["line"] == 13
    assert "No common block size for 64" in d["explanation"]["lines"][0]["text"]
    assert d["explanation"]["lines"][0]["prefix"].startswith("(Worker_TP3 pid=523)")


def test_seed2_in_a_real_vllm_log(index):
    res, m = top(index, read("pastes/seed2-serve.log"))
    assert (m.guide_id, m.confidence) == (SEED2, "match")
    assert any("adaptive_verification" in r for r in explain_notes(m))


def test_bare_illegal_memory_access_is_not_seed2(index):
    res = match(index, "CUDA error: an illegal memory access was encountered")
    assert all(not (m.guide_id == SEED2 and m.confidence == "match") for m in res.matches)
    seed2 = next(m for m in res.matches if m.guide_id == SEED2)
    assert any("only similar" in r for r in explain_notes(seed2))


def test_one_line_paste_and_prose_around(index):
    _, m = top(index, "我们启动服务时报错了：RuntimeError: Worker failed with error 'No common block size for 128，请问怎么办？")
    assert (m.guide_id, m.confidence) == (SEED1, "match")


def test_volatile_numbers_still_match_but_literal_ones_count(index):
    _, m = top(index, "ValueError: No common block size for 256")
    assert m.guide_id == SEED1


def test_windows_line_endings_and_ansi(index):
    text = read("pastes/seed2-serve.log").replace("\n", "\r\n").replace("ERROR", "\x1b[1;31mERROR\x1b[0m")
    _, m = top(index, text)
    assert (m.guide_id, m.confidence) == (SEED2, "match")


def test_ranks_interleaved_eight_times(index):
    line = "[rank{r}]: ValueError: SM120 sparse-MLA has no decode kernel for this shape: num_tokens=8,"
    text = "\n".join(line.format(r=r) + f"\n[rank{r}]: num_heads=8, topk=128" for r in range(8))
    _, m = top(index, text)
    assert (m.guide_id, m.confidence) == (SEED1, "match")
    assert m.evidence.occurrences == 8


def test_nothing_matches_says_so(index):
    res = match(index, "SyntaxError: invalid syntax in my_script.py line 3")
    assert not res.confident
    assert len(res.matches) <= 3


def test_empty_paste(index):
    res = match(index, "  \n\t\n")
    assert res.matches == [] and res.paste.empty


def test_same_text_same_result(index):
    text = read("pastes/seed1-serve.log")
    assert as_json(diagnose(index, text)) == as_json(diagnose(index, text))


def test_explanations_in_chinese(index):
    res = match(index, read("pastes/seed1-serve.log"))
    assert any("粘贴内容的第" in r for r in explain_notes(res.matches[0], "zh"))


def test_scores_never_rise_down_the_ranking(index):
    for name in ("pastes/seed1-serve.log", "pastes/seed2-serve.log"):
        scores = [m.score for m in match(index, read(name)).matches]
        assert scores == sorted(scores, reverse=True)
    res = match(index, read("pastes/seed1-serve.log"))
    assert res.matches[0].score > res.matches[1].score  # the root error above its wrapper


def test_two_wrappers_the_earlier_first(index):
    """Both messages only wrap another error: the one printed first is nearer the cause."""
    sglang = index.guides["sglang-capture-cuda-graph-failed"].raw_errors[0].text
    torchrun = index.guides["torchrun-childfailederror-wrapper"].raw_errors[0].text
    res = match(index, sglang + "\n" + torchrun)
    wrappers = [m.guide_id for m in res.matches if m.wrapper]
    assert wrappers.index("sglang-capture-cuda-graph-failed") < wrappers.index("torchrun-childfailederror-wrapper")
