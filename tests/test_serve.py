"""`kb serve` through real HTTP: the server is started as a process on a loopback port it picks
itself (`--port 0`), and the test waits for the line it prints once it accepts connections."""
from __future__ import annotations

import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator

import jsonschema
import pytest

from kb.guides.render import guide_markdown
from tests.conftest import DATA, ROOT, all_rows, read

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
SM120 = "env/vllm_collect_env_rtxpro6000_head.txt"
READY = "kb serve: listening on http://"
UNMATCHED = ('Traceback (most recent call last):\n  File "/home/alice/site-packages/vllm/run.py", line 7, in go\n'
             "ZeroDivisionError: division by zero at 10.1.2.3 with hf_AbCdEfGhIjKlMnOpQrStUvWxYz123456\n")


class Server:
    def __init__(self, proc: subprocess.Popen, port: int, db: str) -> None:
        self.proc, self.port, self.db = proc, port, db

    def request(self, method: str, path: str, body: object = None, headers: dict | None = None,
                source: str = "127.0.0.1") -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60, source_address=(source, 0))
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        try:
            conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, body: object = None, **kw) -> tuple[int, dict]:
        status, _, data = self.request(method, path, body, **kw)
        return status, json.loads(data)


def start(tmp_path_factory, **settings: str) -> Iterator[Server]:
    db = str(tmp_path_factory.mktemp("db") / "kb.sqlite3")
    env = {**os.environ, "KB_DB_PATH": db, **settings}
    env.pop("KB_DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "kb", "serve", "--host", "127.0.0.1", "--port", "0"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen, deadline = [], time.monotonic() + 120
    try:
        while True:  # the readiness line, or the process's last words
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = proc.stdout.readline() if ready else ""
            seen.append(line)
            if line.startswith(READY):
                port = int(line.rsplit(":", 1)[1])
                break
            if not ready or proc.poll() is not None:
                pytest.fail("kb serve did not start:\n" + "".join(seen))
        yield Server(proc, port, db)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    yield from start(tmp_path_factory)


@pytest.fixture(scope="module")
def limited(tmp_path_factory) -> Iterator[Server]:
    """Three requests a minute per client; 127.0.0.2 is a trusted proxy, 127.0.0.1 is not."""
    yield from start(tmp_path_factory, KB_API_RATE_LIMIT="3", KB_API_TRUSTED_PROXIES="127.0.0.2")


@pytest.fixture(scope="module")
def spec(server) -> dict:
    status, doc = server.json("GET", "/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.")
    return doc


def _schema(spec: dict, path: str, method: str, status: int) -> dict:
    return spec["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]


def test_diagnose_answers_as_kb_match_json_does(server, spec):
    status, got = server.json("POST", "/v1/diagnose", {"text": read("pastes/seed1-serve.log"), "env": read(SM120)})
    assert status == 200 and got["answered"] is True
    jsonschema.validate(got, _schema(spec, "/v1/diagnose", "post", 200))
    cli = subprocess.run([sys.executable, "-m", "kb", "match", "--json", "--env", str(DATA / SM120),
                          str(DATA / "pastes" / "seed1-serve.log")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert {k: v for k, v in got.items() if k != "answered"} == json.loads(cli.stdout)  # the same fields, the same values
    assert got["matches"][0]["id"] == SEED1 and got["matches"][0]["checks"]["gpu-sm120"]["status"] == "pass"


def test_diagnose_in_chinese_and_without_an_answer(server, spec):
    status, got = server.json("POST", "/v1/diagnose", {"text": UNMATCHED, "lang": "zh"})
    assert status == 200 and got["answered"] is False
    jsonschema.validate(got, _schema(spec, "/v1/diagnose", "post", 200))
    assert got["upstream"][0]["repo"] == "vllm-project/vllm" and not any("hf_AbCdEf" in u["url"] for u in got["upstream"])
    assert any("根因错误" in n for n in got["notes"])
    # The unmatched-error queue got the redacted signature, as the app stores it: never the paste.
    stored = str(all_rows(f"sqlite+pysqlite:///{server.db}", "unmatched"))
    assert "ZeroDivisionError: division by zero" in stored
    for secret in ("alice", "10.1.2.3", "hf_AbCdEfGh"):
        assert secret not in stored


def test_a_guide_as_json_and_as_markdown(server, index):
    status, got = server.json("GET", f"/v1/guides/{SEED1.upper()}")  # ids in any case, as in links
    assert status == 200 and got["id"] == SEED1 and got["title"]["en"].startswith("DeepSeek-V4.1 on SM120")
    for path, headers in ((f"/v1/guides/{SEED1}?format=md&lang=zh", {}), (f"/v1/guides/{SEED1}?lang=zh", {"Accept": "text/markdown"})):
        status, head, body = server.request("GET", path, headers=headers)
        assert status == 200 and head["content-type"].startswith("text/markdown")
        assert body.decode() == guide_markdown(index.guides[SEED1], "zh")
    status, got = server.json("GET", "/v1/guides/no-such-guide")
    assert status == 404 and got["error"] == "There is no guide with this id."


def test_search_is_the_browse_pages_search(server, spec, index):
    from kb.diagnosis import filter_guides
    status, got = server.json("GET", "/v1/guides?q=H100")
    assert status == 200
    jsonschema.validate(got, _schema(spec, "/v1/guides", "get", 200))
    assert [g["id"] for g in got["guides"]] == filter_guides(index.guides.meta, "H100", [], [], [], [])[:50]
    assert server.json("GET", "/v1/guides?q=no+common+block+size")[1]["guides"][0]["id"] == SEED1


def test_bad_requests_get_clear_errors(server, spec):
    cases = [("POST", "/v1/diagnose", b"not json", 400, "not a JSON object"),
             ("POST", "/v1/diagnose", {"text": 3}, 400, "not a JSON object"),
             ("POST", "/v1/diagnose", {"text": "x", "lang": "fr"}, 400, "'lang' must be"),
             ("POST", "/v1/diagnose", {"paste": "x"}, 400, "not a JSON object"),
             ("POST", "/v1/diagnose", [1, 2], 400, "not a JSON object"),
             ("POST", "/v1/diagnose", b"\xff\xfe{", 400, "not a JSON object"),
             ("GET", "/v1/diagnose", None, 405, ""),
             ("GET", "/no/such/path", None, 404, "Nothing here")]
    for method, path, body, code, message in cases:
        status, head, data = server.request(method, path, body)
        assert status == code and head["content-type"] == "application/json", (path, body, status)
        assert message in json.loads(data)["error"] and b"Traceback" not in data
        if code in (400, 404) and path == "/v1/diagnose":
            jsonschema.validate(json.loads(data), _schema(spec, path, "post", code))


def test_hostile_text_is_answered(server):
    for text in ("\ud800 CUDA error: an illegal memory access was encountered", "\x00" * 1000, "", "<script>x</script>"):
        status, head, data = server.request("POST", "/v1/diagnose", json.dumps({"text": text}).encode())
        assert status == 200 and head["content-type"] == "application/json", (text[:20], data[:200])
    status, got = server.json("POST", "/v1/diagnose", {"text": "\ud800 CUDA error: an illegal memory access was encountered"})
    assert got["matches"][0]["id"] == "cuda-illegal-memory-access"


def _raw(port: int, head: bytes, parts: Iterable[bytes] = ()) -> bytes:
    """What the server answers to a request written by hand; the body may be left unfinished."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(head)
        for part in parts:
            sock.sendall(part)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def test_a_body_over_ten_megabytes_is_refused_while_it_is_read(server):
    post = b"POST /v1/diagnose HTTP/1.1\r\nHost: kb\r\nContent-Type: application/json\r\n"
    # Announced: refused before a byte of the body is sent.
    assert _raw(server.port, post + b"Content-Length: 20000000\r\n\r\n").startswith(b"HTTP/1.1 413")
    # Streamed without a length: refused once 10 MB have been read, though the body never ends
    # (a server that read it all first would wait here for the rest).
    chunk = b"x" * (1 << 20)
    parts = [b"%x\r\n%s\r\n" % (len(chunk), chunk)] * 9 + [b"%x\r\n%s\r\n" % (10_000_001 - 9 * len(chunk), b"y" * (10_000_001 - 9 * len(chunk)))]
    answer = _raw(server.port, post + b"Transfer-Encoding: chunked\r\n\r\n", iter(parts))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert server.json("GET", "/healthz")[0] == 200  # and the server is fine


def test_the_rate_limit_is_per_client_address(limited, spec):
    def ask(source: str = "127.0.0.1", forwarded: str | None = None) -> tuple[int, dict]:
        status, head, _ = limited.request("GET", "/v1/guides?q=oom", source=source,
                                          headers={"X-Forwarded-For": forwarded} if forwarded else None)
        return status, head

    # 127.0.0.1 is no trusted proxy: the address it writes into X-Forwarded-For is not believed.
    assert [ask(forwarded=f"198.51.100.{n}")[0] for n in range(4)] == [200, 200, 200, 429]
    status, head = ask()
    assert status == 429 and 1 <= int(head["retry-after"]) <= 60
    assert limited.json("GET", "/healthz")[0] == 200  # health checks are not counted
    # Behind the trusted proxy each client has its own budget, by the address the proxy saw.
    assert [ask("127.0.0.2", "203.0.113.7")[0] for _ in range(4)] == [200, 200, 200, 429]
    assert ask("127.0.0.2", "203.0.113.8")[0] == 200
    # A client that writes an address of its own in front gains nothing: the proxy's entry counts.
    assert ask("127.0.0.2", "192.0.2.99, 203.0.113.7")[0] == 429
    status, head, data = limited.request("GET", "/v1/guides", source="127.0.0.2", headers={"X-Forwarded-For": "203.0.113.7"})
    jsonschema.validate(json.loads(data), _schema(spec, "/v1/guides", "get", 429))
