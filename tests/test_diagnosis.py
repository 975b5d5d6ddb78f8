"""The front door (kb.diagnosis): one call gives everything the page, `kb match` and the API show."""
from __future__ import annotations

import json

import pytest

from kb.diagnosis import as_json, as_text, diagnose, matched_rows
from tests.conftest import read
from tests.test_app import app, no_crash

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
SM120 = "env/vllm_collect_env_rtxpro6000_head.txt"
UNMATCHED = ('Traceback (most recent call last):\n  File "/home/alice/site-packages/vllm/x.py", line 7, in run\n'
             "ZeroDivisionError: division by zero at 10.1.2.3 token hf_AbCdEfGhIjKlMnOpQrStUvWxYz123456\n")


@pytest.fixture
def parses(monkeypatch):
    """How often an environment report is parsed (the real parser, counted)."""
    import kb.engine.environment as environment
    calls: list[int] = []
    real = environment.parse_report

    def counted(text):
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(environment, "parse_report", counted)
    return calls


def test_one_diagnosis_holds_what_a_card_shows(index, parses):
    d = diagnose(index, read("pastes/seed1-serve.log"), read(SM120))
    assert len(parses) == 1  # the box's report, parsed once, for ranking, facts and checks alike
    top = d.answer
    assert top is not None and top.id == SEED1 and top.tier == "match" and top.answers
    assert top.scope in ("specific", "generic") and top.status == "unresolved"
    assert top.title["en"].startswith("DeepSeek-V4.1 on SM120") and top.title["zh"].startswith("SM120 上运行")
    assert top.checks["gpu-sm120"].status == "pass" and top.fit[0].verdict == "fits"
    assert d.environment is not None and d.environment.gpus and d.root == {"line": 13, "text": d.root["text"], "covered": True}
    assert d.upstream is None and d.unmatched is None  # answered: nothing to search upstream, nothing to queue
    rows = matched_rows(d, top)
    hit = next(r for r in rows if r.hit)
    assert hit.no == 13 and hit.text[hit.hit[0]:hit.hit[1]] == "No common block size for 64"
    assert hit.text == read("pastes/seed1-serve.log").splitlines()[12]  # as pasted, log prefix and all


def test_the_page_parses_the_report_once_per_diagnosis(parses):
    at = app()
    at.text_area(key="env_text").input(read(SM120))
    at.text_area(key="paste").input(read("pastes/seed1-serve.log")).run()
    no_crash(at)
    assert len(parses) == 1
    at.button(key="find").click().run()  # a rerun keeps the diagnosis
    assert len(parses) == 1


def test_no_answer_gives_the_upstream_search_and_a_redacted_signature(index):
    d = diagnose(index, UNMATCHED)
    assert not d.answered and d.root is not None
    assert d.upstream is not None and d.upstream.repo == "vllm-project/vllm"
    assert "hf_AbCdEf" not in d.upstream.url and "10.1.2.3" not in d.upstream.url
    for secret in ("alice", "10.1.2.3", "hf_AbCdEfGh"):
        assert secret not in d.unmatched and secret not in d.skeleton()
    out = as_json(d)
    assert out["upstream"]["url"] == d.upstream.url and out["root_error"]["covered"] is False


def test_json_and_text_in_either_language_from_one_diagnosis(index):
    d = diagnose(index, read("pastes/seed1-serve.log"), lang="zh")
    zh, en = as_json(d), as_json(d, "en")
    assert zh["matches"][0]["title"].startswith("SM120 上运行") and en["matches"][0]["title"].startswith("DeepSeek")
    assert "第 13 行" in zh["matches"][0]["explanation"]["text"] and "Line 13" in en["matches"][0]["explanation"]["text"]
    assert json.loads(json.dumps(en)) == en  # plain JSON all the way down
    assert as_text(d, "en").startswith("1. [MATCH") and SEED1 in as_text(d, "en").splitlines()[0]
    assert "environment" not in en and all("checks" not in m for m in en["matches"])  # no report, no checks


def test_an_empty_paste(index):
    d = diagnose(index, " \n")
    assert d.empty and d.results == [] and as_text(d) == "Nothing to match: the input is empty.\n"
