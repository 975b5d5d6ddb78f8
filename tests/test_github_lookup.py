"""The live look-up of upstream issues, against GitHub's API answers served by a local HTTP
server (tests/data/github/README.md says which answers are recorded and which constructed)."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from kb.engine.parse import parse
from kb.engine.upstream import links, search_terms
from kb.lookup.github import Lookup, from_environment

ANSWERS = Path(__file__).parent / "data" / "github"


class FakeGitHub(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.search_file = "search-engine-core.json"
        self.status = 200
        self.headers_out: dict[str, str] = {}
        self.body: bytes | None = None
        self.release = threading.Event()  # a handler told to hang waits on this, not on a clock
        self.hang = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeGitHub

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        s = self.server
        s.requests.append((self.path, dict(self.headers)))
        if s.hang:
            s.release.wait(30)
            return
        path = urlsplit(self.path).path
        if path == "/search/issues":
            body = s.body if s.body is not None else (ANSWERS / s.search_file).read_bytes()
        elif path.startswith("/repos/vllm-project/vllm/issues/") and path.endswith("/timeline"):
            f = ANSWERS / f"timeline-{path.split('/')[-2]}.json"
            body = f.read_bytes() if f.exists() else b"[]"
        else:
            body = b'{"message": "Not Found"}'
            self.send_response(404)
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(s.status)
        self.send_header("Content-Type", "application/json")
        for k, v in s.headers_out.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()


ROOT = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"


def test_search_sends_the_clean_words_and_the_token(github):
    found = Lookup(api=github.url, token="t0ken-for-tests").search("vllm-project/vllm", search_terms(ROOT))
    assert found.error is None
    path, headers = github.requests[0]
    q = parse_qs(urlsplit(path).query)["q"][0]
    assert q == "repo:vllm-project/vllm is:issue RuntimeError: Engine core initialization failed See root cause above Failed core proc(s):"
    assert headers["Authorization"] == "Bearer t0ken-for-tests"
    assert [r.number for r in found.reports] == [23176, 17939, 21882, 17618, 18730]
    assert found.reports[2].state == "open" and found.reports[2].url == "https://github.com/vllm-project/vllm/issues/21882"


def test_a_closed_report_names_the_merged_pull_request_that_closed_it(github):
    found = Lookup(api=github.url).search("vllm-project/vllm", "Engine core initialization failed")
    by = {r.number: r.closed_by for r in found.reports}
    assert by[23176] is not None and (by[23176].number, by[23176].url) == (90002, "https://github.com/vllm-project/vllm/pull/90002")
    assert by[17939] is None  # closed with no pull request
    assert by[18730] is None  # only a pull request of another repository referenced it
    assert by[21882] is None and by[17618] is None  # open: no timeline asked
    timelines = [p for p, _ in github.requests if p.endswith("per_page=100")]
    assert len(timelines) == 3  # only the closed ones among the first MAX_TIMELINES


def test_answers_are_cached_and_failures_cached_briefly(github):
    lookup = Lookup(api=github.url)
    first = lookup.search("vllm-project/vllm", "Engine core initialization failed")
    n = len(github.requests)
    again = lookup.search("vllm-project/vllm", "Engine core initialization failed")
    assert again.cached and again.reports == first.reports and len(github.requests) == n
    github.status, github.headers_out = 403, {"X-RateLimit-Remaining": "0"}
    limited = lookup.search("vllm-project/vllm", "another error line")
    assert limited.reports == () and "rate limit" in limited.error
    assert lookup.search("vllm-project/vllm", "another error line").cached


@pytest.mark.parametrize("status, body, says", [
    (500, b"{}", "HTTP 500"),
    (200, b"<html>not json", "not JSON"),
    (200, b'{"items": 3}', "no list"),
])
def test_a_bad_answer_is_a_short_reason(github, status, body, says):
    github.status, github.body = status, body
    found = Lookup(api=github.url).search("vllm-project/vllm", "Engine core initialization failed")
    assert found.reports == () and says in found.error


def test_a_server_that_does_not_answer_times_out(github):
    github.hang = True
    found = Lookup(api=github.url, timeout=0.3).search("vllm-project/vllm", "Engine core initialization failed")
    assert found.reports == () and "did not answer within 0.3 s" in found.error


def test_nothing_reached_is_a_reason_not_an_exception():
    found = Lookup(api="http://127.0.0.1:9", timeout=0.5).search("vllm-project/vllm", "Engine core initialization failed")
    assert found.reports == () and found.error == "GitHub could not be reached"


def test_titles_are_plain_text_and_links_stay_in_the_repository(github):
    github.search_file = "search-hostile.json"
    found = Lookup(api=github.url).search("vllm-project/vllm", "anything at all")
    assert [r.number for r in found.reports] == [1]  # the pull request and the foreign link are dropped
    title = found.reports[0].title
    assert "\u2028" not in title  # the caller escapes markup; no control or line-separator character survives
    assert found.reports[0].url == "https://github.com/vllm-project/vllm/issues/1"


def test_off_unless_configured():
    assert from_environment({}) is None
    assert from_environment({"KB_GITHUB_LOOKUP": "0", "KB_GITHUB_TOKEN": "x"}) is None
    on = from_environment({"KB_GITHUB_LOOKUP": "1", "KB_GITHUB_TOKEN": "tok", "KB_GITHUB_TIMEOUT": "nonsense"})
    assert on is not None and on.token == "tok" and on.timeout == 4.0 and on.api == "https://api.github.com"


def test_every_project_the_paste_names_gets_a_link():
    # A real xgrammar failure inside vLLM (the shape of vllm-project/vllm#14151's log): both projects.
    paste = parse('Traceback (most recent call last):\n'
                  '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/guided_decoding/xgrammar_decoding.py", line 80, in from_guided_params\n'
                  '  File "/usr/local/lib/python3.12/dist-packages/xgrammar/compiler.py", line 110, in compile_json_schema\n'
                  'RuntimeError: [10:02:11] /workspace/cpp/json_schema_converter.cc:795: Unsupported format: uuid\n')
    found = links(paste, "RuntimeError: [10:02:11] /workspace/cpp/json_schema_converter.cc:795: Unsupported format: uuid")
    assert [ln.project.name for ln in found] == ["XGrammar", "vLLM"]
    assert all("workspace" not in ln.url and "795" not in ln.url for ln in found)
    assert json.dumps([ln.query for ln in found]) == json.dumps(["RuntimeError: Unsupported format: uuid"] * 2)


ENGINE_CORE = ("(APIServer pid=64866)   File \"/usr/lib/python3.10/site-packages/vllm/v1/engine/utils.py\", line 960, in wait_for_engine_startup\n"
               "(APIServer pid=64866)     raise RuntimeError(\n"
               "(APIServer pid=64866) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n")


def test_kb_match_lists_the_live_reports(github, tmp_path, monkeypatch):
    import subprocess
    import sys
    paste = tmp_path / "paste.log"
    paste.write_text(ENGINE_CORE)
    env = {**__import__("os").environ, "KB_GITHUB_LOOKUP": "1", "KB_GITHUB_API_URL": github.url}
    out = subprocess.run([sys.executable, "-m", "kb", "match", "--json", str(paste)], capture_output=True, text=True, env=env,
                         cwd=Path(__file__).parent.parent, timeout=120)
    data = json.loads(out.stdout)
    assert data["upstream"][0]["repo"] == "vllm-project/vllm"
    live = data["upstream_reports"]
    assert live["error"] is None and [r["ref"] for r in live["reports"]][:2] == ["vllm-project/vllm#23176", "vllm-project/vllm#17939"]
    assert live["reports"][0]["closed_by"]["number"] == 90002


def test_the_page_shows_upstream_links_on_an_answer_and_live_reports(github, monkeypatch):
    from components import upstream_view
    from tests.test_app import app, no_crash
    monkeypatch.setenv("KB_GITHUB_LOOKUP", "1")
    monkeypatch.setenv("KB_GITHUB_API_URL", github.url)
    upstream_view._lookup.clear()
    try:
        at = app()
        at.text_area(key="paste").input(ENGINE_CORE).run()
        no_crash(at)
        assert [b.proto.label for b in at.get("link_button")][:1] == ["Search vLLM issues"]
        shown = "\n".join(m.value for m in at.markdown)
        assert "vllm\\-project\\/vllm\\#23176" in shown and "github.com/vllm-project/vllm/pull/90002" in shown
        # An answered paste (a CUDA OOM has a guide) gets the search too.
        at = app()
        at.text_area(key="paste").input("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. "
                                        "GPU 0 has a total capacity of 79.19 GiB of which 1.2 GiB is free.\n").run()
        no_crash(at)
        assert "Search PyTorch issues" in [b.proto.label for b in at.get("link_button")]
    finally:
        upstream_view._lookup.clear()
