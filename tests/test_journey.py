"""A person's way through the app, through AppTest: paste, results, a guide, back again,
nothing lost on the way; the links that lead there."""
from __future__ import annotations

from tests.conftest import read
from tests.test_app import app, matched_rows, no_crash, texts

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
WRAPPER = "vllm-workerproc-initialization-failed"
REPORT = "env/vllm_collect_env_rtxpro6000_head.txt"


def titles(at) -> list[str]:
    """The result cards' guide ids, in rank order."""
    return [b.key.split(":", 1)[1] for b in at.button if b.key and b.key.startswith("open:")]


def diagnosed():
    at = app()
    at.text_area(key="env_text").input(read(REPORT)).run()
    at.text_area(key="paste").input(read("pastes/seed1-serve.log")).run()
    no_crash(at)
    return at


def test_paste_report_and_results_survive_a_guide_and_the_back_button():
    at = diagnosed()
    ranked = titles(at)
    assert ranked[0] == SEED1 and WRAPPER in ranked[1:]
    at.button(key=f"open:{WRAPPER}").click().run()  # a runner-up, to compare it with the top guide
    no_crash(at)
    assert at.title[0].value.startswith("vLLM V1: 'WorkerProc initialization failed'")
    assert at.button(key="back").label == "← All results for your paste"
    at.button(key="back").click().run()
    no_crash(at)
    assert at.text_area(key="paste").value == read("pastes/seed1-serve.log")
    assert at.text_area(key="env_text").value == read(REPORT)
    assert titles(at) == ranked
    assert "paste" not in str(dict(at.query_params)) and "env" not in str(dict(at.query_params))


def test_the_sidebar_link_and_the_browser_back_button_come_back_to_the_paste():
    at = diagnosed()
    ranked = titles(at)
    at.button(key=f"open:{SEED1}").click().run()
    assert at.query_params["guide"] in (SEED1, [SEED1])
    # The sidebar's "Diagnose" and the browser's Back both rerun the page without ?guide=.
    assert [p.proto.label for p in at.sidebar.get("page_link")] == ["Diagnose", "Browse", "Authors"]
    at.query_params.clear()
    at.run()
    no_crash(at)
    assert at.title[0].value == "Diagnose" and titles(at) == ranked
    assert at.text_area(key="paste").value == read("pastes/seed1-serve.log")


def test_a_guide_opened_from_the_results_says_why_it_matched():
    at = diagnosed()
    at.button(key=f"open:{WRAPPER}").click().run()
    shown = texts(at)
    assert "Why this guide matched your paste" in shown
    assert "Line 24 of your paste is this guide's error" in shown
    assert "Ranked below 'vllm-dsv41-sm120-no-common-block-size'" in shown  # why it is not first
    rows = matched_rows(at)
    assert len(rows) == 1
    hit = next(r for r in rows[0] if r.hit)
    assert hit.number.strip() == "24" and hit.hit == "Engine core initialization failed. See root cause above"


def test_a_shared_link_in_a_new_session_shows_the_guide_alone():
    at = app(guide=WRAPPER)
    no_crash(at)
    assert "Why this guide matched your paste" not in texts(at)
    assert at.button(key="back").label == "← Back to diagnose"
    assert matched_rows(at) == []


def test_an_uploaded_log_is_kept_while_a_guide_is_open():
    at = app()
    at.file_uploader(key="upload").set_value(("serve.log", read("pastes/seed1-serve.log").encode(), "text/plain")).run()
    no_crash(at)
    ranked = titles(at)
    assert ranked[0] == SEED1
    at.button(key=f"open:{SEED1}").click().run()
    at.button(key="back").click().run()
    no_crash(at)
    assert titles(at) == ranked  # the uploader is empty again, the file's text is not lost
    assert any("Still using `serve.log`, uploaded earlier." in c.value for c in at.caption)
    at.button(key="forget:upload").click().run()
    assert titles(at) == [] and "Paste an error or upload a log to start." in texts(at)


def test_guide_ids_in_links_ignore_case():
    at = app(guide=SEED1.upper(), lang="zh")
    no_crash(at)
    assert at.title[0].value.startswith("SM120 上运行 DeepSeek-V4.1")
    assert at.query_params["guide"] in (SEED1, [SEED1])  # the link is put right


def test_the_language_switch_is_on_the_page_itself():
    # A phone folds the sidebar away: the switch must not live only there.
    at = app()
    assert len(at.main.get("button_group")) == 1 and not at.sidebar.get("button_group")
    at.segmented_control(key="lang").set_value("zh").run()
    no_crash(at)
    assert at.title[0].value == "诊断"
    assert [p.proto.label for p in at.sidebar.get("page_link")] == ["诊断", "浏览", "作者"]
