"""A message a console wrapped over several lines is read whole: rich's log handler (the rest
indented to the message's column), and an exception line wrapped at a fixed width. A line the
console did not wrap stays as it is."""
import pytest

from kb.engine.match import match
from kb.engine.parse import parse
from tests.roots_data import paste

WRAPPED = [
    pytest.param("kohya-1597-rich-handler-winerror-126.txt", 0, '\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
                 id="kohya-1597-rich-handler"),
    pytest.param("starcoder-77-wrapped-assertion.txt", 0, "world_size 64 != 4 * 8 * 1", id="starcoder-77-fixed-width"),
    pytest.param("multimodal-gpt-24-wrapped-hfvalidationerror.txt", 0,
                 "or 'namespace/repo_name': '/home/jn/th/work/Multimodal-GPT/checkpoints/llama-7b_hf'. Use `repo_type`",
                 id="multimodal-gpt-24-fixed-width"),
]


@pytest.mark.parametrize("name, line, rest", WRAPPED)
def test_a_wrapped_message_is_read_whole_on_its_first_line(name, line, rest):
    assert rest in parse(paste(name)).lines[line].text


def test_the_whole_message_finds_the_guide_written_for_it(index):
    # The guide's one template, "[WinError 126] {any}fbgemm.dll", on rich's two lines.
    result = match(index, paste("kohya-1597-rich-handler-winerror-126.txt"))
    assert (result.answer.guide_id, result.answer.confidence) == ("windows-fbgemm-dll-winerror-126", "match")
    assert "fbgemm.dll" in result.root.text


# Guards (they hold before the change too): lines that only look alike stay apart.
@pytest.mark.parametrize("name", ["sdnext-3531-rich-box-short-line.txt", "responsible-visual-editing-4-two-line-message.txt"])
def test_a_line_the_console_did_not_wrap_stays_as_it_is(name):
    text = paste(name)
    alone = [parse(raw).lines[0].text for raw in text.split("\n")]  # each line read with nothing after it
    assert [ln.text for ln in parse(text).lines] == alone
