"""Where an unmatched error is reported upstream, and whether a paste stops short: on real
pastes (tests/data) and the guides' raw errors, which are real too."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from kb.engine.completeness import cut_notes
from kb.engine.parse import parse
from kb.engine.upstream import PROJECTS, issue_search_url, project_of, root_error_line, search_terms
from kb.text import CUT as MESSAGES
from kb.text import say as word
from tests.conftest import DATA, read


def raw(index, gid: str, n: int = 0) -> str:
    return index.guides[gid].raw_errors[n].text


def case(name: str, cid: str) -> str:
    return next(json.loads(line)["text"] for line in (DATA / name).read_text().splitlines() if line.strip() and json.loads(line)["id"] == cid)


@pytest.mark.parametrize("gid, project", [
    ("vllm-workerproc-initialization-failed", "vLLM"),  # torch frames inside vLLM's: vLLM is where it is reported
    ("sglang-capture-cuda-graph-failed", "SGLang"),
    ("chat-template-missing-transformers-444", "Transformers"),
    ("flash-attn-2-cuda-undefined-symbol", "FlashAttention"),
    ("xformers-cant-load-cpp-cuda-extensions", "xFormers"),
    ("tensors-on-different-devices", "PyTorch"),  # a user's script and torch: PyTorch
    ("trtllm-failed-to-deserialize-engine", "TensorRT-LLM"),  # no frame in a package: the package it names
])
def test_project_follows_from_frames_then_names(index, gid, project):
    found = project_of(parse(raw(index, gid)))
    assert found is not None and found.name == project


def test_no_project_when_nothing_names_one(index):
    assert project_of(parse(raw(index, "tp-size-must-divide-attention-heads"))) is None
    assert project_of(parse("ZeroDivisionError: division by zero\n")) is None


def test_search_url_holds_the_root_error_without_paths_or_numbers():
    paste = parse(read("pastes/seed1-serve.log"))
    project = project_of(paste)
    line = root_error_line(paste)
    assert project.repo == "vllm-project/vllm"
    assert line == "ValueError: No common block size for 64"  # the worker's error, not the API server's wrapper
    url = urlsplit(issue_search_url(project, line))
    assert (url.scheme, url.netloc, url.path) == ("https", "github.com", "/vllm-project/vllm/issues")
    assert parse_qs(url.query)["q"] == ["is:issue ValueError: No common block size"]
    terms = search_terms('OSError: /home/alice/model/config.json not found at 0x7f3a2b1c (size 4096) for "my model"')
    assert "alice" not in terms and "0x7f" not in terms and "4096" not in terms and '"' not in terms
    assert terms.startswith("OSError:") and "not found at" in terms


def test_an_error_whose_message_is_on_the_next_line(index):
    line = root_error_line(parse(raw(index, "bitsandbytes-cuda-setup-failed")))
    assert line.startswith("RuntimeError: CUDA Setup failed despite GPU being available")


def test_too_few_words_give_no_search():
    assert issue_search_url(PROJECTS[0], "RuntimeError:") is None


def test_every_project_is_a_github_repository():
    assert len({p.repo for p in PROJECTS}) == len(PROJECTS)
    assert all(p.repo.count("/") == 1 and " " not in p.repo and p.packages for p in PROJECTS)


# ------------------------------------------------------------------ completeness ---

def test_whole_real_pastes_are_not_called_cut():
    for name in ("pastes/seed1-serve.log", "pastes/seed2-serve.log"):
        assert cut_notes(parse(read(name))) == []
    for name in sorted((DATA / "env").glob("*.txt")):
        assert cut_notes(parse(name.read_text())) == [], name


def test_traceback_cut_before_its_error_line():
    lines = read("pastes/seed1-serve.log").splitlines()
    error = next(i for i, ln in enumerate(lines) if "ValueError: No common block size" in ln)
    header = next(i for i in range(error, -1, -1) if "Traceback (most recent call last):" in lines[i])
    assert cut_notes(parse("\n".join(lines[:error]) + "\n")) == [("traceback_cut", {"line": header + 1})]
    # A copy that stops inside the traceback's first frame line: both notes.
    frame = lines[header + 1]
    stop = frame.index('File "') + 12
    assert cut_notes(parse("\n".join(lines[:header + 1]) + "\n" + frame[:stop])) == [
        ("traceback_cut", {"line": header + 1}), ("ends_mid_line", {})]


def test_a_real_paste_that_ends_mid_line():
    # From the held-out set: the person's copy stops inside the quoted type name.
    assert cut_notes(parse(case("heldout.jsonl", "H-null-vllm-openai-typeerror"))) == [("ends_mid_line", {})]
    # A whole vLLM message that leaves a parenthesis open, and a source line that ends on one, are whole.
    assert cut_notes(parse("ValueError: max seq len (8192), (1.00 GiB KV cache is needed, which is larger.\n")) == []
    assert cut_notes(parse("UserWarning: found GPU0 which is of cuda capability 12.0.\n  warnings.warn(\n")) == []


def test_cut_notes_are_worded_in_both_languages():
    for en, zh in MESSAGES.values():
        assert en and zh
    assert "line 7" in word("traceback_cut", "en", line=7) and "第 7 行" in word("traceback_cut", "zh", line=7)


def test_the_no_match_page_offers_the_upstream_search_and_says_the_traceback_is_cut():
    from tests.test_app import app, no_crash, texts
    # T-A-010 (tuned part of the traffic set): a real vLLM traceback the excerpt cut before its error line.
    paste = case("traffic/cases.jsonl", "T-A-010")
    at = app()
    at.text_area(key="paste").input(paste).run()
    no_crash(at)
    shown = texts(at)
    # No error line: the root-missing triage leads (what to paste instead), with the search beside it.
    assert "The paste does not hold its root error" in shown
    links = at.get("link_button")
    assert len(links) == 1 and links[0].proto.label == "Search vLLM issues"
    url = urlsplit(links[0].proto.url)
    assert url.netloc == "github.com" and url.path == "/vllm-project/vllm/issues"
    assert parse_qs(url.query)["q"][0].startswith("is:issue")
    header = next(ln.no for ln in parse(paste).lines if ln.text.startswith("Traceback"))
    assert header and f"The traceback that starts on line {header} stops before its error line" in shown


def test_the_upstream_search_carries_no_secret():
    from tests.test_app import app
    paste = ('Traceback (most recent call last):\n  File "/home/alice/.venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py", line 3, in x\n'
             "OSError: token hf_AbCdEfGhIjKlMnOpQrStUvWxYz123456 refused for bob@example.com at 10.1.2.3\n")
    at = app()
    at.text_area(key="paste").input(paste).run()
    url = at.get("link_button")[0].proto.url
    for secret in ("hf_AbCd", "bob", "example.com", "10.1.2.3", "alice"):
        assert secret not in url, (secret, url)
    assert "OSError%3A+token" in url


def test_the_upstream_query_of_real_pastes_keeps_no_home_paths(index):
    # Real pastes (tests/data/wide/cases.jsonl) whose root error line carries /home/… paths: a
    # conda env's site-packages, a model directory on the command line, an egg's path.
    import json
    from urllib.parse import parse_qs, urlparse

    from kb.diagnosis import diagnose
    cases = {c["id"]: c["text"] for c in map(json.loads, (DATA / "wide" / "cases.jsonl").read_text(encoding="utf-8").splitlines())}
    for case in ("W-R1-057", "W-R1-189", "W-R3-114"):
        d = diagnose(index, cases[case])
        assert "/home/" in d.root["text"] and d.upstream, case
        for u in d.upstream:
            query = parse_qs(urlparse(u.url).query)["q"][0]
            assert "home" not in query.lower() and "/" not in query, (case, query)
            assert "yajuvendra" not in query and "Baichuan" not in query and "nvidia/venv" not in query, (case, query)
