"""The front door (kb.diagnosis): one call gives everything the page, `kb match` and the API show."""
from __future__ import annotations

import json
from urllib.parse import unquote_plus

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
    assert top.scope == "specific" and top.addresses and top.triage is None and top.status == "unresolved"
    assert top.title["en"].startswith("DeepSeek-V4.1 on SM120") and top.title["zh"].startswith("SM120 上运行")
    assert top.checks["gpu-sm120"].status == "pass" and top.fit[0].verdict == "fits"
    assert d.environment is not None and d.environment.gpus
    assert d.root == {"line": 13, "text": d.root["text"], "covered": True, "triage": False}
    assert d.unmatched is None  # answered: nothing to queue
    # An answer has its upstream searches too: a newer report may know more than the guide.
    assert d.upstream and d.upstream[0].repo == "vllm-project/vllm"
    assert unquote_plus(d.upstream[0].url).endswith("?q=is:issue " + d.upstream[0].query) and "64" not in d.upstream[0].query
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
    assert d.upstream and d.upstream[0].repo == "vllm-project/vllm"
    assert all("hf_AbCdEf" not in u.url and "10.1.2.3" not in u.url and "alice" not in u.url for u in d.upstream)
    for secret in ("alice", "10.1.2.3", "hf_AbCdEfGh"):
        assert secret not in d.unmatched and secret not in d.skeleton()
    out = as_json(d)
    assert [u["url"] for u in out["upstream"]] == [u.url for u in d.upstream] and out["root_error"]["covered"] is False


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


def test_a_class_guide_leads_as_its_triage_procedure(index):
    # sgl-project/sglang#8131: an undefined CUDA driver API symbol; the old-driver class guide fits.
    d = diagnose(index, read("pastes/sglang8131-cugreenctx-undefined-symbol.log"))
    first = d.results[0]
    assert (first.id, first.tier, first.scope) == ("cuda-driver-or-ptxas-too-old", "triage", "class")
    assert first.addresses and not first.answers and not d.answered and d.triaged and d.answer is None
    assert first.triage["symbol"]["owner"] == "CUDA driver" and d.root["triage"] is True
    out = as_json(d)
    assert out["matches"][0]["tier"] == out["matches"][0]["confidence"] == "triage"
    assert out["matches"][0]["triage"] == first.triage
    assert all("triage" not in m for m in out["matches"] if m["tier"] != "triage")
    text = as_text(d)
    assert "The first result is a triage procedure for its family of errors" in text
    assert any(ln.startswith("1. [TRIAGE ") and "cuda-driver-or-ptxas-too-old (" in ln and ", class)" in ln
               for ln in text.splitlines())
    assert "https://github.com/sgl-project/sglang/issues?q=" in text  # the upstream search, as on the page
    assert d.unmatched  # nothing answers: the queue gets its signature
