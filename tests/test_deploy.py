"""The shipped deployment, started for real: PostgreSQL, two replicas (the app and the JSON API
each) and nginx on loopback (deploy/local.py), checked from outside with HTTP, a websocket client
and Debian's chromium.

Bounded: every start, request and browser wait has a timeout, and the whole site is stopped
(its processes and their groups) whatever happens.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM, ROOT, read

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
# The one request the CSP blocks on purpose: Streamlit fetches the Material icon the app uses as
# its favicon from Google's font server, which would tell Google every visitor's address.
BLOCKED_ON_PURPOSE = "https://fonts.gstatic.com/"
API_RATE_LIMIT = 20  # requests a minute per client and API replica, low enough to reach in the last test
HOSTILE_COMMENT = "fixed it, see https://evil.example/x ~~not~~ :red[ALERT] :material/warning: :fire: [x](https://evil.example)"


def _deploy(*args: str, timeout: float = 240) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "deploy" / "local.py"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "KB_API_RATE_LIMIT": str(API_RATE_LIMIT)})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def site() -> Iterator[dict]:
    for tool, package in ((shutil.which("nginx") or "/usr/sbin/nginx", "nginx"), (CHROMIUM, "chromium")):
        if not os.path.exists(tool):
            if os.environ.get("CI"):
                pytest.fail(f"{package} is not installed; scripts/install --dev installs it", pytrace=False)
            pytest.skip(f"{package} is not installed (bash scripts/install --dev installs it)")
    from tests import pg
    pg.bin_dir_or_skip()
    # Not under pytest's private tmp_path: the postgres user and nginx's workers must reach it.
    state = Path(tempfile.mkdtemp(prefix="kb-deploy-"))
    try:
        info = json.loads(_deploy("start", str(state)))
        info["state"] = str(state)
        yield info
    finally:
        _deploy("stop", str(state), timeout=120)
        shutil.rmtree(state, ignore_errors=True)




def _get(url: str, body: dict | None = None, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


class Page:
    """A browser tab that records every CSP violation and page error."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 1000})
        self.page = self.context.new_page()
        self.violations: list[str] = []
        self.errors: list[str] = []
        self.page.expose_function("kbViolation", lambda v: self.violations.append(v))
        self.page.add_init_script("document.addEventListener('securitypolicyviolation', "
                                  "e => window.kbViolation(e.violatedDirective + ' ' + e.blockedURI))")
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, url: str, text: str) -> None:
        self.page.goto(url, wait_until="domcontentloaded", timeout=30_000)
        self.page.get_by_text(text).first.wait_for(timeout=30_000)  # rendered: the websocket works

    def unexpected(self) -> list[str]:
        return [v for v in self.violations if BLOCKED_ON_PURPOSE not in v] + self.errors

    def close(self) -> None:
        self.context.close()


def test_the_page_loads_through_nginx_with_the_security_headers(site):
    status, headers, body = _get(site["url"] + "/")
    assert status == 200 and b"<script" in body
    for name, value in HEADERS.items():
        assert headers.get(name) == value, (name, headers)
    csp = headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp and "'unsafe-eval'" not in csp
    assert _get(site["url"] + "/_stcore/metrics")[0] == 404
    assert _get(f"http://127.0.0.1:{site['replicas'][0]}/_stcore/metrics")[0] == 200  # it exists; nginx hides it


def test_a_foreign_host_header_is_refused(site):
    assert _get(site["url"] + "/", headers={"Host": "evil.example"})[0] == 421
    assert _get(site["url"] + "/v1/guides?q=oom", headers={"Host": "evil.example"})[0] == 421
    port = site["url"].rsplit(":", 1)[1]
    assert _get(site["url"] + "/", headers={"Host": f"localhost:{port}"})[0] == 200  # a name the site has


def test_the_api_answers_through_nginx_on_either_replica(site):
    status, headers, body = _get(site["url"] + "/v1/diagnose", {"text": read("pastes/seed1-serve.log")})
    assert status == 200 and headers["Content-Type"] == "application/json", body[:300]
    got = json.loads(body)
    assert got["matches"][0]["id"] == SEED1 and got["answered"] is True
    assert headers.get("X-Content-Type-Options") == "nosniff"  # the site's headers on the API too
    status, headers, body = _get(f"{site['url']}/v1/guides/{SEED1}?format=md")
    assert status == 200 and headers["Content-Type"].startswith("text/markdown") and body.startswith(b"# ")
    assert json.loads(_get(site["url"] + "/openapi.json")[2])["paths"]["/v1/diagnose"]
    for port in site["apis"]:  # each replica runs one, and nginx reaches both
        assert json.loads(_get(f"http://127.0.0.1:{port}/healthz")[2])["status"] == "ok"


def test_streamlit_renders_under_the_csp(site, browser):
    tab = Page(browser)
    try:
        tab.open(site["url"] + "/", "Error or log")
        tab.page.get_by_label("Error or log").fill("RuntimeError: CUDA error: an illegal memory access was encountered")
        tab.page.get_by_role("button", name="Find the guide").click()
        tab.page.get_by_text("Open guide").first.wait_for(timeout=30_000)
        tab.open(f"{site['url']}/?guide={SEED1}", "Fastest fix")
        tab.open(site["url"] + "/authors", "Helpfulness by guide")
        assert tab.unexpected() == [], tab.unexpected()
    finally:
        tab.close()


def test_streamlit_checks_still_refuse_foreign_origins_behind_nginx(site):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect
    ws_url = site["url"].replace("http://", "ws://") + "/_stcore/stream"

    def handshake(origin: str) -> int:
        try:
            with connect(ws_url, origin=origin, open_timeout=10, close_timeout=2):
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    assert handshake(site["url"]) == 101  # upgraded through nginx
    assert handshake("https://evil.example") == 403
    # An upload without the XSRF token Streamlit gave this browser is refused too.
    request = urllib.request.Request(site["url"] + "/_stcore/upload_file/session/file", data=b"x", method="PUT")
    try:
        urllib.request.urlopen(request, timeout=10)
        status = 200
    except urllib.error.HTTPError as exc:
        status = exc.code
    assert status == 403


def test_a_vote_on_one_replica_shows_on_the_others_authors_page(site, browser):
    first, second = (f"http://127.0.0.1:{port}" for port in site["replicas"])
    tab = Page(browser)
    try:
        tab.open(f"{first}/?guide={SEED1}", "Fastest fix")
        tab.page.get_by_role("radio", name="Thumbs up").click()  # recorded on the click
        tab.page.get_by_text("Thank you — your answer is recorded.").wait_for(timeout=30_000)
        tab.page.get_by_label("Anything to add?").fill(HOSTILE_COMMENT)
        tab.page.keyboard.press("Enter")
        tab.page.get_by_role("button", name="Send").click()
        tab.page.get_by_text("Your comment was added to your answer.").wait_for(timeout=30_000)
        for base in (second, site["url"]):
            tab.open(f"{base}/authors", "Helpfulness by guide")
            shown = tab.page.locator("[data-testid='stText']").filter(has_text="fixed it").first
            shown.wait_for(timeout=30_000)
            assert shown.inner_text().strip() == HOSTILE_COMMENT  # the other replica sees it, as plain text
            main = tab.page.locator("[data-testid='stMain']")
            assert main.locator("a[href*='evil.example'], del, s").count() == 0
        # Through nginx, under its CSP, the feedback chart renders too (Vega, WebAssembly).
        tab.page.locator("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg").first.wait_for(timeout=30_000)
        assert tab.unexpected() == [], tab.unexpected()
    finally:
        tab.close()


def _visit_until(url: str, stop: threading.Event) -> None:
    while not stop.wait(0.2):
        _get(url)


def test_the_site_answers_with_either_replica_stopped(site, browser):
    # 0, 1, 0: whichever replica nginx's hash sends this client to, one round restarts it and the
    # next stops the other.
    for n in (0, 1, 0):
        _deploy("stop-replica", site["state"], str(n), timeout=60)
        try:
            status, _, _ = _get(site["url"] + "/")
            assert status == 200
            with pytest.raises(OSError):  # it is really down
                urllib.request.urlopen(f"http://127.0.0.1:{site['replicas'][n]}/_stcore/health", timeout=5)
            tab = Page(browser)
            try:
                tab.open(f"{site['url']}/?guide={SEED1}", "Fastest fix")  # a whole session, on the other replica
            finally:
                tab.close()
            # A specific guide's error (an illegal memory access is a class guide's triage, which does not answer).
            status, _, body = _get(site["url"] + "/v1/diagnose", {"text": "ValueError: No common block size for 64"})
            assert status == 200 and json.loads(body)["answered"], body[:300]  # the other replica's API
        finally:
            # Visitors keep asking while the replica restarts, as they would; each refused try must
            # not leave it marked down once it is back (the next round stops the other one at once).
            visitor = threading.Thread(target=_visit_until, args=(site["url"] + "/", stop := threading.Event()))
            visitor.start()
            try:
                _deploy("start-replica", site["state"], str(n), timeout=120)
            finally:
                stop.set()
                visitor.join(timeout=30)


def test_the_api_counts_each_client_by_the_address_nginx_saw(site):
    """Last in this file: it spends this machine's request budget for the minute. A client that
    writes a new X-Forwarded-For into every request is still one client: nginx replaces the
    header with the address it saw, and the API believes the header only from nginx."""
    answers = [_get(site["url"] + "/v1/guides?q=oom", headers={"X-Forwarded-For": f"198.51.100.{n}"})[0]
               for n in range(2 * API_RATE_LIMIT + 2)]  # one budget on each of the two API replicas, and more
    assert answers[:10] == [200] * 10 and 429 in answers, answers


def test_nginx_limits_the_sessions_one_address_opens(site):
    """After the API's test: it spends this address's session budget (limit_req on the websocket)
    for a minute. 60 tabs opened at once from one address do not get 60 sessions."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect
    ws_url = site["url"].replace("http://", "ws://") + "/_stcore/stream"

    def handshake() -> int:
        try:
            with connect(ws_url, origin=site["url"], open_timeout=10, close_timeout=2):
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    answers = [handshake() for _ in range(60)]
    assert answers[:5] == [101] * 5 and answers[-1] == 429, answers
    assert answers.count(101) < 40, answers
