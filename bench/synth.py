"""A synthetic knowledge base of N guides, shaped like the real ones, for the benchmark.

The real guides under guides/ are the shapes. Guide number i is a copy of real guide
i mod R (R real guides) in "generation" i div R; each generation renames the content
words of every signature consistently (a word map drawn from the real guides' own
vocabulary), so that

- anchors are distinct across generations, like the anchors of distinct errors;
- within a generation the real structure is kept: a generic guide and its specific
  variant still share their anchor and differ by context, as in the real base;
- signatures, contexts, raw errors, near misses, titles and symptoms are renamed with
  the same map, so each raw error still matches its own guide; prose keeps its size.

Deterministic: the output depends only on the seed, N and the real guides. Guides are
written under a temporary folder (never into the repository).

    python bench/synth.py --guides 1000 --out /tmp/kb1000 [--seed 0]
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import os
import random
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# (E402: these imports need the checkout on sys.path first: the script runs as bench/synth.py.)
import re2  # noqa: E402
import yaml  # noqa: E402

from kb.engine.roots import NATIVE, WRAPPERS  # noqa: E402
from kb.engine.signature import TemplateError, compile_regex, compile_template  # noqa: E402
from kb.engine.tracebacks import KNOWN_PACKAGES  # noqa: E402
from kb.evaluation.baselines import strings_in  # noqa: E402
from kb.guides.load import GUIDES_DIR, load_guides  # noqa: E402

HEADER = "# yaml-language-server: $schema=../../schema/guide.schema.json\n"
# A word that may be renamed: not part of a regex escape (\bword) nor glued to a placeholder.
_WORD = re.compile(r"(?<![A-Za-z0-9_\\{}])[A-Za-z][A-Za-z0-9_]{3,}(?![A-Za-z0-9_{}])")
# Words kept as they are: function words and what makes an error an error.
_KEEP = frozenset("""
error errors failed failure with from that this than have been were when while which what into only
must should could does cannot not none null true false also more less than then there their these those
your some such each other same after before above below about because please check
""".split())
# Schema field names: never renamed, so that a renamed value can never look like a key.
_FIELDS = frozenset("""
template regex anchor context wrapper text source note title summary symptoms signatures raw_errors
near_misses causes steps verification references tags related component status fastest_fix caveats
applies_to components hardware environment compute_capability gpus versions name value expect
command commands condition kind package spec what evidence confidence last_reviewed env_checks
path word ident quoted version""".split())


def _read_sources(guides_dir: Path) -> list[dict]:
    """The real guides that load cleanly, as plain data, sorted by id."""
    loaded = load_guides(guides_dir)
    out = []
    for g in sorted(loaded.guides, key=lambda g: g.id):
        data = yaml.load(loaded.paths[g.id].read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        data.pop("related", None)
        out.append(data)
    if not out:
        raise SystemExit(f"no valid guide under {guides_dir} to take shapes from")
    return out


def _signature_words(sources: list[dict]) -> list[str]:
    words: set[str] = set()
    for g in sources:
        for s in g["signatures"]:
            for item in [s, *s.get("context", [])]:
                for key in ("template", "anchor"):
                    words.update(w for w in _WORD.findall(item.get(key) or "") if w.lower() not in _KEEP and w not in _FIELDS)
    return sorted(words)


def _vocabulary(sources: list[dict]) -> list[str]:
    """Replacement words: what the real guides' errors and prose are made of, less the words a
    paste keeps as they are (a word of a raw error that no signature holds is never renamed, and a
    signature word renamed to it would meet it there)."""
    sig = {w.lower() for w in _signature_words(sources)}
    words: set[str] = set()
    kept: set[str] = set()
    for g in sources:
        for key in ("raw_errors", "near_misses"):
            kept.update(w.lower() for t in strings_in(g.get(key, [])) for w in _WORD.findall(t))
        prose = strings_in({k: v for k, v in g.items() if k not in ("signatures", "raw_errors", "near_misses", "references")})
        for t in [r["text"] for r in g["raw_errors"]] + prose:
            words.update(w for w in _WORD.findall(t) if w.lower() not in _KEEP and w not in _FIELDS and len(w) <= 24)
    return sorted(w for w in words if w.lower() in sig or w.lower() not in kept)


def _shape(word: str, like: str) -> str:
    if like.isupper():
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    if like.islower():
        return word.lower()
    return word


# The words the root-error finder reads structure and wrappers by (kb/engine/roots.py) stay too.
_STRUCTURE = frozenset("File line Traceback most recent call last During handling above exception another occurred "
                       "direct cause following".split()) | frozenset(re.findall(r"[A-Za-z]{3,}", WRAPPERS.pattern + NATIVE.pattern))


def _word_map(sig_words: list[str], vocab: list[str], seed: int, gen: int) -> dict[str, str]:
    """Each signature word gets a real word of about its length (an 8-character anchor stays one).

    The map is one-to-one, and its words are signature words, which every text renames too, or
    words no raw error holds: a renamed word never meets the same word left as it was, nor
    another renamed to it. (Otherwise a generic guide's raw error could carry its specific sibling's context,
    and the benchmark would count the specific guide's rightful match as a miss.)
    """
    rng = random.Random(f"{seed}:{gen}")
    renamed = [w for w in sig_words if w not in KNOWN_PACKAGES and w not in _STRUCTURE]
    # A package name is what a `module` context looks for in the frames, and the words of a
    # traceback's structure are how the frames are found: renaming them makes no traceback.
    kept = {w.lower() for w in sig_words if w not in renamed} | set(_KEEP) | {w.lower() for w in _FIELDS}
    targets = sorted({v.lower() for v in vocab} - kept)
    by_len: dict[int, list[str]] = {}
    for v in targets:
        by_len.setdefault(len(v), []).append(v)
    used: set[str] = set()
    out = {}
    for w in rng.sample(renamed, len(renamed)):
        pool = [v for n in range(max(4, len(w) - 2), len(w) + 4) for v in by_len.get(n, ()) if v not in used]
        if len(pool) < 20 or "_" in w:
            # A long identifier (CUDNN_STATUS_NOT_INITIALIZED) is often a whole anchor: two
            # words joined keep such anchors distinct across thousands of generations.
            out[w] = _shape(f"{rng.choice(targets)}_{rng.choice(targets)}", w)
        else:
            pick = rng.choice(pool)
            used.add(pick)
            out[w] = _shape(pick, w)
    return out


def _rename(text: str, wmap: dict[str, str]) -> str:
    return _WORD.sub(lambda m: wmap.get(m.group(0), m.group(0)), text)


def _rename_item(item: dict, wmap: dict[str, str]) -> dict:
    out = dict(item)
    for key in ("template", "regex", "anchor"):
        if out.get(key):
            out[key] = _rename(out[key], wmap)
    return out


_COMPILED: dict[tuple, tuple | None] = {}


def _compiles(item: dict) -> tuple | None:
    """(Compiled, RE2 object) for a template or regex item, or None when it does not compile."""
    key = (item.get("template"), item.get("regex"), item.get("anchor"))
    if key not in _COMPILED:
        if len(_COMPILED) > 20_000:
            _COMPILED.clear()
        try:
            c = compile_template(key[0]) if key[0] is not None else compile_regex(key[1], key[2])
            _COMPILED[key] = (c, re2.compile(c.pattern))
        except TemplateError:
            _COMPILED[key] = None
    return _COMPILED[key]


def _matches_all(items: list[dict], text: str) -> bool | None:
    """Whether every item (a signature and its contexts) matches `text`; None if one doesn't compile."""
    for item in items:
        cr = _compiles(item)
        if cr is None:
            return None
        m = cr[1].search(text)
        if m is None or (item.get("regex") is not None and cr[0].anchor not in m.group(0)):
            return False
    return True


def _still_matches(orig: dict, new: dict, raws: list[str], new_raws: list[str]) -> bool:
    """The renamed signature and contexts compile, and match every renamed raw error the original matched."""
    # Module and fact contexts hold no text to rename or match.
    o_items = [orig, *(c for c in orig.get("context", []) if c.get("template") or c.get("regex"))]
    n_items = [new, *(c for c in new.get("context", []) if c.get("template") or c.get("regex"))]
    if any(_compiles(i) is None for i in n_items):
        return False
    return all(_matches_all(n_items, nr) for r, nr in zip(raws, new_raws, strict=True) if _matches_all(o_items, r))


_RENAMED = ("id", "title", "summary", "symptoms", "signatures", "raw_errors", "near_misses")


def make_guide(src: dict, gen: int, wmap: dict[str, str], stats: dict) -> dict:
    g = {k: (copy.deepcopy(v) if k in _RENAMED else v) for k, v in src.items()}
    g["id"] = f"{src['id'][:66]}-g{gen:05d}"
    raws = [r["text"] for r in src["raw_errors"]]
    for part in ("raw_errors", "near_misses"):
        for r in g.get(part, []):
            r["text"] = _rename(r["text"], wmap)
    new_raws = [r["text"] for r in g["raw_errors"]]
    for key in ("title", "summary"):
        g[key] = {k: _rename(v, wmap) if isinstance(v, str) else v for k, v in g[key].items()}
    g["symptoms"] = [{k: _rename(v, wmap) if isinstance(v, str) else v for k, v in s.items()} for s in g["symptoms"]]
    sigs = []
    for s in src["signatures"]:
        new = _rename_item(s, wmap)
        new["context"] = [_rename_item(c, wmap) for c in s.get("context", [])]
        if _still_matches(s, new, raws, new_raws):
            sigs.append(new)
        else:
            stats["dropped"] = stats.get("dropped", 0) + 1
    if not sigs:  # keep the guide servable: its first signature as it was written
        stats["kept_original"] = stats.get("kept_original", 0) + 1
        sigs = [copy.deepcopy(src["signatures"][0])]
    for s in sigs:
        if not s.get("context"):
            s.pop("context", None)
    g["signatures"] = sigs
    return g


class _Dumper(yaml.CSafeDumper):
    pass


def _str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _dump(key: str, value) -> str:
    return yaml.dump({key: value}, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=110)


def _write(task) -> dict:
    out, seed, sources, sig_words, vocab, gens = task
    stats: dict = {"written": 0}
    # What renaming leaves alone is dumped once per real guide; each copy re-dumps the rest.
    static = [{k: _dump(k, v) for k, v in src.items() if k not in _RENAMED} for src in sources]
    made: set[Path] = set()
    for gen, indices in gens:
        wmap = _word_map(sig_words, vocab, seed, gen)
        for i in indices:
            g = make_guide(sources[i], gen, wmap, stats)
            folder = out / g["component"]
            if folder not in made:
                folder.mkdir(parents=True, exist_ok=True)
                made.add(folder)
            body = "".join(_dump(k, v) if k in _RENAMED else static[i][k] for k, v in g.items())
            (folder / f"{g['id']}.yaml").write_text(HEADER + body, encoding="utf-8")
            stats["written"] += 1
    return stats


def _renamable(sources: list[dict], sig_words: list[str], vocab: list[str], seed: int) -> list[dict]:
    """The real guides whose renamed copy still validates: renaming a word everywhere can turn a
    signature's context or a paste's root error into something else, and a synthetic base made of
    guides that do not match their own raw errors would measure the wrong thing."""
    import tempfile

    from kb.authoring.validate import validate
    from kb.engine.index import load_index
    with tempfile.TemporaryDirectory() as tmp:
        _write((Path(tmp), seed, sources, sig_words, vocab, [(0, list(range(len(sources))))]))
        bad = {Path(p.path).stem.rsplit("-g", 1)[0] for p in validate(load_index(Path(tmp)))}
    return [s for s in sources if s["id"] not in bad]


def fingerprint(n: int, seed: int, guides_dir: Path = GUIDES_DIR) -> str:
    """What the generated base depends on: N, the seed, this generator and the real guides."""
    h = hashlib.sha256(f"{n}:{seed}".encode())
    h.update(Path(__file__).read_bytes())
    for p in sorted(guides_dir.rglob("*.yaml")):
        h.update(str(p.relative_to(guides_dir)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def generate(n: int, out: Path, seed: int = 0, guides_dir: Path = GUIDES_DIR, workers: int | None = None) -> dict:
    """Write N synthetic guides under `out`; reuse them when `out` already holds this exact base."""
    out = Path(out)
    stamp = out / ".synth-fingerprint"
    fp = fingerprint(n, seed, guides_dir)
    if stamp.exists() and stamp.read_text() == fp:
        return {"written": 0, "reused": n, "fingerprint": fp}
    if out.exists() and any(out.iterdir()):
        import shutil
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    sources = _read_sources(guides_dir)
    sig_words, vocab = _signature_words(sources), _vocabulary(sources)
    sources = _renamable(sources, sig_words, vocab, seed)
    r = len(sources)
    gens: dict[int, list[int]] = {}
    for i in range(n):
        gens.setdefault(i // r, []).append(i % r)
    items = sorted(gens.items())
    workers = workers or min(os.cpu_count() or 1, 4)
    chunks = [items[k::workers] for k in range(workers)]
    tasks = [(out, seed, sources, sig_words, vocab, c) for c in chunks if c]
    total: dict = {}
    if len(tasks) == 1:
        results = [_write(tasks[0])]
    else:
        with ProcessPoolExecutor(len(tasks)) as ex:
            results = list(ex.map(_write, tasks))
    for st in results:
        for k, v in st.items():
            total[k] = total.get(k, 0) + v
    stamp.write_text(fp)
    total.update({"sources": r, "fingerprint": fp})
    return total


# ---------------------------------------------------------------------------------------
# Pastes: a realistic server log of a given size that ends with a guide's raw error.

_LOG_LINES = [
    "INFO {d} {t} [gpu_model_runner.py:{n}] Loading model weights took {f} GiB and {f} seconds",
    "(VllmWorker rank={r} pid={p}) INFO {d} {t} [custom_all_reduce.py:{n}] Registering {n} cuda graph addresses",
    "(EngineCore_DP0 pid={p}) INFO {d} {t} [core.py:{n}] init engine (profile, create kv cache, warmup model) took {f} seconds",
    "(APIServer pid={p}) INFO {d} {t} [loggers.py:{n}] Engine 000: Avg prompt throughput: {f} tokens/s, Avg generation throughput: {f} tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: {f}%, Prefix cache hit rate: {f}%",
    "(APIServer pid={p}) INFO:     127.0.0.1:{n} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
    "node-{r}:{p}:{p} [{r}] NCCL INFO Channel {r:02d}/0 : {r}[{r}] -> {r}[{r}] via P2P/CUMEM/read",
    "[rank{r}]:[W{d} {t}.{n} ProcessGroupNCCL.cpp:{n}] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now",
    "{i} {t},{n} - INFO - step {n}: loss={f} lr={f}e-05 grad_norm={f} tokens_per_sec={n}",
    "(VllmWorker rank={r} pid={p}) WARNING {d} {t} [fused_moe.py:{n}] Using default MoE config. Performance might be sub-optimal! Config file not found at /opt/configs/E={n},N={n},device_name=NVIDIA_H100_80GB_HBM3.json",
    "  0%|          | 0/{n} [00:00<?, ?it/s]Loading safetensors checkpoint shards:  {n}% Completed | {r}/{n} [00:{r:02d}<00:{r:02d},  {f}it/s]",
]
_FRAMES = [
    ("/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)"),
    ("/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", "worker_busy_loop", "output = func(*args, **kwargs)"),
    ("/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", "initialize_from_config", "self.model_runner.initialize_kv_cache(kv_cache_config)"),
    ("/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py", "_call_impl", "return forward_call(*args, **kwargs)"),
]


def _log_line(rng: random.Random) -> str:
    fmt = rng.choice(_LOG_LINES)
    return fmt.format(d=f"{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", t=f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
                      n=rng.randint(1, 99999), f=round(rng.random() * 100, 2), r=rng.randint(0, 7), p=rng.randint(100, 99999),
                      i=f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")


def paste_targets(index) -> list[str]:
    """The guides a benchmark paste may end with: not only a wrapper (a wrapper rightly ranks below
    whatever else the paste matches), and not a copy whose signatures renaming left the same as
    another generation's (a regex with no renamable word): no paste can single out one of those."""
    wrappers = {p.guide for p in index.patterns if p.ctx == -1 and p.wrapper} - {p.guide for p in index.patterns if p.ctx == -1 and not p.wrapper}
    sigs: dict[str, set[str]] = {}
    for p in index.patterns:
        if p.ctx == -1:
            sigs.setdefault(p.guide, set()).add(p.compiled.pattern)
    owners: dict[frozenset[str], int] = {}
    for pats in sigs.values():
        owners[frozenset(pats)] = owners.get(frozenset(pats), 0) + 1
    return sorted(g for g in index.guides if g not in wrappers and owners.get(frozenset(sigs.get(g, ())), 0) == 1)


def make_paste(size: int, error: str, seed: int) -> str:
    """About `size` bytes of log, then a traceback ending with `error`, as two ranks print it."""
    rng = random.Random(f"paste:{seed}:{size}")
    tail_lines = ["Traceback (most recent call last):"]
    for f, fn, code in rng.sample(_FRAMES, 3):
        tail_lines += [f'  File "{f}", line {rng.randint(10, 3000)}, in {fn}', f"    {code}"]
    tail_lines += error.splitlines()
    tail = []
    for rank in (0, 1):
        tail += [f"(VllmWorker rank={rank} pid={4000 + rank}) ERROR 11-29 10:00:01 [multiproc_executor.py:671] {ln}" for ln in tail_lines]
    tail_text = "\n".join(tail) + "\n"
    lines, used = [], len(tail_text.encode())
    while used < size:
        ln = _log_line(rng)
        lines.append(ln)
        used += len(ln.encode()) + 1
    return "\n".join(lines) + "\n" + tail_text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--guides", type=int, required=True, metavar="N")
    ap.add_argument("--out", type=Path, required=True, metavar="DIR")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(generate(args.guides, args.out, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
