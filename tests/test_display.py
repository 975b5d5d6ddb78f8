"""What the pages show reads well: pasted lines exactly as pasted, summaries cut at a
sentence, each note once, conditions and Chinese text without glitches."""
from __future__ import annotations

import re

import pytest

from components.markup import clip, literal
from kb.engine.aspasted import as_pasted, split_lines
from kb.engine.parse import parse
from kb.guides.render import text
from tests.conftest import read
from tests.test_app import app, matched_rows, no_crash, texts

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
NCCL = "nccl-unhandled-system-error"
ALLOWED_MARKUP = {":color[", '{foreground="#9a3412" background="rgba(251,146,60,0.45)"}', "…"}
FULL_WIDTH_GAP = re.compile(r"[，。；：！？、）」』】] ")


def pasted_rows(at, paste: str) -> None:
    """Every matched-lines row is a line of `paste` exactly, and nothing of it is markup."""
    lines = split_lines(paste)
    blocks = matched_rows(at)
    assert blocks
    for rows in blocks:
        for row in rows:
            assert row.before + row.hit + row.after == lines[int(row.number) - 1]
            assert set(row.markup) <= {"]" + m if m.startswith("{") else m for m in ALLOWED_MARKUP} | ALLOWED_MARKUP, row.markup


def test_matched_lines_are_the_paste_as_pasted():
    # Alignment spaces and a tab that the matcher collapses, curly quotes it straightens,
    # the trailing blank lines a copy from a terminal brings.
    paste = read("pastes/seed1-serve.log").replace("ValueError: No common", "ValueError:    No common") \
        .replace("    self.model_runner", "\t    self.model_runner").replace("initialize_kv_cache", "initialize_kv_cache  # “kv”") + "\n\n\n"
    at = app()
    at.text_area(key="paste").input(paste).run()
    no_crash(at)
    pasted_rows(at, paste)
    first = matched_rows(at)[0]
    assert first[-1].before.strip(), "no row for the blank lines after the paste"
    assert any(r.before.endswith("\t    self.model_runner.initialize_kv_cache  # “kv”(kv_cache_config)") for r in first)


def test_arrows_stay_arrows_in_pasted_lines_and_shown_patterns(index):
    paste = index.guides[NCCL].raw_errors[1].text
    at = app()
    at.text_area(key="paste").input(paste).run()
    no_crash(at)
    pasted_rows(at, paste)
    hit = next(r for r in matched_rows(at)[0] if r.hit)
    assert hit.hit.endswith("-> 2")
    pattern = index.guides[NCCL].signatures[2].regex
    # In a code span: Streamlit turns "->" into an arrow everywhere else, escaped or not.
    assert any(literal(pattern) in m.value for m in at.markdown)


def test_nothing_pasted_becomes_a_link_or_an_image(index):
    raw = index.guides[SEED1].raw_errors[0].text
    evil = " see https://evil.example/x and www.evil.example ![p](https://evil.example/p.png) [c](javascript:alert(1)) <img src=x>"
    paste = "\n".join(line + evil if line.strip() else line for line in raw.splitlines())
    at = app()
    at.text_area(key="paste").input(paste).run()
    no_crash(at)
    pasted_rows(at, paste)  # every pasted character is inside a code span
    assert any("https://evil.example/x" in r.before + r.after for rows in matched_rows(at) for r in rows)


def test_highlighted_text_with_brackets_is_bold_only():
    # A directive's label would end at a pasted "]" and read the rest as Markdown.
    from components.result_card import _hit
    assert _hit("No common block size for 64").startswith(":color[")
    assert _hit("x](https://evil.example) [y") == "**`x](https://evil.example) [y`**"


def test_literal_keeps_spaces_and_backticks():
    assert literal("  a  ") == "`   a   `" and literal("`x`") == "`` `x` ``" and literal("a``b") == "```a``b```"
    assert literal("") == "" and literal("    ") == "`    `"


def test_summaries_are_cut_at_a_sentence(index):
    for gid, g in index.guides.items():
        for lang in ("en", "zh"):
            summary = text(g.summary, lang)
            cut = clip(summary, 400)
            assert cut == summary or (cut.endswith(" …") and summary.startswith(cut[:-2]) and cut[-3] in ".!?。！？"), (gid, lang, cut[-40:])


def test_a_result_card_shows_each_environment_note_once():
    at = app()
    at.text_area(key="env_text").input(read("env/vllm_collect_env_rtxpro6000_head.txt")).run()
    at.text_area(key="paste").input(read("pastes/seed1-serve.log")).run()
    no_crash(at)
    shown = texts(at)
    assert shown.count("is one of the affected GPUs") == 1
    assert ".." not in shown.replace("...", "")
    at.button(key="find").click().run()  # a rerun: nothing added twice
    assert texts(at).count("is one of the affected GPUs") == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_conditional_steps_read_once(index, lang):
    gid = "libcudart-so-cannot-open-shared-object"
    at = app(guide=gid, lang=lang)
    no_crash(at)
    conditions = [text(s.condition, lang) for s in index.guides[gid].steps if s.condition]
    labels = [c.label.replace("\\", "") for c in at.checkbox]
    assert conditions and all(any(f"[{c}]" in lab for lab in labels) for c in conditions)
    assert not any("Only if" in lab or "仅当" in lab for lab in labels)


def test_chinese_text_has_no_stray_spaces(index):
    for gid, g in index.guides.items():
        for value in (g.title, g.summary, g.fastest_fix, *g.symptoms, *(c.text for c in g.causes), *(s.text for s in g.steps)):
            assert not FULL_WIDTH_GAP.search(text(value, "zh")), (gid, text(value, "zh"))
    at = app(guide="bitsandbytes-cuda-setup-failed", lang="zh")
    no_crash(at)
    assert not FULL_WIDTH_GAP.search(texts(at))


def test_similar_heading_is_followed_by_its_guides_then_the_new_guide_button():
    at = app()
    # A wrapper around an error no guide covers: no answer, the wrapper's guide listed as help.
    at.text_area(key="paste").input("RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"
                                    "ValueError: frobnicator too small for the widget\n").run()
    no_crash(at)
    kinds = [(type(e).__name__, str(getattr(e, "value", ""))) for e in at.main]
    intro = next(i for i, (_, v) in enumerate(kinds) if v.startswith(("These guides are only similar", "Not the answer")))
    assert kinds[intro + 1][0] == "Block"  # the first card, right under its heading
    assert at.get("download_button") and "Start a new guide" in at.get("download_button")[0].proto.label


def test_as_pasted_gives_up_rather_than_misplace(index):
    paste = parse("ValueError: a    b\n")
    assert as_pasted(paste.lines[0], ["ValueError: something else"]) is None
    assert as_pasted(paste.lines[0], []) is None
    shown = as_pasted(paste.lines[0], split_lines("ValueError: a    b\n"))
    assert shown.text == "ValueError: a    b" and shown.span(12, 15) == (12, 18)


def test_the_reason_sentence_quotes_the_paste_with_its_arrow(index):
    # The sentence above the matched lines quotes the pasted line: in a code span, where `-> 2`
    # is not turned into "→ 2" (escaped text would be).
    paste = index.guides[NCCL].raw_errors[1].text
    at = app()
    at.text_area(key="paste").input(paste).run()
    no_crash(at)
    reasons = [m.value for m in at.markdown if m.value.startswith("- ") and "-> 2" in m.value]
    assert reasons, [m.value for m in at.markdown if m.value.startswith("- ")]
    for reason in reasons:
        spans = re.findall(r"(`+)(.+?)\1", reason)
        assert any("-> 2" in body for _, body in spans), reason
