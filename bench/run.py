"""Benchmark: a synthetic knowledge base of N guides, loaded, cached and matched.

    python bench/run.py --guides 10000 [--json] [--seed 0] [--dir DIR] [--no-app]

One run measures, each part in a fresh process:

- cold: load and index the N guides from YAML (kb.engine.index.load_index); then the index
  cache is written (kb/engine/cache.py) and the cache key is checked to change when a guide does;
- warm: a new process loads the index from that cache (kb.engine.cache.load_index_cached), then
  matches pastes of 2 KB, 100 KB and 1 MB (median and p99 over repeated runs, after one
  untimed warm-up per paste) — peak memory is this serving process's, read before the
  naive baseline runs — and then the same pastes with the naive approach: every
  signature and context pattern of every guide tried on the whole (parsed) paste, each
  pattern compiled beforehand and searched over the paste's UTF-8 bytes once;
- app: the Streamlit app on the same base (KB_GUIDES_DIR), a guide page opened with
  streamlit.testing AppTest: the first run and then reruns.

The synthetic guides are written to a temporary folder and removed (or kept in --dir,
and reused there while N, the seed and the real guides are the same). Figures are
seconds (_s), milliseconds (_ms) and megabytes (_mb). Benchmarks are not tests: nothing
here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

SIZES = {"2KB": 2_000, "100KB": 100_000, "1MB": 1_000_000}
RUNS = {"2KB": 100, "100KB": 30, "1MB": 10}
NAIVE_RUNS = {"2KB": 5, "100KB": 3, "1MB": 2}
PASTES_PER_SIZE = 5
# Real pastes that nothing answers on the base: the likely and similar tiers then run in full.
# They are the wide sample's (tests/data/wide/cases.jsonl), in file order, the first NO_MATCH
# of them that get no confident answer; each timed NO_MATCH_RUNS times after a warm-up.
NO_MATCH_SOURCE = ROOT / "tests" / "data" / "wide" / "cases.jsonl"
NO_MATCH = 40
NO_MATCH_RUNS = 3
# The targets of issue 20 (section 6), at 50,000 guides on 2 cores: (figure, at most, unit, what).
TARGETS = [("match_100KB_median_ms", 3.0, "ms", "100 KB paste, median"),
           ("no_match_p95_ms", 3.0, "ms", "real no-match paste, p95"),
           ("warm_load_s", 1.0, "s", "warm load"),
           ("peak_rss_mb", 500.0, "MB", "serving memory (peak)"),
           ("edit_rebuild_s", 2.0, "s", "rebuild after editing one guide"),
           ("cold_load_wall_s", 60.0, "s", "cold load, wall")]
NAIVE_BUDGET_S = 120.0  # above this (estimated) the naive baseline runs on a sample of patterns, scaled


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def _stats(ms: list[float]) -> dict:
    return {"median": round(statistics.median(ms), 3), "p99": round(_pct(ms, 0.99), 3)}


# ---------------------------------------------------------------------------------------
# Workers (each in its own process).

def worker_cold(kb: Path, cache: Path) -> dict:
    from kb.engine.cache import _write, cache_key, cache_path, files_cache
    from kb.engine.index import load_index
    files = files_cache(kb, cache)  # empty: every guide is read, and each one's entry kept for a later rebuild
    t0 = time.perf_counter()
    index = load_index(kb, files)
    cold = time.perf_counter() - t0
    peak = _peak_mb()
    key = cache_key(kb)
    t0 = time.perf_counter()
    path = cache_path(kb, cache)
    files.save()
    _write(path, key, index)
    write = time.perf_counter() - t0
    # The cache is invalidated when a guide changes: touch one, see the key change, restore it.
    probe = next(iter(sorted(kb.rglob("*.yaml"))))
    st = probe.stat()
    os.utime(probe, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    changed = cache_key(kb) != key
    os.utime(probe, ns=(st.st_atime_ns, st.st_mtime_ns))
    return {"cold_load_s": round(cold, 3), "cold_peak_rss_mb": peak, "cache_write_s": round(write, 3),
            "cache_mb": round(path.stat().st_size / 1e6, 1), "files_cache_mb": round(files.path.stat().st_size / 1e6, 1), "cache_invalidated_on_change": changed,
            "cache_key_restored": cache_key(kb) == key, "guides_loaded": len(index.guides),
            "patterns": len(index.patterns), "problems": len(index.problems)}


def _pastes(index, seed: int) -> dict[str, list[tuple[str, str]]]:
    import synth
    rng = random.Random(f"bench:{seed}")
    ids = synth.paste_targets(index)
    out = {}
    for label, size in SIZES.items():
        out[label] = []
        for k in range(PASTES_PER_SIZE):
            gid = ids[rng.randrange(len(ids))]
            raw = index.guides[gid].raw_errors[0].text
            out[label].append((gid, synth.make_paste(size, raw, seed * 1000 + k)))
    return out


def _right_first(res, gid: str) -> bool:
    """The pasted guide first with a match, or a guide that matched the same line with more of
    its context found: the synthetic pastes are vLLM worker logs, so a generic guide's error in
    them can rightly go to its vLLM-specific sibling."""
    from kb.engine.tiers import SCOPE_TIER

    def own_tier(m) -> bool:  # a class guide answers as its triage procedure
        return m.confidence == SCOPE_TIER[m.scope].name
    if not res.matches or not own_tier(res.matches[0]):
        return False
    top = res.matches[0]
    if top.guide_id == gid:
        return True
    return any(m.guide_id == gid and own_tier(m) and m.first_line == top.first_line
               and any(k == "less_context" for k, _ in m.notes) for m in res.matches[1:])


def worker_warm(kb: Path, cache: Path, seed: int) -> dict:
    from kb.engine.cache import load_index_cached
    from kb.engine.match import match
    from kb.engine.parse import parse
    t0 = time.perf_counter()
    index = load_index_cached(kb, cache)
    warm = time.perf_counter() - t0
    pastes = _pastes(index, seed)
    match_ms, parse_ms, after_parse_ms, correct, total = {}, {}, {}, 0, 0
    for label, items in pastes.items():
        for gid, text in items:  # warm-up: RE2 compiles the patterns it verifies on first use
            res = match(index, text)
            total += 1
            correct += _right_first(res, gid)
        times, ptimes, atimes = [], [], []
        for r in range(RUNS[label]):
            _, text = items[r % len(items)]
            t0 = time.perf_counter()
            paste = parse(text)  # what match(index, text) does first: the part every approach shares
            t1 = time.perf_counter()
            match(index, paste)
            t2 = time.perf_counter()
            times.append((t2 - t0) * 1000)
            ptimes.append((t1 - t0) * 1000)
            atimes.append((t2 - t1) * 1000)
        match_ms[label] = _stats(times)
        parse_ms[label] = round(statistics.median(ptimes), 3)
        after_parse_ms[label] = round(statistics.median(atimes), 3)
    no_match = _no_match(index)
    peak = _peak_mb()

    # The naive approach: every pattern on the whole paste.
    import re2
    patterns = [p.compiled.pattern for p in index.patterns]
    t0 = time.perf_counter()
    compiled = []
    for pat in patterns:
        try:
            compiled.append(re2.compile(pat.encode("utf-8")))
        except Exception:  # noqa: BLE001 - a pattern RE2 accepts as text but not as bytes: skip it
            pass
    naive_compile = time.perf_counter() - t0
    _, probe_text = pastes["1MB"][0]
    probe = parse(probe_text).text.encode("utf-8")
    t0 = time.perf_counter()
    for rx in compiled[:200]:
        rx.search(probe)
    per_pattern_1mb = (time.perf_counter() - t0) / max(1, min(200, len(compiled)))
    est = per_pattern_1mb * len(compiled) * sum(NAIVE_RUNS.values()) * 1.2
    sample = compiled
    fraction = 1.0
    if est > NAIVE_BUDGET_S:
        fraction = NAIVE_BUDGET_S / est
        sample = random.Random(seed).sample(compiled, max(1, int(len(compiled) * fraction)))
        fraction = len(sample) / len(compiled)
    naive_ms, naive_search_ms = {}, {}
    for label, items in pastes.items():
        times, stimes = [], []
        for r in range(NAIVE_RUNS[label]):
            _, text = items[r % len(items)]
            t0 = time.perf_counter()
            subject = parse(text).text.encode("utf-8")
            t_parse = time.perf_counter() - t0
            t0 = time.perf_counter()
            for rx in sample:
                rx.search(subject)
            t_search = (time.perf_counter() - t0) / fraction
            times.append((t_parse + t_search) * 1000)
            stimes.append(t_search * 1000)
        naive_ms[label] = _stats(times)
        naive_search_ms[label] = round(statistics.median(stimes), 3)
    return {"warm_load_s": round(warm, 3), "match_ms": match_ms, "naive_ms": naive_ms, "peak_rss_mb": peak, "parse_ms": parse_ms,
            "match_after_parse_ms": after_parse_ms, "naive_search_ms": naive_search_ms,
            "match_correct": round(correct / total, 3), "naive_patterns": len(compiled),
            "naive_sampled_fraction": round(fraction, 4), "naive_compile_s": round(naive_compile, 2), **no_match}


def _no_match(index) -> dict:
    """Match times of real pastes that nothing answers on this base (see NO_MATCH_SOURCE)."""
    from kb.engine.match import match
    chosen: list[str] = []
    with NO_MATCH_SOURCE.open(encoding="utf-8") as f:
        for line in f:
            text = json.loads(line)["text"]
            if not match(index, text).confident:  # also the warm-up
                chosen.append(text)
                if len(chosen) >= NO_MATCH:
                    break
    times = []
    for _ in range(NO_MATCH_RUNS):
        for text in chosen:
            t0 = time.perf_counter()
            match(index, text)
            times.append((time.perf_counter() - t0) * 1000)
    if not times:
        return {"no_match_pastes": 0}
    return {"no_match_pastes": len(chosen), "no_match_median_ms": round(statistics.median(times), 3),
            "no_match_p95_ms": round(_pct(times, 0.95), 3), "no_match_max_ms": round(max(times), 3)}


def worker_edit(kb: Path, cache: Path) -> dict:
    """Edit one guide (a comment line added: a new size and mtime, the same guide), then rebuild as
    load_index_cached does when its key changed: the time to the rebuilt index (cache files
    written). The file is restored after."""
    from kb.engine.cache import load_index_cached, rebuild
    t0 = time.perf_counter()
    before = load_index_cached(kb, cache)
    warm = time.perf_counter() - t0
    probe = sorted(kb.rglob("*.yaml"))[len(before.guides) // 2]
    st = probe.stat()
    original = probe.read_bytes()
    try:
        probe.write_bytes(original + b"\n# edited by bench/run.py\n")
        t0 = time.perf_counter()
        after, files = rebuild(kb, cache)  # what load_index_cached does when the key changed
        rebuilt = time.perf_counter() - t0
        same = sorted(after.guides) == sorted(before.guides) and len(after.patterns) == len(before.patterns)
    finally:
        probe.write_bytes(original)
        os.utime(probe, ns=(st.st_atime_ns, st.st_mtime_ns))
    return {"edit_rebuild_s": round(rebuilt, 3), "edit_same_index": same, "edit_reprepared": len(files.prepared), "edit_warm_before_s": round(warm, 3)}


def worker_app(kb: Path, cache: Path, runs: int = 5) -> dict:
    os.environ["KB_GUIDES_DIR"] = str(kb)
    os.environ["KB_CACHE_DIR"] = str(cache)
    from streamlit.testing.v1 import AppTest

    from kb.engine.cache import load_index_cached
    gid = sorted(load_index_cached(kb, cache).guides)[len(os.listdir(kb)) % 7]
    os.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["guide"] = gid
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    if at.exception:
        return {"app_error": str(at.exception[0].value)[:300]}
    shown = any(gid in str(getattr(e, "value", "")) or gid in str(getattr(e, "body", "")) for e in at.main) or bool(at.title)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - t0) * 1000)
    return {"app_first_run_s": round(first, 3), "app_rerun_ms": _stats(times), "app_guide": gid,
            "app_page_rendered": shown, "app_peak_rss_mb": _peak_mb()}


# ---------------------------------------------------------------------------------------

def _sub(kind: str, kb: Path, cache: Path, seed: int, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--dir", str(kb), "--cache", str(cache), "--seed", str(seed)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"bench worker {kind!r} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(n: int, seed: int, keep: Path | None, app: bool, timeout: float) -> dict:
    import synth
    tmp = None
    if keep is None:
        tmp = Path(tempfile.mkdtemp(prefix=f"kb-bench-{n}-"))
        kb = tmp / "guides"
    else:
        kb = keep
    cache = Path(tempfile.mkdtemp(prefix="kb-bench-cache-"))
    try:
        t0 = time.perf_counter()
        load_start = round(os.getloadavg()[0], 2)
        gen = synth.generate(n, kb, seed)
        gen_s = time.perf_counter() - t0
        out: dict = {"guides": n}
        t1 = time.perf_counter()
        cold = _sub("cold", kb, cache, seed, timeout)
        cold["cold_load_wall_s"] = round(time.perf_counter() - t1, 3)  # the whole process: start, imports, load, cache written
        warm = _sub("warm", kb, cache, seed, timeout)
        out.update({"cold_load_s": cold["cold_load_s"], "warm_load_s": warm["warm_load_s"],
                    "match_ms": warm["match_ms"], "naive_ms": warm["naive_ms"],
                    "speedup_100KB": round(warm["naive_ms"]["100KB"]["median"] / max(1e-9, warm["match_ms"]["100KB"]["median"]), 1),
                    "peak_rss_mb": warm["peak_rss_mb"]})
        out["speedup_100KB_after_parse"] = round(warm["naive_search_ms"]["100KB"] / max(1e-3, warm["match_after_parse_ms"]["100KB"]), 1)
        out.update({k: v for k, v in cold.items() if k not in out})
        out.update({k: v for k, v in warm.items() if k not in out})
        out["generate_s"] = round(gen_s, 1) if gen.get("written") else 0.0
        if app:
            if (ROOT / "app.py").exists():
                try:
                    out.update(_sub("app", kb, cache, seed, timeout))
                except (SystemExit, subprocess.TimeoutExpired) as exc:
                    out["app_error"] = str(exc)[-500:]
            else:
                out["app_error"] = "no app.py"
        out.update(_sub("edit", kb, cache, seed, timeout))  # last: it rewrites the cache
        out["match_100KB_median_ms"] = out["match_ms"]["100KB"]["median"]
        out["guide_set"] = {"kind": "synthetic (bench/synth.py)", "guides": n, "seed": seed,
                            "fingerprint": gen.get("fingerprint"), "real_sources": _real_count()}
        out["targets"] = {name: {"at_most": limit, "measured": out.get(name), "met": out.get(name) is not None and out[name] <= limit}
                          for name, limit, _, _ in TARGETS}
        out["machine"] = {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2), "load_avg_1m_start": load_start, "python": sys.version.split()[0]}
        return out
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _real_count() -> int:
    from kb.guides.load import GUIDES_DIR, guide_files
    return len(guide_files(GUIDES_DIR))


def text_report(r: dict) -> str:
    gs = r.get("guide_set", {})
    lines = [f"Guide set: {gs.get('kind', 'synthetic')}, {r['guides']:,} guides, seed {gs.get('seed')}, fingerprint {gs.get('fingerprint')} "
             f"(from {gs.get('real_sources')} real guide files)",
             f"Synthetic knowledge base: {r['guides']:,} guides ({r.get('patterns', '?'):,} patterns), {r['machine']['cpus']} CPUs, "
             f"load average {r['machine'].get('load_avg_1m_start')} at the start, {r['machine']['load_avg_1m']} at the end",
             f"  cold load + index from YAML  {r['cold_load_s']:8.2f} s   (peak {r.get('cold_peak_rss_mb')} MB)",
             f"  warm load from the cache     {r['warm_load_s']:8.3f} s   (cache {r.get('cache_mb')} MB, invalidated on change: {r.get('cache_invalidated_on_change')})",
             f"  peak memory, serving process {r['peak_rss_mb']:8.1f} MB",
             "  paste      match median / p99 ms      naive median ms     ratio"]
    for label in SIZES:
        m, nv = r["match_ms"][label], r["naive_ms"][label]
        lines.append(f"  {label:6} {m['median']:12.2f} / {m['p99']:<10.2f} {nv['median']:16.1f} {nv['median'] / max(1e-9, m['median']):9.0f}x")
    lines.append("  reading the paste (kb.engine.parse, shared by both): " + ", ".join(f"{k} {v:.1f} ms" for k, v in r.get("parse_ms", {}).items()))
    lines.append("  after it, matcher vs naive: " + ", ".join(f"{k} {r['match_after_parse_ms'][k]:.2f} vs {r['naive_search_ms'][k]:.1f} ms" for k in SIZES)
                 + f" ({r.get('speedup_100KB_after_parse')}x at 100KB)")
    lines.append(f"  matches correct (first, confident): {100 * r.get('match_correct', 0):.0f}%"
                 + (f"; naive on {100 * r['naive_sampled_fraction']:.1f}% of patterns, scaled" if r.get("naive_sampled_fraction", 1) < 1 else ""))
    if r.get("no_match_pastes"):
        lines.append(f"  real no-match pastes ({r['no_match_pastes']} of {NO_MATCH_SOURCE.relative_to(ROOT)}, x{NO_MATCH_RUNS}): "
                     f"median {r['no_match_median_ms']:.2f} ms, p95 {r['no_match_p95_ms']:.2f} ms, max {r['no_match_max_ms']:.2f} ms")
    lines.append(f"  rebuild after editing one guide {r.get('edit_rebuild_s')} s (same index: {r.get('edit_same_index')}, files prepared again: {r.get('edit_reprepared')}); "
                 f"cold load wall (its whole process) {r.get('cold_load_wall_s')} s")
    lines.append("  targets (issue 20, at 50,000 guides):")
    for name, limit, unit, what in TARGETS:
        t = r.get("targets", {}).get(name, {})
        lines.append(f"    {what:34} {t.get('measured')!s:>9} {unit:2} <= {limit:g} {unit:2}  {'met' if t.get('met') else 'NOT met'}")
    if "app_rerun_ms" in r:
        lines.append(f"  Streamlit guide page (AppTest): first run {r['app_first_run_s']:.2f} s, rerun median {r['app_rerun_ms']['median']:.0f} ms "
                     f"(p99 {r['app_rerun_ms']['p99']:.0f} ms), peak {r.get('app_peak_rss_mb')} MB")
    elif "app_error" in r:
        lines.append(f"  Streamlit: not measured ({r['app_error'][:200]})")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark the knowledge base on N synthetic guides.")
    ap.add_argument("--guides", type=int, metavar="N")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", type=Path, help="write (or reuse) the synthetic guides here instead of a temporary folder")
    ap.add_argument("--no-app", action="store_true", help="skip the Streamlit measurement")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds allowed to each part")
    ap.add_argument("--save", type=Path, metavar="FILE", help="also write the result, with how it was measured, to FILE "
                    "(bench/results/scale-N.json is what the README's tables are rendered from)")
    ap.add_argument("--worker", choices=["cold", "warm", "app", "edit"], help=argparse.SUPPRESS)
    ap.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        fn = {"cold": lambda: worker_cold(args.dir, args.cache), "warm": lambda: worker_warm(args.dir, args.cache, args.seed),
              "app": lambda: worker_app(args.dir, args.cache), "edit": lambda: worker_edit(args.dir, args.cache)}[args.worker]
        print(json.dumps(fn()))
        return 0
    if not args.guides or args.guides < 1:
        ap.error("--guides N is required (N >= 1)")
    result = run(args.guides, args.seed, args.dir, not args.no_app, args.timeout)
    print(json.dumps(result, indent=2) if args.json else text_report(result), end="" if not args.json else "\n")
    if args.save:
        import results
        results.save(args.save, "python bench/run.py " + " ".join(a for a in (argv if argv is not None else sys.argv[1:])), result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
