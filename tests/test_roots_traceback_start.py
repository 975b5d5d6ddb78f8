"""Where a traceback starts: at its header wherever it stands on the line (after a log message's
own words, as SGLang and vLLM print it), at an IPython rule ("OSError     Traceback (most recent
call last)"), or, in an excerpt that cut the header off, at the frames right above its error
line, which may be a bare exception type."""
import pytest

from kb.engine.completeness import cut_notes
from kb.engine.parse import parse
from kb.engine.roots import root_error
from tests.roots_data import corpus_negative, guide_text, paste, traffic

ROOTS = [
    # sglang#16855: "Initialization failed. warmup error: Traceback …" then the AssertionError.
    pytest.param(lambda ix: traffic("T-C-096"), "AssertionError", 0, ("sglang",), id="T-C-096-header-after-words"),
    # transformers#5606: two IPython tracebacks; the first failure's starts at its rule.
    pytest.param(lambda ix: traffic("T-C-042"), "OSError", 0, (), id="T-C-042-ipython-rule"),
    # vllm#15766: the excerpt starts at a frame and ends the traceback with a bare AssertionError.
    pytest.param(lambda ix: paste("vllm-15766-bare-assertionerror-then-mq-engine-dead.txt"), "AssertionError", 0,
                 ("vllm",), id="vllm-15766-bare-exception"),
    # sglang#1372 (a corpus negative): the same with NotImplementedError.
    pytest.param(lambda ix: corpus_negative("sgl-project/sglang#1372"), "NotImplementedError", 0, ("vllm",),
                 id="sglang-1372-bare-exception"),
    # flownet2-pytorch#218: a frame and its `raise` line above the OSError, a blank line between.
    pytest.param(lambda ix: guide_text(ix, "torch-extension-cuda-home-not-set", "NVIDIA/flownet2-pytorch#218"),
                 "OSError", 0, ("torch",), id="flownet2-218-frames-above"),
]


@pytest.mark.parametrize("text, exc_type, start, modules", ROOTS)
def test_the_root_error_has_its_whole_traceback(index, text, exc_type, start, modules):
    root = root_error(parse(text(index)))
    assert (root.exc_type, root.start, root.modules) == (exc_type, start, modules)


@pytest.mark.parametrize("name", ["sglang-8826-scheduler-hit-an-exception-cut.txt",
                                  "vllm-14534-enginecore-hit-an-exception-cut.txt"])
def test_a_header_after_a_message_starts_a_traceback_that_can_be_cut(name):
    assert ("traceback_cut", {"line": 1}) in cut_notes(parse(paste(name)))
