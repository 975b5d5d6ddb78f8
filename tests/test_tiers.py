"""Tiers and guide scope: the tier registry, class guides never shown as a match, and the
wrong confident answers that class guides used to give, on real pastes."""
from __future__ import annotations

import json
import re

import pytest

from kb.diagnosis import as_json, diagnose
from kb.engine.match import match
from kb.engine.tiers import ADDRESSING, ANSWERING, SCOPE_TIER, TIERS, rank, tier
from kb.guides.load import load_guides
from tests.conftest import DATA, read

GUIDES = load_guides().guides
CLASS = sorted(g.id for g in GUIDES if g.scope == "class")
TUNED = {d["id"]: d for d in map(json.loads, (DATA / "traffic" / "cases.jsonl").read_text().splitlines())
         if d["split"] == "tuned"}
CORPUS = json.loads((DATA / "corpus" / "families.json").read_text())
ENV_REPORT = read("env/vllm_collect_env_8xh100_dstack.txt")  # vLLM 0.6.3, transformers 4.46.2, driver 550.90.12


def ranking(res) -> list[tuple[str, str]]:
    return [(m.guide_id, m.confidence) for m in res.matches]


def answer_json(index, text: str, env: str | None = None, lang: str = "en") -> dict:
    """`kb match --json`'s answer for `text`: the diagnosis of it, as JSON."""
    return as_json(diagnose(index, text, env, lang))


# --- the registry -----------------------------------------------------------------------

def test_tiers_rank_in_one_order_and_only_match_and_likely_answer():
    assert [t.name for t in sorted(TIERS.values(), key=lambda t: t.rank)] == ["match", "likely", "triage", "help", "similar"]
    assert len({t.rank for t in TIERS.values()}) == len(TIERS)
    assert ANSWERING == {"match", "likely"} and ADDRESSING == {"match", "likely", "triage"}
    assert rank("triage") > rank("likely") and rank("triage") < rank("help")
    assert SCOPE_TIER["specific"].name == "match" and SCOPE_TIER["class"].name == "triage"
    # A class guide's tier is worded and badged as a triage procedure, never as a match.
    assert "match" not in TIERS["triage"].says("en").lower() and TIERS["triage"].badge != TIERS["match"].badge
    with pytest.raises(KeyError):
        tier("confident")


@pytest.mark.parametrize("name", sorted(TIERS))
def test_every_tier_is_worded_in_both_languages(name):
    t = TIERS[name]
    assert t.says("en") and t.says("zh") and t.says("en") != t.says("zh") and t.tag
    assert (t.intro is None) == t.answers  # a tier that leads when nothing answers says so above the results
    for zh in (t.says("zh"), t.introduces("zh") or ""):
        assert not re.search(r"[\u4e00-\u9fff] +[\u4e00-\u9fff]", zh), zh


# --- class guides are never a match -----------------------------------------------------

@pytest.mark.parametrize("gid", CLASS)
def test_a_class_guide_is_never_shown_as_match_or_likely(index, gid):
    g = index.guides[gid]
    for text in [r.text for r in g.raw_errors] + [n.text for n in g.near_misses]:
        res = match(index, text)
        for m in res.matches:
            if m.scope == "class":
                assert m.confidence not in ANSWERING, (m.guide_id, m.confidence)
        first = res.matches[0] if res.matches else None
        assert first is None or first.confidence != "match" or first.scope == "specific"


def test_no_report_of_the_corpus_or_the_tuned_traffic_gets_a_class_guide_as_match(index):
    texts = [r["raw"] for f in CORPUS["families"] for r in f["reports"]] + [n["raw"] for n in CORPUS["negatives"]]
    texts += [d["text"] for d in TUNED.values()]
    wrong = [(m.guide_id, m.confidence) for t in texts for m in match(index, t).matches
             if m.scope == "class" and m.confidence in ANSWERING]
    assert not wrong, wrong[:10]


def test_a_specific_answer_ranks_above_a_class_guide_on_the_same_error(index):
    # sgl-project/sglang#13948: sgl_kernel's loader reports an undefined c10 symbol; the sgl-kernel guide names
    # that mechanism, the undefined-symbol guide only triages it.
    res = match(index, TUNED["T-C-061"]["text"])
    assert ranking(res)[:2] == [("sglang-sgl-kernel-import-failed", "match"), ("compiled-extension-undefined-symbol", "triage")]
    second = answer_json(index, TUNED["T-C-061"]["text"])["matches"][1]
    assert any("triage procedure for a family of errors" in n for n in second["explanation"]["reasons"])


# --- the wrong confident answers that stopped --------------------------------------------

@pytest.mark.parametrize("case", ["T-C-007", "T-C-008", "T-C-047", "T-C-049", "T-C-059", "T-B-092", "T-C-085", "T-A-038"])
def test_api_drift_is_triaged_by_the_version_mismatch_guide_not_matched(index, case):
    # cannot import name / module has no attribute / a dotted No module named / an unexpected keyword.
    res = match(index, TUNED[case]["text"])
    assert ranking(res)[0] == ("version-mismatch-after-upgrade", "triage")
    assert res.answer is None and res.triaged and not res.covered


def test_a_driver_api_symbol_is_not_matched_as_an_extension_built_for_another_torch(index):
    for name, symbol in (("sglang8131-cugreenctx-undefined-symbol.log", "cuGreenCtxStreamCreate"),
                         ("tilelang182-cutensormap-undefined-symbol.log", "cuTensorMapEncodeIm2col")):
        res = match(index, read(f"pastes/{name}"))
        assert not any(m.guide_id == "compiled-extension-undefined-symbol" and m.confidence == "match" for m in res.matches)
        first = res.matches[0]
        # The old-driver class guide leads (issue 17: a driver-API symbol is a driver older than the binary).
        assert (first.guide_id, first.confidence) == ("cuda-driver-or-ptxas-too-old", "triage")
        assert first.triage.missing == symbol and first.triage.owner == "CUDA driver"
        shown = answer_json(index, read(f"pastes/{name}"))["matches"][0]
        assert any("CUDA driver API (libcuda.so" in n for n in shown["explanation"]["reasons"])
        assert shown["triage"]["symbol"] == {"name": symbol, "library": first.triage.library, "owner": "CUDA driver"}
    assert first.triage.raised_in == "tilelang"  # a source checkout: the package folder holding __init__.py


def test_a_device_side_assert_in_a_serving_engine_leads_with_the_serving_guide(index):
    # sgl-project/sglang#271: the kernel's assertion lines, then the router's traceback through sglang.
    res = match(index, read("pastes/sglang271-device-side-assert-index-kernel.log"))
    assert ranking(res)[:2] == [("cuda-device-side-assert-in-serving-engine", "triage"),
                                ("cuda-device-side-assert-triggered", "triage")]
    assert res.answer is None


# --- the triage procedure filled in from the traceback and the report ---------------------

def test_triage_names_the_importer_and_the_provider_and_their_versions(index):
    # huggingface/transformers#17093: transformers imports create_repo from a huggingface_hub too old to have it.
    res = match(index, TUNED["T-C-008"]["text"], env_report=ENV_REPORT)
    t = res.matches[0].triage
    assert (t.raised_in, t.importer, t.imports, t.provider) == ("transformers", "transformers", "huggingface_hub", "huggingface_hub")
    assert "create_repo" in t.names and t.report
    assert dict(t.versions) == {"transformers": "4.46.2", "huggingface_hub": None}
    out = answer_json(index, TUNED["T-C-008"]["text"], ENV_REPORT)["matches"][0]
    assert out["tier"] == "triage" and out["scope"] == "class"
    assert out["triage"]["imports"]["by"] == "transformers" and out["triage"]["versions"]["transformers"] == "4.46.2"
    reasons = out["explanation"]["reasons"]
    assert any(r.startswith("transformers imports HfFolder, Repository, create_repo") and "from huggingface_hub" in r for r in reasons)
    assert "Versions in your environment report: transformers 4.46.2, huggingface_hub (not listed)." in reasons
    zh = answer_json(index, TUNED["T-C-008"]["text"], ENV_REPORT, "zh")["matches"][0]["explanation"]["reasons"]
    assert "环境报告中的版本：transformers 4.46.2，huggingface_hub（未列出）。" in zh


def test_triage_says_which_call_refused_a_keyword_and_asks_for_a_report(index):
    res = match(index, TUNED["T-A-038"]["text"])
    t = res.matches[0].triage
    assert (t.raised_in, t.called, t.missing) == ("vllm", "EngineArgs.__init__", "num_scheduler_steps")
    reasons = answer_json(index, TUNED["T-A-038"]["text"])["matches"][0]["explanation"]["reasons"]
    assert any("EngineArgs.__init__() does not take the keyword num_scheduler_steps" in r for r in reasons)
    assert any(r.startswith("Paste an environment report") and r.endswith("versions of vllm.") for r in reasons)
    res = match(index, TUNED["T-A-038"]["text"], env_report=ENV_REPORT)
    assert dict(res.matches[0].triage.versions) == {"vllm": "0.6.3.post2.dev308+gb489fc3c"}


def test_the_driver_version_comes_from_the_report_for_a_driver_api_symbol(index):
    res = match(index, read("pastes/sglang8131-cugreenctx-undefined-symbol.log"), env_report=ENV_REPORT)
    t = res.matches[0].triage
    assert (t.raised_in, t.library.rsplit("/", 1)[-1], t.provider) == ("sgl_kernel", "common_ops.abi3.so", "CUDA driver")
    assert dict(t.versions) == {"sgl_kernel": None, "NVIDIA driver": "550.90.12"}


def test_match_json_gives_every_result_its_tier_and_scope(index):
    out = answer_json(index, read("pastes/sglang271-device-side-assert-index-kernel.log"))
    assert out["root_error"]["triage"] is True and out["root_error"]["covered"] is False
    for m in out["matches"]:
        assert m["tier"] in TIERS and m["scope"] in ("specific", "class") and m["tier"] == m["confidence"]
        assert ("triage" in m) == (m["tier"] == "triage")


@pytest.mark.parametrize("paste", ["pastes/sglang8131-cugreenctx-undefined-symbol.log", "pastes/tilelang182-cutensormap-undefined-symbol.log",
                                   "pastes/sglang271-device-side-assert-index-kernel.log"])
@pytest.mark.parametrize("env", [None, ENV_REPORT], ids=["no-report", "report"])
def test_triage_reasons_in_chinese_have_no_stray_spaces(index, paste, env):
    for m in answer_json(index, read(paste), env, "zh")["matches"]:
        for r in m["explanation"]["reasons"]:
            assert not re.search(r"[\u4e00-\u9fff\uff09] +[\u4e00-\u9fff]", r), r
