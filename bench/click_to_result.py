"""Benchmark: from the click on "Find the guide" to the result drawn, in a real browser.

    python bench/click_to_result.py [--bases real,10000] [--sizes 10KB,1MB] [--runs 5] [--json] [--save FILE]

For each knowledge base (the real guides, or N synthetic ones from bench/synth.py) the app
is started with `streamlit run app.py` and opened in Debian's chromium through Playwright,
as tests/test_e2e.py does. Each run opens the page afresh, pastes a log of the given size
that ends with a guide's raw error (bench/synth.make_paste, as bench/run.py builds them),
and clicks "Find the guide". The page itself times it: a click listener notes the time, a
MutationObserver notes the frame in which the first result card's "Open guide" button is
in the page ("first result"), and the last change before the page is quiet for 500 ms
("all drawn"). What is timed is what the person waits for: the paste sent over the
websocket, matched, the page rendered and drawn. The index is built before the first
run (st.cache_resource), as on a running server.

A benchmark, not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"]
SIZES = {"2KB": 2_000, "10KB": 10_000, "100KB": 100_000, "1MB": 1_000_000}
QUIET_MS = 500

# In the page: the time of the click, of the frame with the first result card, of the last change.
_WATCH = """() => {
  window.__kb = {click: null, first: null, last: null};
  document.addEventListener('click', (e) => {
    if (e.target.closest('.st-key-find')) window.__kb.click = performance.now();
  }, true);
  new MutationObserver(() => {
    const t = window.__kb;
    if (t.click === null) return;
    const now = performance.now();
    t.last = now;
    if (t.first === null && document.querySelector("[class*='st-key-open-'] button")) {
      t.first = -1;
      requestAnimationFrame(() => { t.first = performance.now(); });
    }
  }).observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true});
}"""


_PASTE = """(text) => {
  const area = document.querySelector("textarea[aria-label='Error or log']");
  area.focus();
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(area, text);
  area.dispatchEvent(new Event('input', {bubbles: true}));
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pastes(guides_dir: Path, cache: Path, sizes: list[str], runs: int, seed: int) -> dict[str, list[tuple[str, str]]]:
    """Per size, `runs` pastes, each ending with the raw error of a guide `synth.paste_targets` allows."""
    import synth

    from kb.engine.cache import load_index_cached
    index = load_index_cached(guides_dir, cache)  # also writes the cache the app then loads
    ids = synth.paste_targets(index)
    rng = random.Random(f"click:{seed}")
    out = {}
    for label in sizes:
        out[label] = []
        for k in range(runs):
            gid = ids[rng.randrange(len(ids))]
            out[label].append((gid, synth.make_paste(SIZES[label], index.guides[gid].raw_errors[0].text, seed * 1000 + k)))
    return out


def _serve(guides_dir: Path, cache: Path, db: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "KB_GUIDES_DIR": str(guides_dir), "KB_CACHE_DIR": str(cache), "KB_DB_PATH": str(db)}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("streamlit did not start")


def _one(browser, url: str, gid: str, paste: str) -> dict:
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    try:
        page.goto(url + "/", wait_until="networkidle")
        page.get_by_label("Error or log").wait_for(timeout=600_000)
        # As a paste arrives: the whole text at once (Playwright's fill waits on a megabyte).
        page.evaluate(_PASTE, paste)
        page.evaluate(_WATCH)
        page.locator(".st-key-find button").click()
        page.wait_for_function("window.__kb.first > 0", timeout=600_000, polling=50)
        page.wait_for_function(f"performance.now() - window.__kb.last > {QUIET_MS}", timeout=600_000, polling=100)
        t = page.evaluate("window.__kb")
        first_card = page.locator("[class*='st-key-open-']").first.get_attribute("class") or ""
        # The first card's frame may come after the last change to the page: then all is drawn with it.
        return {"first_ms": round(t["first"] - t["click"], 1), "all_ms": round(max(t["last"], t["first"]) - t["click"], 1),
                "top_is_the_pasted_guide": f"st-key-open-{gid} " in first_card + " "}
    finally:
        page.context.close()


def bench_base(name: str, guides_dir: Path, sizes: list[str], runs: int, seed: int) -> dict:
    from playwright.sync_api import sync_playwright
    work = Path(tempfile.mkdtemp(prefix="kb-click-"))
    try:
        pastes = _pastes(guides_dir, work / "cache", sizes, runs, seed)
        proc, url = _serve(guides_dir, work / "cache", work / "kb.sqlite3")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                gid0, warm = pastes[sizes[0]][0]
                _one(browser, url, gid0, warm)  # warm-up: the index loads, RE2 compiles what it verifies
                out: dict = {"guides": sum(1 for _ in guides_dir.rglob("*.yaml")), "browser": browser.version, "sizes": {}}
                for label in sizes:
                    done = [_one(browser, url, gid, text) for gid, text in pastes[label]]
                    first, last = [d["first_ms"] for d in done], [d["all_ms"] for d in done]
                    out["sizes"][label] = {"bytes": SIZES[label], "first_ms": first, "all_ms": last,
                                           "first_median_ms": round(statistics.median(first), 1), "first_max_ms": max(first),
                                           "all_median_ms": round(statistics.median(last), 1),
                                           "top_correct": sum(d["top_is_the_pasted_guide"] for d in done) / len(done)}
                browser.close()
        finally:
            proc.terminate()
            proc.wait(30)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bases", default="real,10000", help="comma-separated: real (guides/) or N synthetic guides")
    ap.add_argument("--sizes", default="10KB,1MB", help="comma-separated, of " + ", ".join(SIZES))
    ap.add_argument("--runs", type=int, default=5, help="clicks per size, each on a fresh page")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--save", type=Path, metavar="FILE", help="also write the result, with how it was measured, to FILE")
    args = ap.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s]
    if not os.path.exists(CHROMIUM) or any(s not in SIZES for s in sizes) or args.runs < 1:
        ap.error(f"needs chromium ({CHROMIUM}), sizes among {', '.join(SIZES)} and --runs >= 1")
    result: dict = {"runs": args.runs, "quiet_ms": QUIET_MS, "bases": {}}
    for base in (b for b in args.bases.split(",") if b):
        if base == "real":
            result["bases"]["real"] = bench_base("real", ROOT / "guides", sizes, args.runs, args.seed)
            continue
        import synth
        tmp = Path(tempfile.mkdtemp(prefix=f"kb-click-{base}-"))
        try:
            synth.generate(int(base), tmp / "guides", args.seed)
            result["bases"][base] = bench_base(base, tmp / "guides", sizes, args.runs, args.seed)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for base, r in result["bases"].items():
            for label, s in r["sizes"].items():
                print(f"{base:>6} ({r['guides']:,} guides)  {label:>5}: first result {s['first_median_ms']:7.0f} ms median "
                      f"(max {s['first_max_ms']:.0f}), all drawn {s['all_median_ms']:7.0f} ms")
    if args.save:
        import results
        results.save(args.save, "python bench/click_to_result.py " + " ".join(argv if argv is not None else sys.argv[1:]), result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
