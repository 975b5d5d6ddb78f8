"""Properties of the paste parser, the matcher and the page's escaping, for any text
(hypothesis); and every input the coverage-guided fuzzer kept (tests/data/fuzz/), replayed.

The invariants live here so that the suite and the fuzzer (fuzz/fuzz_parse.py) check the
same things.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kb import config
from kb.engine.index import Index, load_index
from kb.engine.match import match
from kb.engine.parse import parse
from kb.engine.tiers import TIERS

ROOT = Path(__file__).resolve().parent.parent
FUZZ_DATA = ROOT / "tests" / "data" / "fuzz"
# 200 examples a property in the suite; KB_PROPERTY_EXAMPLES=20000 for a long hunt by hand.
SETTINGS = settings(max_examples=int(config.get("KB_PROPERTY_EXAMPLES")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@lru_cache(maxsize=1)
def index() -> Index:
    return load_index(ROOT / "guides")


def decode_fuzz_input(data: bytes) -> tuple[str, int | None]:
    """How the fuzzer reads its bytes: the first one sometimes picks a small cut-off."""
    if not data:
        return "", None
    return data[1:].decode("utf-8", errors="replace"), (64 + data[0] * 8 if data[0] & 1 else None)


def check_paste(text: str, limit: int | None = None) -> None:
    """Any text parses and matches without raising, consistently, the same way twice."""
    paste = parse(text, limit)
    nos = [ln.no for ln in paste.lines]
    # Non-decreasing: when one line alone is longer than the budget, its head and tail share its number.
    assert nos == sorted(nos) and (not nos or nos[0] == 1), "line numbers must follow the paste"
    assert paste.truncation is not None or nos == list(range(1, len(nos) + 1)), "uncut pastes are numbered 1..n"
    assert len(paste.starts) == len(paste.lines)
    assert paste.text == "\n".join(ln.text for ln in paste.lines)
    assert all(paste.text[s:s + len(ln.text)] == ln.text for s, ln in zip(paste.starts, paste.lines, strict=True))
    assert all(0 <= e.index < len(paste.lines) for e in paste.errors)
    idx = index()
    result = match(idx, paste)
    for m in result.matches:
        assert m.guide_id in idx.guides and m.confidence in TIERS and m.scope == idx.guides[m.guide_id].scope
        assert m.confidence != "match" or m.scope == "specific", "a class guide is never a match"
        assert 0.0 <= m.score <= 1.0
        if m.evidence:
            for s in m.evidence.spans:
                assert 0 <= s.line < len(paste.lines)
                assert 0 <= s.start <= s.end <= len(paste.lines[s.line].text)
    again = match(idx, text, limit)
    assert [(m.guide_id, m.confidence, m.score, m.notes) for m in again.matches] == \
        [(m.guide_id, m.confidence, m.score, m.notes) for m in result.matches], "the same text, another result"
    assert [tuple(ln) for ln in again.paste.lines] == [tuple(ln) for ln in paste.lines]


# Text that looks like what people paste: log prefixes, traceback lines, the guides'
# own anchors, control characters, line ends of every kind, scripts of every kind.
FRAGMENTS = [
    "Traceback (most recent call last):\n", '  File "/a/b.py", line 3, in f\n',
    "During handling of the above exception, another exception occurred:\n",
    "The above exception was the direct cause of the following exception:\n",
    "ValueError: ", "RuntimeError: ", "KeyError", "Exception", ": ", "\n", "\r\n", "\r", "\t", "  ", "\x00", "\x1b[31m",
    "\x1b]0;title\x07", "\x1b]8;;", "\x1b\\", "\x7f", "\u2028", "\ufeff", "\u202e", "“", "’", "\u00a0", "\u3000",
    "错误：", "نموذج", "🔥", "vllm-1  | ", "ERROR 11-29 10:00:01 [core.py:123] ", "(VllmWorker rank=0 pid=123) ",
    "[rank0]: ", "E1129 10:00:01.123456 12345 socket.cpp:42] ", "2024-06-01T12:00:00.123Z ERROR ",
    "CUDA error: an illegal memory access was encountered", "No common block size for 64",
    "WorkerProc initialization failed", "[… middle of the paste skipped …]", "{int}", "\\", "`", "<script>", "$x$",
]
pastes = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40).map("".join)
any_text = st.text(st.characters(exclude_categories=()), max_size=300)  # surrogates included


@SETTINGS
@given(pastes)
@example("")
@example("\ud800 RuntimeError: CUDA error: an illegal memory access was encountered")
def test_any_paste_parses_and_matches_the_same_way_twice(text):
    check_paste(text)


@SETTINGS
@given(any_text)
def test_any_unicode_text(text):
    check_paste(text)


@SETTINGS
@given(pastes, st.integers(min_value=1, max_value=400))
def test_any_paste_cut_to_any_size(text, limit):
    check_paste(text, limit)
    paste = parse(text, limit)
    if paste.truncation:
        assert "skipped" in paste.truncation or "shortened" in paste.truncation


@SETTINGS
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=30).map("".join), st.integers(min_value=2, max_value=30))
def test_line_budget(text, max_lines):
    paste = parse(text, max_lines=max_lines)
    n = text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
    if n <= max_lines:
        assert paste.truncation is None or "shortened" in paste.truncation
        assert len(paste.lines) == n
    else:
        assert len(paste.lines) <= max_lines + 1 and "skipped" in paste.truncation


@pytest.mark.parametrize("path", sorted(FUZZ_DATA.glob("*")), ids=lambda p: p.name)
def test_fuzzer_findings(path):
    check_paste(*decode_fuzz_input(path.read_bytes()))


def test_fuzzer_findings_are_few_and_small():
    files = list(FUZZ_DATA.glob("*"))
    assert files and len(files) <= 50 and sum(f.stat().st_size for f in files) <= 200_000


# ---- templates and regexes from guide files -------------------------------------------

@SETTINGS
@given(st.text(max_size=80), st.text(max_size=20))
def test_any_signature_compiles_or_is_refused_with_a_reason(source, anchor):
    from kb.engine.signature import TemplateError, compile_regex, compile_template
    for build in (lambda: compile_template(source), lambda: compile_regex(source, anchor)):
        try:
            c = build()
        except TemplateError as exc:
            assert str(exc)
        else:
            assert len(c.anchor) >= 8 and c.nlines >= 1


# ---- nothing pasted or written in a guide becomes markup ------------------------------

_MD = None


def _markup(text: str) -> list[str]:
    """What a Markdown renderer would make of `text`, beyond plain text and code."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt
        _MD = MarkdownIt("commonmark")
        _MD.validateLink = lambda url: True  # report every link, whatever its scheme
    found = []
    for token in _MD.parse(text):
        for t in [token, *(token.children or [])]:
            if t.type in ("link_open", "image", "html_inline", "html_block"):
                found.append(t.type)
    return found


markup_text = st.lists(st.one_of(st.sampled_from(
    ["[", "]", "(", ")", "!", "<", ">", "`", "``", "\\", "$", ":", "red", "a", " ", "\n", "\n\n", "javascript:x",
     "https://e.x/p.png", "<img src=x onerror=alert(1)>", "<script>", "[x](javascript:alert(1))", "![i](https://e.x/p.png)",
     "<https://e.x>", "&lt;", "&#60;", "*", "_", "#", "-", "1.", ">", "|"]), st.text(max_size=4)), max_size=30).map("".join)


@SETTINGS
@given(markup_text)
@example("``[x](javascript:u)`")
@example("`a` [x](u) `b`")
@example("\\`[x](u)`")
@example("````<img src=x onerror=alert(1)>`")  # found here: a run of backticks was kept as if it were code
@example("`0``[`<img src=x onerror=alert(1)>`")  # found here: label() paired "`<img …>`", Markdown "`0``[`"
def test_escaped_text_is_never_markup(text):
    from components.markup import code, esc, highlight, label, prose
    from kb.guides.render import md_escape  # the Markdown export
    assert _markup(md_escape(text)) == []
    assert _markup(esc(text)) == []
    assert _markup(label(text)) == []
    assert _markup(code(text)) == []
    assert _markup(prose(text)) == []
    one_line = text.replace("\n", " ")
    assert _markup(highlight(one_line, 0, len(one_line) // 2)) == []
    # Streamlit's own syntax (":red[…]" directives, "$…$" maths) is off too: every "[" and "$" escaped.
    for shown in (esc(text), label(text), highlight(one_line, 0, 1).replace(":orange-background[", "", 1)):
        assert _all_escaped(shown, "[$"), shown


def _all_escaped(s: str, chars: str) -> bool:
    """Every one of `chars` in `s` outside a code span follows an odd run of backslashes."""
    from components.markup import code_spans
    # A backslash-escaped backtick delimits nothing: hidden from the pairing, it stays in the text.
    hidden = re.sub(r"(?<!\\)((?:\\\\)*\\)`", lambda m: m.group(1) + "\x00", s)
    for i, part in enumerate(code_spans(hidden)):
        if i % 2:
            continue
        for pos, c in enumerate(part):
            if c in chars:
                run = len(part[:pos]) - len(part[:pos].rstrip("\\"))
                if run % 2 == 0:
                    return False
    return True


def test_labels_keep_plain_titles_as_written():
    from components.markup import label
    assert label("DeepSeek-V4.1 on SM120: 'No common block size for 64'") == "DeepSeek-V4.1 on SM120: 'No common block size for 64'"
    assert label("use `--max-model-len <n>`") == "use `--max-model-len <n>`"
    assert label("[x](https://e.x)") == "\\[x\\](https://e.x)"


def test_a_label_pairs_backticks_as_markdown_does():
    """A single backtick next to a run of them still opens a code span: "`0``[`" is one span for
    Markdown, so "<img …>" after it is text and must be escaped (a random run found this)."""
    from components.markup import code_spans, label
    text = "`0``[`<img src=x onerror=alert(1)>`"
    assert code_spans(text) == ["", "`0``[`", "<img src=x onerror=alert(1)>`"]
    assert label(text) == "`0``[`\\<img src=x onerror=alert(1)\\>\\`"
    assert _markup(label(text)) == []
    assert label("``a`b`` and `c`") == "``a`b`` and `c`"  # spans of any width stay code
    # No span across a line end, where Markdown's may be: that backtick is escaped, so Markdown
    # pairs the next two as this function did.
    assert label("`a\n`<b>`") == "\\`a\n`<b>`" and _markup(label("`a\n`<b>`")) == []


def test_property_tests_are_derandomized_in_ci():
    """tests/conftest.py's profile: the same examples on every CI run, new ones on every run by hand."""
    from tests.conftest import IN_CI as in_ci
    assert SETTINGS.derandomize is in_ci and settings().derandomize is in_ci
    if in_ci:
        assert SETTINGS.database is None  # nothing remembered between runs either
