"""The benchmark runs (small N, once) and reports every figure; the index cache is
correct. No timing is asserted: benchmarks are not tests."""
import json
import pickle
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def test_bench_runs_and_reports_every_figure():
    proc = subprocess.run([sys.executable, "bench/run.py", "--guides", "50", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["guides"] == 50 and r["guides_loaded"] == 50 and r["problems"] == 0
    for key in ("cold_load_s", "warm_load_s", "speedup_100KB", "peak_rss_mb"):
        assert isinstance(r[key], (int, float)) and r[key] >= 0, key
    for key in ("match_ms", "naive_ms"):
        assert set(r[key]) == {"2KB", "100KB", "1MB"}
        for size in r[key].values():
            assert set(size) == {"median", "p99"} and 0 <= size["median"] <= size["p99"]
    assert r["cache_invalidated_on_change"] is True and r["cache_key_restored"] is True
    assert r["match_correct"] == 1.0


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "bench"))
    import synth
    root = tmp_path_factory.mktemp("synth") / "guides"
    synth.generate(120, root, seed=3)
    return root


def test_synthetic_base_is_deterministic_and_valid(synthetic, tmp_path):
    import synth

    from kb.authoring.validate import validate
    from kb.engine.index import load_index
    again = tmp_path / "again"
    synth.generate(120, again, seed=3)
    files = sorted(p.relative_to(synthetic) for p in synthetic.rglob("*.yaml"))
    assert files == sorted(p.relative_to(again) for p in again.rglob("*.yaml")) and len(files) == 120
    assert all((synthetic / f).read_bytes() == (again / f).read_bytes() for f in files)
    assert validate(load_index(synthetic)) == []


def test_parallel_load_builds_the_same_index(synthetic, monkeypatch):
    from kb.engine.index import build_index, load_index
    from kb.guides.load import load_guides
    monkeypatch.setenv("KB_LOAD_WORKERS", "1")
    a = build_index(load_guides(synthetic))
    monkeypatch.setenv("KB_LOAD_WORKERS", "2")
    b = load_index(synthetic)
    assert list(a.guides) == list(b.guides)
    assert all(a.guides[k] == b.guides[k] and a.guides[k].model_dump(exclude_unset=True) == b.guides[k].model_dump(exclude_unset=True) for k in a.guides)
    assert (a.patterns, a.problems, a.paths, a.postings, a.doc_len, a.contexts) == (b.patterns, b.problems, b.paths, b.postings, b.doc_len, b.contexts)


def test_cache_round_trip_invalidation_and_corruption(synthetic, tmp_path):
    import shutil

    from kb.engine.cache import cache_path, load_index_cached
    from kb.engine.index import load_index
    from kb.engine.match import match
    synthetic = shutil.copytree(synthetic, tmp_path / "guides")  # this test edits a guide
    tmp_path = tmp_path / "cache"
    cold = load_index(synthetic)
    first = load_index_cached(synthetic, tmp_path)
    path = cache_path(synthetic, tmp_path)
    assert path.exists()
    warm = load_index_cached(synthetic, tmp_path)
    assert type(warm.guides).__name__ == "GuideStore"
    assert list(warm.guides) == list(cold.guides) and all(warm.guides[k] == cold.guides[k] for k in cold.guides)
    assert warm.patterns == cold.patterns and warm.postings == cold.postings and warm.paths == cold.paths
    assert warm.guides.components == cold.guides.components
    gid = next(iter(cold.guides))
    raw = cold.guides[gid].raw_errors[0].text
    assert [m.guide_id for m in match(warm, raw).matches] == [m.guide_id for m in match(cold, raw).matches]
    assert warm.similar(["cuda", "memory", "error"]) == cold.similar(["cuda", "memory", "error"])
    # A changed guide invalidates the cache.
    f = cold.paths[gid]
    f.write_text(f.read_text(encoding="utf-8").replace("title:", "title:", 1) + "\n", encoding="utf-8")
    stamp = path.stat().st_mtime_ns
    load_index_cached(synthetic, tmp_path)
    assert path.stat().st_mtime_ns != stamp
    # A corrupt cache is ignored and rebuilt.
    path.write_bytes(path.read_bytes()[:1000])
    again = load_index_cached(synthetic, tmp_path)
    assert list(again.guides) == list(first.guides)
    pickle.loads(path.read_bytes()[path.read_bytes().index(b"\x80"):])  # rewritten whole


def test_guide_store_is_a_read_only_mapping(index):
    from kb.engine.guidestore import GuideStore, decode_guide, encode_guide
    gid, g = next(iter(index.guides.items()))
    store = pickle.loads(pickle.dumps(GuideStore({gid: g})))
    assert list(store) == [gid] and len(store) == 1 and gid in store and "nope" not in store
    assert store[gid] == g and store.get("nope") is None and dict(store) == {gid: g}
    assert store[gid] is store[gid] and store.components == {gid: g.component}
    assert decode_guide(encode_guide(g)).model_dump(exclude_unset=True) == g.model_dump(exclude_unset=True)
    with pytest.raises(KeyError):
        store["nope"]


def test_click_benchmark_runs_in_the_browser():
    """bench/click_to_result.py at its smallest, through the real app and chromium: it reports every
    figure. Nothing about its speed is asserted."""
    import os
    import shutil
    if not os.path.exists(shutil.which("chromium") or "/usr/bin/chromium"):
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; scripts/install --dev installs it")
        pytest.skip("chromium not installed")
    proc = subprocess.run([sys.executable, "bench/click_to_result.py", "--bases", "real", "--sizes", "2KB", "--runs", "1", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = json.loads(proc.stdout)["bases"]["real"]
    size = r["sizes"]["2KB"]
    assert r["guides"] > 0 and len(size["first_ms"]) == 1 and size["top_correct"] == 1.0
    assert 0 < size["first_median_ms"] <= size["all_median_ms"]


def test_load_stages_times_every_stage_of_a_worker(synthetic):
    sys.path.insert(0, str(ROOT / "bench"))
    import load_stages
    per = load_stages.stages(synthetic, 10)
    assert list(per) == list(load_stages.STAGES) and all(ms >= 0 for ms in per.values())
