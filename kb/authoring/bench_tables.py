"""The benchmark tables of README.md and bench/README.md, rendered from the result files the
benchmark commands write (bench/results/*.json): timings depend on the machine, so they are
measured once, committed, and shown as measured."""
from __future__ import annotations

from kb.authoring.readme_blocks import RESULTS, BlockError, block, provenance, result_file, table

SCALE_TARGET_N = 10_000
# What bench/README.md sets out to reach on a knowledge base of 10,000 guides:
# (label, how to read the figure, "<" or ">=", bound, unit)
TARGETS = (
    ("warm load", lambda r: r["warm_load_s"], "<", 1, "s"),
    ("cold load", lambda r: r["cold_load_s"], "<", 10, "s"),
    ("100 KB paste, median", lambda r: r["match_ms"]["100KB"]["median"], "<", 20, "ms"),
    ("1 MB paste, median", lambda r: r["match_ms"]["1MB"]["median"], "<", 300, "ms"),
    ("peak memory, serving process", lambda r: r["peak_rss_mb"], "<", 500, "MB"),
    ("faster than naive at 100 KB", lambda r: r["speedup_100KB"], ">=", 50, "×"),
)


def num(x: float, unit: str) -> str:
    """A figure as the tables write it: three significant digits at most, thousands separated."""
    if unit == "×":
        return f"{x:,.0f}×" if x >= 100 else f"{x:.1f}×" if x < 10 else f"{x:.0f}×"
    if float(x).is_integer() and x >= 1:  # a bound, or a count: as it is
        return f"{int(x):,} {unit}"
    digits = 0 if x >= 100 else 1 if x >= 10 else 2 if unit != "s" or x < 1 else 1
    return f"{x:,.{digits}f} {unit}"


def _scales() -> list[dict]:
    files = sorted(RESULTS.glob("scale-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    if not files:
        raise BlockError("no bench/results/scale-N.json; write one with: python bench/run.py --guides N --json --save bench/results/scale-N.json")
    return [result_file(p.name) for p in files]


def _target(r: dict) -> list[tuple[str, str, bool]]:
    out = []
    for label, get, op, bound, unit in TARGETS:
        value = get(r)
        out.append((f"{label} {op.replace('>=', '≥')} {num(bound, unit)}", num(value, unit), value < bound if op == "<" else value >= bound))
    return out


def _provenances(files: list[dict]) -> str:
    """One line for runs of one command on one commit and machine, the load of each said."""
    same = {(d["commit"], d.get("dirty"), d["date"], str(d.get("machine", {}).get("cpu"))) for d in files}
    if len(files) == 1 or len(same) > 1:
        return "\n".join(f"- {provenance(d)}" for d in files)
    d, m = files[0], files[0].get("machine", {})
    tree = f"commit {d['commit']}" + (" with uncommitted changes" if d.get("dirty") else "")
    commands = ", ".join(f"`{x['command']}`" for x in files)
    loads = " / ".join(str(x.get("machine", {}).get("load_avg_1m", "?")) for x in files)
    return (f"Measured with {commands}, one after the other, on {tree}, {d['date']}, {m.get('cpus', '?')} CPUs "
            f"({m.get('cpu', '?')}); load average at the end of each: {loads}.")


@block("bench-scale", "python bench/run.py --guides N --json --save bench/results/scale-N.json")
def bench_scale() -> str:
    files = _scales()
    runs = [d["result"] for d in files]
    head = ["`python bench/run.py --guides N`"] + [f"{r['guides']:,}" + ("" if "app_rerun_ms" in r else " (`--no-app`)") for r in runs]
    def ms3(r: dict) -> str:
        return " / ".join(num(r["match_ms"][k]["median"], "ms").removesuffix(" ms") for k in ("2KB", "100KB", "1MB")) + " ms"
    rows = [
        ["cold load + index from YAML"] + [num(r["cold_load_s"], "s") for r in runs],
        ["warm load from `.kb-cache/`"] + [num(r["warm_load_s"], "s") for r in runs],
        ["match 2 KB / 100 KB / 1 MB, median"] + [ms3(r) for r in runs],
        ["naive (every pattern on the whole paste), 100 KB"] + [num(r["naive_ms"]["100KB"]["median"], "ms") for r in runs],
        ["speedup at 100 KB (after reading the paste)"] + [f"{num(r['speedup_100KB'], '×')} ({num(r['speedup_100KB_after_parse'], '×')})" for r in runs],
        ["peak memory, serving process"] + [num(r["peak_rss_mb"], "MB") for r in runs],
        ["Streamlit guide page rerun (AppTest), median"] + [num(r["app_rerun_ms"]["median"], "ms") if "app_rerun_ms" in r else "—" for r in runs],
    ]
    return table(head, rows) + "\n" + _provenances(files)


@block("bench-targets", "the scale-10000 result file against bench/README.md's targets")
def bench_targets() -> str:
    data = result_file(f"scale-{SCALE_TARGET_N}.json")
    rows = [[label, measured, "yes" if met else "**no**"] for label, measured, met in _target(data["result"])]
    return table([f"target at {SCALE_TARGET_N:,} guides", "measured", "met"], rows, "lrl") + "\n" + provenance(data)


@block("bench-scale-detail", "python bench/run.py --guides N --json --save bench/results/scale-N.json")
def bench_scale_detail() -> str:
    files = _scales()
    runs = [d["result"] for d in files]
    rows = [
        ["cold load + index from YAML (its process's peak memory)"] + [f"{num(r['cold_load_s'], 's')} ({num(r['cold_peak_rss_mb'], 'MB')})" for r in runs],
        ["warm load from the cache (cache size)"] + [f"{num(r['warm_load_s'], 's')} ({num(r['cache_mb'], 'MB')})" for r in runs],
    ]
    for k, label in (("2KB", "2 KB"), ("100KB", "100 KB"), ("1MB", "1 MB")):
        rows.append([f"match {label}: median / p99 (reading the paste)"] + [
            f"{num(r['match_ms'][k]['median'], 'ms')} / {num(r['match_ms'][k]['p99'], 'ms')} ({num(r['parse_ms'][k], 'ms')})" for r in runs])
    rows += [
        ["naive, 100 KB, median"] + [num(r["naive_ms"]["100KB"]["median"], "ms") for r in runs],
        ["speedup at 100 KB, end to end (after reading the paste)"] + [f"{num(r['speedup_100KB'], '×')} ({num(r['speedup_100KB_after_parse'], '×')})" for r in runs],
        ["peak memory, serving process"] + [num(r["peak_rss_mb"], "MB") for r in runs],
        ["Streamlit guide page: first run / rerun median"] + [
            f"{num(r['app_first_run_s'], 's')} / {num(r['app_rerun_ms']['median'], 'ms')}" if "app_rerun_ms" in r else "not measured" for r in runs],
        ["Streamlit process peak memory"] + [num(r["app_peak_rss_mb"], "MB") if "app_peak_rss_mb" in r else "" for r in runs],
        ["pastes whose guide came first, with confidence"] + [f"{100 * r['match_correct']:.0f} %" for r in runs],
    ]
    return table(["N guides"] + [f"{r['guides']:,}" for r in runs], rows) + "\n" + _provenances(files)


@block("bench-click", "python bench/click_to_result.py --runs 5 --json --save bench/results/click.json")
def bench_click() -> str:
    data = result_file("click.json")
    r = data["result"]
    rows = []
    for base, b in r["bases"].items():
        name = f"real guides ({b['guides']:,})" if base == "real" else f"{b['guides']:,} synthetic guides"
        for label, s in b["sizes"].items():
            rows.append([name, label.replace("KB", " KB").replace("MB", " MB"), f"{num(s['first_median_ms'], 'ms')} ({num(s['first_max_ms'], 'ms')})",
                         num(s["all_median_ms"], "ms"), f"{100 * s['top_correct']:.0f} %"])
    head = ["knowledge base", "paste", "click → first result, median (worst)", "click → all drawn, median", "right guide first"]
    return (table(head, rows, "lrrrr") + f"\n{r['runs']} clicks per row, each on a fresh page, chromium {next(iter(r['bases'].values()))['browser']}. "
            + provenance(data))


@block("bench-hostile", "python bench/hostile.py --save bench/results/hostile.json")
def bench_hostile() -> str:
    data = result_file("hostile.json")
    r = data["result"]
    rows = [[x["input"], f"{x['mb']:.1f} MB", f"{x['lines_read']:,}", "cut" if x["cut"] else "whole", f"{x['match_s']:.2f}",
             "—" if x["no_match_extras_s"] is None else f"{x['no_match_extras_s']:.2f}", x["top"] or "(no match)"] for x in r["rows"]]
    head = ["input", "size", "lines read", "paste", "match s", "no-match extras s", "top guide"]
    return (table(head, rows, "lrrlrrl") + f"\nBest of {r['repeat']} after a warm-up, on the real guides ({r['guides']}). "
            + provenance(data))
