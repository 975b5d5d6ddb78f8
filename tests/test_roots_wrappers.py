"""A wrapper whose own message is the traceback of the error it wraps (SGLang's and vLLM's
"… hit an exception: Traceback (most recent call last):") reports only that error: when the paste
stops before the traceback's error line, that error was cut off, the wrapper's guide is no answer
(only help to read the log), and the page says the traceback was cut."""
import pytest

from kb.engine.completeness import cut_notes
from kb.engine.match import match
from tests.roots_data import paste

CASES = [
    pytest.param("sglang-8826-scheduler-hit-an-exception-cut.txt", "Scheduler hit an exception",
                 "sglang-received-sigquit-child-failed", id="sglang-8826"),
    pytest.param("vllm-14534-enginecore-hit-an-exception-cut.txt", "EngineCore hit an exception",
                 "vllm-got-fatal-signal-from-worker-wrapper", id="vllm-14534"),
]


@pytest.mark.parametrize("name, wrapper_words, wrapper_guide", CASES)
def test_a_wrapper_whose_traceback_is_cut_is_no_answer(index, name, wrapper_words, wrapper_guide):
    result = match(index, paste(name))
    assert result.root.text.startswith(wrapper_words) and result.root.cut
    assert result.answer is None and not result.covered
    assert next(m.confidence for m in result.matches if m.guide_id == wrapper_guide) == "help"
    assert ("traceback_cut", {"line": result.root.no}) in cut_notes(result.paste)
