"""Native errors (C++ exceptions, NCCL, the linker) as one incident: a box drawn around the log
does not hide them, a `what():` line is the error and not a line of code, and a message goes on
over the lines after it (NCCL's trace under its WARN line)."""
import pytest

from kb.engine.parse import parse
from kb.engine.roots import root_error
from tests.roots_data import guide_text, traffic

CASES = [
    # nccl#719 (tuned traffic): a log viewer's "│ … │" frame around the watchdog's what() lines.
    pytest.param(lambda ix: traffic("T-B-053"), 0, 4, "what(): [Rank 0] Watchdog caught collective operation timeout",
                 id="T-B-053-box-border"),
    # TensorRT-LLM#1602 (tuned traffic): terminate, then what(): … (/path/file.cpp:123), which ends in a bracket.
    pytest.param(lambda ix: traffic("T-C-013"), 0, 2, "terminate called after throwing", id="T-C-013-what-line"),
    # pytorch#14363 (tuned traffic): the linker's undefined reference before collect2's summary.
    pytest.param(lambda ix: traffic("T-B-062"), 3, 6, "undefined reference to `ncclGroupEnd'", id="T-B-062-linker"),
    # nccl-tests#15: NCCL WARN, then the test's "NCCL failure … 'unhandled system error'" under it.
    pytest.param(lambda ix: guide_text(ix, "nccl-unhandled-system-error", "NVIDIA/nccl-tests#15"), 0, 2,
                 "NCCL WARN Net : Connection closed by remote peer", id="nccl-tests-15-trace"),
]


@pytest.mark.parametrize("text, index_, end, words", CASES)
def test_a_native_error_and_the_lines_it_goes_on_over(index, text, index_, end, words):
    root = root_error(parse(text(index)))
    assert (root.index, root.end) == (index_, end) and words in root.text
