"""An HTTP access-log line says that a request failed, never why: it is the root error only when
the paste holds nothing else, and the guide that matched only it is not the answer while another
wrapper (an EngineCore traceback, an exception) is there."""
import pytest

from kb.engine.match import match
from kb.engine.tiers import SCOPE_TIER
from tests.roots_data import paste

CASES = [
    # vllm#19018: the 500 is logged before the EngineCore's traceback, which is cut before its error.
    pytest.param("vllm-19018-access-log-then-engine-core-traceback.txt", "vllm-engine-dead-error",
                 "vllm-api-server-500-internal-error", id="vllm-19018"),
]


@pytest.mark.parametrize("name, answer, logged_only", CASES)
def test_an_access_log_line_is_not_the_root_while_something_else_failed(index, name, answer, logged_only):
    result = match(index, paste(name))
    assert 'HTTP/1.1"' not in result.root.text
    first = result.matches[0]  # the answer, or a class guide's triage (kb.engine.tiers.SCOPE_TIER)
    assert (first.guide_id, first.confidence) == (answer, SCOPE_TIER[index.guides[answer].scope].name)
    assert next(m.confidence for m in result.matches if m.guide_id == logged_only) == "help"
