"""`covered` is about the root error: a guide that matched only an earlier warning does not cover it,
and is listed as help, not as the answer."""
import pytest

from kb.diagnosis import diagnose
from kb.engine.match import match
from tests.roots_data import paste

CASES = [
    # vllm-ascend#200: vLLM warns that vllm._C is missing (expected on Ascend); the failure is a TypeError
    # in the Ascend plugin at the end of the log, which no guide covers.
    pytest.param("vllm-ascend-200-warning-then-typeerror.txt", "TypeError: AscendMetadataBuilder.build()",
                 "vllm-c-module-not-found", id="vllm-ascend-200"),
]


@pytest.mark.parametrize("name, root_words, warned", CASES)
def test_a_guide_that_matched_an_earlier_warning_does_not_cover_the_root(index, name, root_words, warned):
    result = match(index, paste(name))
    root = diagnose(index, paste(name)).root
    assert root is not None and root["text"].startswith(root_words) and root["covered"] is False
    assert result.answer is None
    m = next(m for m in result.matches if m.guide_id == warned)
    assert m.confidence == "help" and any(code == "not_root" for code, _ in m.notes)
