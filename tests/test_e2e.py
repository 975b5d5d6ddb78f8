"""One end-to-end run in a real browser: Debian's chromium driven by Playwright against
`streamlit run app.py` on a free localhost port."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import ROOT, read

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SEED1 = "vllm-dsv41-sm120-no-common-block-size"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


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
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("streamlit did not start: " + proc.stdout.read().decode(errors="replace")[-2000:])
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


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
    docs = ROOT / "docs" if os.environ.get("KB_UPDATE_SCREENSHOTS") else tmp_path
    # Streamlit scrolls inside its main block, so a taller window shows the results under the paste.
    page.set_viewport_size({"width": 1280, "height": 1700})
    page.wait_for_timeout(500)
    page.screenshot(path=str(docs / "diagnose.png"))
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.get_by_role("button", name="Open guide").first.click()
    page.get_by_role("heading", name=re.compile("DeepSeek-V4.1 on SM120")).wait_for(timeout=30_000)
    assert f"guide={SEED1}" in page.url

    for label, item in (("Is vLLM the 0.32.0 release tag", "vllm-version"), ("Fix the prerequisites", "prerequisites")):
        _checkbox(page, label).locator("label").click()
        page.wait_for_function("(id) => location.search.includes(id)", arg=item, timeout=15_000)
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    page.wait_for_timeout(300)
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
    page.get_by_role("radio", name="Thumbs up").click()
    page.get_by_role("button", name="Send").click()
    page.get_by_text("Thank you — recorded.").wait_for(timeout=15_000)
    page.goto(server + "/", wait_until="networkidle")
    page.get_by_label("Error or log").fill("Traceback (most recent call last):\n  File \"/home/carol/job.py\", line 4, in <module>\n"
                                           "ZeroDivisionError: integer division or modulo by zero\n")
    page.get_by_role("button", name="Find the guide").click()
    page.get_by_text("No guide matches this error with confidence.").wait_for(timeout=15_000)
    page.get_by_role("link", name="Authors").click()
    page.get_by_role("heading", name="Most frequent unmatched errors").wait_for(timeout=15_000)
    signature = page.locator("[data-testid='stCode']").filter(has_text="ZeroDivisionError: integer division or modulo by zero").first
    signature.wait_for(timeout=15_000)
    assert "carol" not in page.locator("[data-testid='stMain']").inner_text()
    table = page.locator("[data-testid='stTable']").first
    table.wait_for(timeout=15_000)
    assert "DeepSeek-V4.1 on SM120" in table.inner_text()
    page.context.close()
