"""Every flow of the page, through Streamlit's AppTest (no browser)."""
from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, read

SEED1 = "vllm-dsv41-sm120-no-common-block-size"




def app(**params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [t.value for t in at.title] + [h.value for h in at.subheader]
    parts += [e.value for e in at.warning] + [e.value for e in at.info] + [e.value for e in at.error] + [s.value for s in at.success]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def no_crash(at: AppTest) -> None:
    """No exception, and no traceback of the app's own code on the page (the user's pasted lines,
    shown as matched lines, may of course hold one of their own)."""
    assert not at.exception, at.exception
    assert not re.search(r'File "[^"]*/(?:components|kb|streamlit)/', texts(at))


class Row(NamedTuple):
    number: str  # the line number as shown
    before: str  # the pasted text before the highlighted part (its log prefix included)
    hit: str  # the highlighted part ("" on a context line)
    after: str
    markup: list[str]  # every piece of the row that is not inside a code span


def matched_rows(at: AppTest) -> list[list[Row]]:
    """Each "Matched lines" block on the page, row by row, as Markdown reads it: what is
    inside code spans (shown literally) and what is not."""
    from markdown_it import MarkdownIt
    md = MarkdownIt("commonmark")
    out = []
    for block in (m.value for m in at.markdown if m.value.startswith("**Matched lines**")):
        rows = []
        for line in block.split("  \n")[1:]:
            children = md.parseInline(line)[0].children
            codes, markup, strong, hit = [], [], 0, None
            for tok in children:
                if tok.type == "code_inline":
                    if strong:
                        hit = len(codes)
                    codes.append(tok.content)
                elif tok.type in ("strong_open", "strong_close"):
                    strong += 1 if tok.type == "strong_open" else -1
                elif tok.type == "text" and tok.content.strip():
                    markup.append(tok.content)
                elif tok.type not in ("text", "softbreak"):
                    markup.append(tok.type)
            if hit is None:
                rows.append(Row(codes[0], "".join(codes[1:]), "", "", markup))
            else:
                rows.append(Row(codes[0], "".join(codes[1:hit]), codes[hit], "".join(codes[hit + 1:]), markup))
        out.append(rows)
    return out


def test_paste_match_open_guide():
    at = app()
    at.text_area(key="paste").input(read("pastes/seed1-serve.log")).run()
    no_crash(at)
    shown = texts(at)
    assert "Match" in shown and "Line 13 of your paste" in shown
    pasted = read("pastes/seed1-serve.log").splitlines()
    row = next(r for r in matched_rows(at)[0] if r.hit)
    assert row.number.strip() == "13" and row.hit == "No common block size for 64"
    assert row.before + row.hit + row.after == pasted[12]  # the line exactly as pasted, prefix and all
    at.button(key=f"open:{SEED1}").click().run()
    no_crash(at)
    assert at.query_params["guide"] == [SEED1] or at.query_params["guide"] == SEED1
    assert at.title[0].value.startswith("DeepSeek-V4.1 on SM120")
    assert "paste" not in str(dict(at.query_params))  # the paste itself never goes into the link


def test_no_match_offers_a_skeleton():
    at = app()
    at.text_area(key="paste").input("Traceback (most recent call last):\n  File \"/home/alice/x.py\", line 1, in <module>\nZeroDivisionError: division by zero\n").run()
    no_crash(at)
    shown = texts(at)
    assert "No guide for this error yet." in shown
    assert "The root error, on line 3 of your paste:" in shown and "`ZeroDivisionError: division by zero`" in shown
    assert at.get("download_button"), "the new-guide skeleton is offered"


def test_ticks_go_into_the_share_link_and_come_back():
    at = app(guide=SEED1)
    no_crash(at)
    at.checkbox(key=f"chk:{SEED1}:vllm-version").check().run()
    at.checkbox(key=f"chk:{SEED1}:apply-56509").check().run()
    # The share link takes the ticks; the address bar does not (each change would be a history step).
    assert "done" not in at.query_params
    share = next(c.value for c in at.code if f"guide={SEED1}" in c.value)
    done = parse_qs(urlsplit(share).query)["done"][0]
    assert done == "vllm-version,apply-56509"
    fresh = app(guide=SEED1, done=done)
    no_crash(fresh)
    ticked = {c.key.split(":")[-1] for c in fresh.checkbox if c.value}
    assert ticked == {"vllm-version", "apply-56509"}
    assert fresh.get("progress")[0].proto.text == "2 of 16 done"


def test_language_switch_and_link():
    at = app(guide=SEED1)
    at.segmented_control(key="lang").set_value("zh").run()
    no_crash(at)
    q = at.query_params["lang"]
    assert (q[0] if isinstance(q, list) else q) == "zh"
    assert "解决步骤" in texts(at)
    assert at.title[0].value.startswith("SM120 上运行 DeepSeek-V4.1")
    fresh = app(guide=SEED1, lang="zh")
    assert "检查清单" in texts(fresh)


def test_unknown_guide_is_a_friendly_page():
    at = app(guide="no-such-guide")
    no_crash(at)
    assert "There is no guide with this id." in texts(at)
    assert at.text_input(key="unknown_q") is not None


def test_browse_filters():
    from components.browse import filter_guides
    from kb.engine.index import load_index
    rows = load_index().guides.meta
    assert filter_guides(rows, "no common block size", [], [], [], []) == [SEED1]
    assert filter_guides(rows, "稀疏 mla 解码 sm120", [], [], [], []) == [SEED1]  # Chinese titles are searched too
    unresolved = filter_guides(rows, "", [], [], [], ["unresolved"])
    assert unresolved and all(rows[g].status == "unresolved" for g in unresolved)
    assert SEED1 in filter_guides(rows, "", ["vllm"], [], ["SM120"], [])
    assert filter_guides(rows, "", ["vllm"], [], ["SM120"], ["fixed"]) == []


def test_markdown_export_has_the_checklist_state():
    from kb.engine.index import load_index
    from kb.guides.render import guide_markdown
    g = load_index().guides[SEED1]
    md = guide_markdown(g, "en", ["vllm-version", "apply-56509"])
    assert "- [x] Is vLLM the 0.32.0 release tag" in md
    assert "3. [x] Apply PR \\#56509" in md
    assert "- [ ] Are all three FlashInfer" in md
    at = app(guide=SEED1, done="vllm-version")
    assert at.get("download_button")


def test_browse_page_in_both_languages():
    at = app()
    at.switch_page("components/pages/browse.py").run()
    no_crash(at)
    from kb.engine.index import load_index
    n = len(load_index().guides)
    assert f"{n} guides" in texts(at)
    at.text_input(key="browse_q").input("no common block size").run()
    links = [p.proto.label for p in at.get("page_link")]
    assert any(link.startswith("DeepSeek-V4.1 on SM120") for link in links), links
    at.segmented_control(key="lang").set_value("zh").run()
    no_crash(at)
    links = [p.proto.label for p in at.get("page_link")]
    assert any(link.startswith("SM120 上运行 DeepSeek-V4.1") for link in links), links


def test_browse_finds_the_guides_for_a_gpu_by_its_name():
    from components.browse import filter_guides
    from kb.engine.index import load_index
    from kb.env.gpus import compute_capability
    rows = load_index().guides.meta
    for name in ("H100", "RTX 5090", "A100", "nvidia h100-sxm", "SM120"):
        cc = compute_capability(name) or "12.0"
        wanted = sorted((g for g, m in rows.items() if cc in m.compute_capability), key=lambda g: (rows[g].component, g))
        found = filter_guides(rows, name, [], [], [], [])
        assert set(wanted) <= set(found), name
        model = name.lower().removeprefix("nvidia ").split("-")[0]  # "nvidia h100-sxm": guides that name the H100
        assert all(cc in rows[g].compute_capability or model in rows[g].search for g in found), name
    assert filter_guides(rows, "RTX 5090", [], [], [], []) and filter_guides(rows, "H100", [], [], [], [])
    assert "flashinfer-requires-sm75" in filter_guides(rows, "h100 flashinfer", [], [], [], [])  # and the other words
    at = app()
    at.switch_page("components/pages/browse.py").run()
    at.text_input(key="browse_q").input("A100").run()
    no_crash(at)
    assert "A100 is compute capability 8.0 (SM80)" in texts(at)


def test_browse_finds_the_guides_for_a_bare_geforce_number():
    # "4090", as people type it, finds what "RTX 4090" finds (compute capability 8.9).
    from components.browse import filter_guides
    from kb.engine.index import load_index
    rows = load_index().guides.meta
    bare, named = filter_guides(rows, "4090", [], [], [], []), filter_guides(rows, "RTX 4090", [], [], [], [])
    assert bare and bare == named
    at = app()
    at.switch_page("components/pages/browse.py").run()
    at.text_input(key="browse_q").input("4090").run()
    no_crash(at)
    assert "is compute capability 8.9 (SM89)" in texts(at) and "No guide" not in texts(at)


CHINESE_PASTE = ("运行 vllm serve 时报错，求助：\n"
                 "RuntimeError: CUDA error: an illegal memory access was encountered\n")


def test_a_chinese_paste_offers_the_page_in_chinese():
    at = app()
    at.text_area(key="paste").input(CHINESE_PASTE).run()
    no_crash(at)
    assert "Your paste is in Chinese" in texts(at)
    at.button(key="zh_switch").click().run()
    no_crash(at)
    assert at.session_state["lang"] == "zh" and at.title[0].value == "诊断"
    assert "zh_switch" not in [b.key for b in at.button]  # offered once, on the English page only
    english = app()
    english.text_area(key="paste").input("RuntimeError: CUDA error: an illegal memory access was encountered\n").run()
    assert "Your paste is in Chinese" not in texts(english)
