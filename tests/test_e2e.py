"""One end-to-end run in a real browser: Debian's chromium driven by Playwright against
`streamlit run app.py` on a free localhost port."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.request

import pytest

from kb import config
from tests.conftest import CHROMIUM, ROOT, read, settled, wait_until

SEED1 = "vllm-dsv41-sm120-no-common-block-size"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; scripts/install --dev installs it")
        pytest.skip("chromium not installed")
    port = _free_port()
    env = {**os.environ, "KB_DB_PATH": str(tmp_path_factory.mktemp("db") / "kb.sqlite3")}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        if proc.poll() is not None:
            pytest.fail("streamlit exited: " + proc.stdout.read().decode(errors="replace")[-2000:], pytrace=False)
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            return True
        except OSError:
            return False
    try:
        wait_until(healthy, 60, "streamlit's health check")
    except BaseException:
        proc.kill()
        raise
    yield url
    proc.terminate()
    proc.wait(10)




def _checkbox(page, label_start: str):
    return page.locator("[data-testid='stCheckbox']").filter(has_text=label_start).first


def test_paste_open_tick_share(server, browser, tmp_path):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    page.goto(server + "/", wait_until="networkidle")
    area = page.get_by_label("Error or log")
    area.fill(read("pastes/seed1-serve.log"))
    page.get_by_role("button", name="Find the guide").click()
    page.get_by_text("Line 13 of your paste").first.wait_for(timeout=30_000)
    # KB_UPDATE_SCREENSHOTS=1 refreshes the README's screenshots; otherwise they go to a temp dir.
    docs = ROOT / "docs" if config.get("KB_UPDATE_SCREENSHOTS") else tmp_path
    # Streamlit scrolls inside its main block, so a taller window shows the results under the paste.
    page.set_viewport_size({"width": 1280, "height": 1700})
    settled(page)
    page.screenshot(path=str(docs / "diagnose.png"))
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.get_by_role("button", name="Open guide").first.click()
    page.get_by_role("heading", name=re.compile("DeepSeek-V4.1 on SM120")).wait_for(timeout=30_000)
    assert f"guide={SEED1}" in page.url

    for label, item in (("Is vLLM the 0.32.0 release tag", "vllm-version"), ("Fix the prerequisites", "prerequisites")):
        _checkbox(page, label).locator("label").click()
        # The share link takes the tick; the address bar does not (no history step per tick).
        page.locator("[data-testid='stCode']").filter(has_text="done=").filter(has_text=item).first.wait_for(timeout=15_000)
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    settled(page)
    page.screenshot(path=str(docs / "guide.png"), full_page=False)
    share_block = page.locator("[data-testid='stCode']").filter(has_text="done=vllm-version,prerequisites").first
    share_block.wait_for(timeout=15_000)
    share = share_block.inner_text().strip()
    assert "done=vllm-version,prerequisites" in share and f"guide={SEED1}" in share
    ctx.close()

    fresh = browser.new_context()
    page2 = fresh.new_page()
    page2.goto(share.replace("http://localhost:8501", server), wait_until="networkidle")
    page2.get_by_role("heading", name=re.compile("DeepSeek-V4.1 on SM120")).wait_for(timeout=30_000)
    checked = page2.locator("[data-testid='stCheckbox'] input:checked")
    # Streamlit renders the page progressively: wait until the whole checklist is there.
    page2.get_by_text("Verification", exact=True).wait_for(timeout=15_000)
    page2.wait_for_function("document.querySelectorAll(\"[data-testid='stCheckbox'] input:checked\").length >= 2", timeout=15_000)
    labels = [checked.nth(i).locator("xpath=ancestor::label").inner_text() for i in range(checked.count())]
    assert len(labels) == 2
    assert labels[0].startswith("Is vLLM the 0.32.0") and "Fix the prerequisites" in labels[1]
    fresh.close()


def test_vote_and_unmatched_paste_show_on_the_authors_page(server, browser):
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.goto(f"{server}/?guide={SEED1}", wait_until="networkidle")
    page.get_by_role("radio", name="Thumbs up").click()  # the click alone records the answer: no Send
    page.get_by_text("Thank you — your answer is recorded.").wait_for(timeout=15_000)
    page.goto(server + "/", wait_until="networkidle")
    page.get_by_label("Error or log").fill("Traceback (most recent call last):\n  File \"/home/carol/job.py\", line 4, in <module>\n"
                                           "ZeroDivisionError: integer division or modulo by zero\n")
    page.get_by_role("button", name="Find the guide").click()
    page.get_by_text("No guide for this error yet.").wait_for(timeout=15_000)
    page.get_by_role("link", name="Authors").click()
    page.get_by_role("heading", name="Most frequent unmatched errors").wait_for(timeout=15_000)
    signature = page.locator("[data-testid='stCode']").filter(has_text="ZeroDivisionError: integer division or modulo by zero").first
    signature.wait_for(timeout=15_000)
    assert "carol" not in page.locator("[data-testid='stMain']").inner_text()
    table = page.locator("[data-testid='stTable']").first
    table.wait_for(timeout=15_000)
    assert "DeepSeek-V4.1 on SM120" in table.inner_text()
    page.context.close()


WRAPPER = "vllm-workerproc-initialization-failed"


def _diagnosed(browser, server, paste: str, width: int = 1280):
    page = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    page.goto(server + "/", wait_until="networkidle")
    page.get_by_label("Error or log").fill(paste)
    page.get_by_role("button", name="Find the guide").click()
    _results_drawn(page)
    return page


# The diagnose page draws this after its last card (components/diagnose.py).
RESULTS_END = ".st-key-results_end"


def _results_drawn(page) -> None:
    page.locator(RESULTS_END).wait_for(state="attached", timeout=30_000)


def _results(page) -> list[str]:
    """The ranked guides' ids, in order: each card's "Open guide" button has the key open:<id>.
    Read once the page's end-of-results marker is drawn: Streamlit draws the cards one after the other."""
    _results_drawn(page)
    classes = page.locator("[class*='st-key-open']").evaluate_all("els => els.map(e => e.className)")
    return [re.search(r"st-key-open-(\S+)", c).group(1) for c in classes]  # Streamlit writes ":" as "-"


def test_back_navigation_keeps_the_paste_and_the_results(server, browser):
    paste = read("pastes/seed1-serve.log")
    page = _diagnosed(browser, server, paste)
    ranked = _results(page)
    assert len(ranked) >= 2
    ways_back = {
        "the browser's Back": lambda: page.go_back(),
        "the page's link": lambda: page.get_by_role("button", name="← All results for your paste").click(),
        "the sidebar": lambda: page.locator("[data-testid='stSidebar']").get_by_role("link", name="Diagnose").click(),
    }
    for way, go_back in ways_back.items():
        page.locator(f".st-key-open-{WRAPPER} button").click()  # the runner-up, to compare it with the top guide
        page.get_by_role("heading", name=re.compile("WorkerProc initialization failed")).wait_for(timeout=30_000)
        page.get_by_text("Why this guide matched your paste").wait_for(timeout=15_000)
        assert f"guide={WRAPPER}" in page.url
        # The guide's run is over when the results' elements, marker included, are gone: the
        # marker seen after going back is then the new run's.
        page.locator(RESULTS_END).wait_for(state="detached", timeout=30_000)
        go_back()
        page.get_by_role("heading", name="Diagnose").wait_for(timeout=30_000)
        page.wait_for_function("!location.search.includes('guide=')", timeout=15_000)
        assert page.get_by_label("Error or log").input_value() == paste, way
        assert _results(page) == ranked, way
    assert "paste" not in page.url
    page.context.close()


def test_matched_lines_are_monospaced_as_pasted_and_never_links(server, browser):
    lines = read("pastes/seed1-serve.log").splitlines()
    # A traceback's indentation, an arrow, a bare URL, a Markdown image, on lines that are shown.
    lines = [ln + "  -> https://evil.example/x www.evil.example ![p](https://evil.example/p.png)" if "ValueError" in ln else ln
             for ln in lines]
    page = _diagnosed(browser, server, "\n".join(lines) + "\n\n")
    block = page.locator(f".st-key-matched-{SEED1}")
    codes = block.locator("code")
    codes.first.wait_for(timeout=30_000)  # the block's Markdown drawn, not only its container
    page.locator("[data-testid='stButton']").filter(has_text="Open guide").first.wait_for(timeout=30_000)
    assert block.locator("a, img").count() == 0
    styles = codes.evaluate_all("els => els.map(e => [getComputedStyle(e).fontFamily, getComputedStyle(e).whiteSpace])")
    assert styles and all("monospace" in font and space == "pre-wrap" for font, space in styles)
    shown = block.inner_text()
    assert "-> https://evil.example/x www.evil.example ![p](https://evil.example/p.png)" in shown and "→" not in shown
    frame = next(ln for ln in lines if ln.endswith("in initialize_from_config"))
    assert frame.split("] ", 1)[1] in shown  # "  File …": the traceback's indentation is kept
    numbers = [int(x) for x in re.findall(r"^\s*(\d+)\s", shown, re.M)]
    assert numbers and max(numbers) <= len(lines)  # no row for the blank lines after the paste
    page.context.close()


def test_the_language_switch_is_reachable_on_a_phone(server, browser):
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    page.goto(server + "/", wait_until="networkidle")
    page.get_by_role("heading", name="Diagnose").wait_for(timeout=30_000)
    switch = page.locator(".st-key-lang_bar").get_by_text("中文")
    box = switch.bounding_box()
    assert box and 0 <= box["x"] and box["x"] + box["width"] <= 390  # on screen, the sidebar folded away
    switch.click()
    page.get_by_role("heading", name="诊断").wait_for(timeout=15_000)
    page.wait_for_function("location.search.includes('lang=zh')", timeout=15_000)
    page.context.close()


# A watchdog timeout (tests/data/cases/C.jsonl, C-watchdog-instructlab-1ms): its guide's title
# starts with ProcessGroupNCCL, the word the issue saw broken in two on a phone.
WATCHDOG_PASTE = ("terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  [PG ID 0 PG GUID "
                  "0(default_pg) Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught "
                  "collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1) "
                  "ran for 90 milliseconds before timing out.")
WATCHDOG = "nccl-watchdog-collective-timeout"
# The words of an element's text that the browser laid out over more than one line.
BROKEN_WORDS = """el => {
  const broken = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""
FIRST_CARD_ON_SCREEN = """() => {
  const card = document.querySelector('.st-key-result_0');
  if (!card) return false;
  const r = card.getBoundingClientRect();
  const header = document.querySelector('[data-testid=stHeader]');
  const below = header ? header.getBoundingClientRect().bottom : 0;  // not hidden under Streamlit's top bar
  return r.top >= below - 2 && r.top < window.innerHeight / 2;
}"""


def test_on_a_phone(server, browser, tmp_path):
    """390 px: the first result comes on screen after "Find the guide", titles wrap between words,
    and ticking boxes adds no step to the browser's history."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(server + "/", wait_until="networkidle")
    page.get_by_label("Error or log").fill(WATCHDOG_PASTE)
    page.get_by_role("button", name="Find the guide").click()
    card = page.locator(".st-key-result_0")
    card.get_by_text("Open guide").wait_for(timeout=30_000)
    page.wait_for_function(FIRST_CARD_ON_SCREEN, timeout=15_000)  # scrolled to, not below the fold
    page.screenshot(path=str(tmp_path / "phone-results.png"))
    title = card.locator("strong").filter(has_text="ProcessGroupNCCL").first
    assert title.evaluate(BROKEN_WORDS) == []

    before = page.evaluate("history.length")
    card.get_by_role("button", name="Open guide").click()
    heading = page.get_by_role("heading", name=re.compile("ProcessGroupNCCL: Watchdog"))
    heading.wait_for(timeout=30_000)
    assert heading.evaluate(BROKEN_WORDS) == []
    opened = page.evaluate("history.length")
    assert opened == before + 1  # opening a guide is a step: Back returns to the results
    boxes = page.locator("[data-testid='stCheckbox']")
    boxes.first.wait_for(timeout=15_000)
    share = page.locator("[data-testid='stCode']").filter(has_text=f"guide={WATCHDOG}").first
    for n in range(2):
        boxes.nth(n).locator("label").click()
        page.wait_for_function("n => document.querySelectorAll(\"[data-testid='stCheckbox'] input:checked\").length >= n",
                               arg=n + 1, timeout=15_000)
    share.filter(has_text="done=").wait_for(timeout=15_000)
    assert page.evaluate("history.length") == opened  # two ticks, no new history step
    page.screenshot(path=str(tmp_path / "phone-guide.png"))
    page.go_back()  # one press back to the results
    page.wait_for_function("!location.search.includes('guide=')", timeout=15_000)
    page.locator(".st-key-result_0").get_by_text("Open guide").wait_for(timeout=30_000)
    ctx.close()
