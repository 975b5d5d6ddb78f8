"""`python -m kb eval CASES.jsonl`: how well pastes find their guide, against what a
person would otherwise do.

Each line of CASES.jsonl is {"id", "text", "expect"}: `expect` is the guide the paste
must find, or null when no guide may claim it. To the cases as written are added
variants derived from each of them the way people really paste (see VARIANTS), so that
they need not be stored; KB_EVAL_VARIANTS=0 leaves them out.

Three methods, side by side, on the same cases:

- matcher: this knowledge base (kb.match). Top-1 counts when the first result is the
  expected guide with confidence "match"; a false match is any result with confidence
  "match" on a case expecting null.
- bm25: a knowledge-base search box. The query is the paste's last error line (what a
  person types into a search box), the documents every text of every guide (titles,
  summaries, symptoms, signatures, raw errors, causes, steps…), ranked with BM25. Any
  result on a case expecting null counts as a false match, as a search box shows it.
- exact: an exact search for the exception's last line: the paste's last error line
  (kb.parse.last_error_line) equal, after stripping white space, to the last error line
  of one of a guide's raw errors.
"""
from __future__ import annotations

import json
import math
import os
import random
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kb.index import Index, load_index, tokens
from kb.load import GUIDES_DIR
from kb.match import match
from kb.parse import last_error_line, parse

VARIANTS = ("last-line", "traceback-only", "log-only", "ray", "torchrun", "chinese", "crlf", "ansi", "8-ranks")
METHODS = ("matcher", "bm25", "exact")


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    expect: str | None
    variant: str | None = None  # None: the case as written


def read_cases(path: str | Path) -> list[Case]:
    cases = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            cases.append(Case(str(d["id"]), str(d["text"]), d.get("expect")))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a JSON object with 'id', 'text' and 'expect' ({exc})") from None
    return cases


# ---------------------------------------------------------------------------------------
# Variants: what people really paste, derived deterministically from each case.

_TB = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s*File "[^"]+", line \d+, in ')
_HEAD_LOG = [
    "INFO 11-29 10:00:01 [__init__.py:239] Automatically detected platform cuda.",
    "INFO 11-29 10:00:04 [api_server.py:1885] vLLM API server version 0.11.0",
    "INFO 11-29 10:00:04 [utils.py:328] non-default args: {'model': 'Qwen/Qwen2.5-7B-Instruct', 'tensor_parallel_size': 2}",
    "INFO 11-29 10:00:09 [config.py:1604] Using max model len 32768",
    "INFO 11-29 10:00:11 [core.py:93] Initializing a V1 LLM engine (v0.11.0) with config: model='Qwen/Qwen2.5-7B-Instruct'",
]
_FRAMES = [
    ('/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py', 'run_server', 'await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)'),
    ('/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py', 'run_engine_core', 'engine_core = EngineCoreProc(*args, **kwargs)'),
    ('/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py', '_call_impl', 'return forward_call(*args, **kwargs)'),
    ('/workspace/train.py', 'main', 'trainer.train()'),
]


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _exc_type(text: str) -> str:
    paste = parse(text)
    return (paste.errors[-1].exc_type if paste.errors and paste.errors[-1].exc_type else "RuntimeError").split(".")[-1]


def _last_line(text: str) -> str | None:
    """The line a person copies as "the error", as it appears in the paste (prefix and
    all): the last Python exception line, else the last line that reads as an error
    (kb.parse.find_errors), else the last line that is not blank."""
    raw = _lines(text)
    paste = parse(text)
    errors = [e for e in paste.errors if e.exc_type] or paste.errors
    if errors:
        no = paste.lines[errors[-1].index].no
        if 0 < no <= len(raw):
            return raw[no - 1]
    nonblank = [ln for ln in raw if ln.strip()]
    return nonblank[-1] if nonblank else None


def _is_code(lines: list[str], i: int) -> bool:
    """The source line printed under a frame."""
    return i > 0 and bool(_FRAME.search(lines[i - 1])) and lines[i][:1] in (" ", "\t") and not _FRAME.search(lines[i])


def _traceback_span(lines: list[str]) -> tuple[int, int] | None:
    """[start, end) of the last traceback: its header, frames, and the exception lines after
    them; None when there is none, or it ends without an exception."""
    starts = [i for i, ln in enumerate(lines) if _TB in ln]
    if not starts:
        return None
    i = starts[-1] + 1
    while i < len(lines) and (_FRAME.search(lines[i]) or _is_code(lines, i)):
        i += 1
    end = i
    while end < len(lines) and lines[end].strip() and _TB not in lines[end]:
        end += 1
    return (starts[-1], end) if end > i else None


def _frames(rng: random.Random) -> list[str]:
    out = [_TB]
    for f, fn, code in rng.sample(_FRAMES, 2):
        out += [f'  File "{f}", line {rng.randint(20, 2000)}, in {fn}', f"    {code}"]
    return out


def _variant(kind: str, case: Case) -> str | None:
    rng = random.Random(f"{kind}:{case.id}")
    text = case.text
    lines = _lines(text)
    span = _traceback_span(lines)
    if kind == "last-line":
        return _last_line(text)
    if kind == "traceback-only":
        if span is not None:
            return "\n".join(lines[span[0]:span[1]])
        if any(_TB in ln for ln in lines):
            return None  # a traceback that ends without its exception: nobody pastes only that
        return "\n".join(_frames(rng) + lines)  # a bare error, as the end of a traceback
    if kind == "log-only":
        if span is not None:
            return "\n".join(ln for i, ln in enumerate(lines) if not (span[0] <= i < span[1]) or
                             not (_TB in ln or _FRAME.search(ln) or _is_code(lines, i)))
        return "\n".join(_HEAD_LOG[: rng.randint(2, 5)] + [f"ERROR 11-29 10:00:{rng.randint(12, 59)} [engine.py:{rng.randint(100, 999)}] {ln}" for ln in lines])
    if kind == "ray":
        pid, ip = rng.randint(1000, 99999), f"10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}"
        tag = f"(RayWorkerWrapper pid={pid}, ip={ip}) "
        head = f"{tag}ERROR 11-29 10:00:12 worker_base.py:467] Error executing method 'load_model'. This might cause deadlock in distributed execution."
        body = [f"{tag}ERROR 11-29 10:00:12 worker_base.py:467] {ln}" for ln in lines]
        foot = [f"ray.exceptions.RayTaskError({_exc_type(text)}): ray::RayWorkerWrapper.execute_method() "
                f"(pid={pid}, ip={ip}, actor_id={rng.getrandbits(96):024x}, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f{rng.getrandbits(40):010x}>)"]
        return "\n".join([head, *body, *foot, *lines])
    if kind == "torchrun":
        rank = rng.randint(0, 7)
        body = [f"[rank{rank}]: {ln}" for ln in lines]
        if case.expect is None:  # the launcher's summary would be a (wrapper) guide's own error
            return "\n".join(body)
        foot = [f"E1129 10:00:{rng.randint(10, 59)}.{rng.randint(100000, 999999)} {rng.randint(100, 999)} torch/distributed/elastic/multiprocessing/api.py:874] "
                f"failed (exitcode: 1) local_rank: {rank} (pid: {rng.randint(1000, 99999)}) of binary: /usr/bin/python3",
                "Traceback (most recent call last):",
                '  File "/usr/local/bin/torchrun", line 8, in <module>',
                "    sys.exit(main())",
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                "============================================================",
                "train.py FAILED",
                "------------------------------------------------------------",
                "Root Cause (first observed failure):",
                "[0]:",
                f"  rank      : {rank} (local_rank: {rank})",
                f"  exitcode  : 1 (pid: {rng.randint(1000, 99999)})",
                "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                "============================================================"]
        return "\n".join(body + foot)
    if kind == "chinese":
        before = rng.choice(["我在 8 卡 H100 上用 vLLM 启动服务时报了下面这个错，求助：",
                             "训练跑到一半就挂了，报错如下，有人遇到过吗？",
                             "升级之后一直报这个错误，怎么解决？"])
        after = rng.choice(["谢谢大家！", "环境是 CUDA 12.4，驱动 550。", "已经重装过依赖了，还是不行。"])
        return "\n".join([before, "报错信息：" + lines[0], *lines[1:], after])
    if kind == "crlf":
        return "\r\n".join(lines)
    if kind == "ansi":
        out = []
        for ln in lines:
            if re.search(r"(?i)error|exception|fail|traceback", ln):
                out.append(f"\x1b[1;31m{ln}\x1b[0m")
            elif ln.strip():
                word, _, rest = ln.partition(" ")
                out.append(f"\x1b[38;5;{rng.choice([33, 34, 70, 244])}m{word}\x1b[0m {rest}" if rest else f"\x1b[32m{word}\x1b[0m")
            else:
                out.append(ln)
        return "\n".join(out)
    if kind == "8-ranks":
        streams = [[f"[rank{r}]: {ln}" for ln in lines] for r in range(8)]
        pos = [0] * 8
        out = []
        while any(p < len(s) for p, s in zip(pos, streams)):
            r = rng.choice([r for r in range(8) if pos[r] < len(streams[r])])
            out.append(streams[r][pos[r]])
            pos[r] += 1
        return "\n".join(out)
    raise ValueError(f"unknown variant {kind!r}")


def variants(cases: list[Case], kinds: tuple[str, ...] = VARIANTS) -> list[Case]:
    """The pasted-like variants of each case (not the case itself), deterministic: a variant
    that leaves the text as it was is not repeated."""
    out = []
    for c in cases:
        for kind in kinds:
            t = _variant(kind, c)
            if t and t.strip() and t != c.text:
                out.append(Case(f"{c.id}~{kind}", t, c.expect, kind))
    return out


# ---------------------------------------------------------------------------------------
# The two baselines.

def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


class BM25:
    """A knowledge-base search box: BM25 (k1 1.2, b 0.75) over every text of every guide."""

    def __init__(self, index: Index, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tf: dict[str, Counter] = {}
        df: Counter = Counter()
        for gid, g in index.guides.items():
            toks = tokens(" ".join(_strings(g.model_dump(mode="json"))))
            self.tf[gid] = Counter(toks)
            df.update(set(toks))
        n = len(self.tf) or 1
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.len = {gid: sum(c.values()) or 1 for gid, c in self.tf.items()}
        self.avg = sum(self.len.values()) / n
        self.postings: dict[str, list[str]] = defaultdict(list)
        for gid, c in self.tf.items():
            for t in c:
                self.postings[t].append(gid)

    def search(self, query: str, k: int = 10) -> list[str]:
        scores: Counter = Counter()
        for t in set(tokens(query)):
            for gid in self.postings.get(t, ()):
                tf = self.tf[gid][t]
                scores[gid] += self.idf[t] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.len[gid] / self.avg))
        return [gid for gid, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:k]]


class ExactLastLine:
    """An exact search for the exception's last line among the guides' raw errors."""

    def __init__(self, index: Index):
        self.by_line: dict[str, list[str]] = defaultdict(list)
        for gid, g in index.guides.items():
            for raw in g.raw_errors:
                line = last_error_line(parse(raw.text))
                if line and gid not in self.by_line[line.strip()]:
                    self.by_line[line.strip()].append(gid)

    def search(self, text: str) -> list[str]:
        line = last_error_line(parse(text))
        return sorted(self.by_line.get(line.strip(), ())) if line else []


# ---------------------------------------------------------------------------------------
# Scoring.

@dataclass
class Outcome:
    case: Case
    ranked: list[str]  # guide ids, best first
    confident: list[str]  # those with confidence "match" (all of them for the baselines)
    ms: float

    @property
    def first(self) -> str | None:
        return self.ranked[0] if self.ranked else None

    @property
    def top1(self) -> bool:
        return bool(self.confident) and self.confident[0] == self.case.expect and self.first == self.case.expect

    @property
    def top3(self) -> bool:
        return self.case.expect in self.ranked[:3]

    @property
    def false_match(self) -> bool:
        return self.case.expect is None and bool(self.confident)

    @property
    def failed(self) -> bool:
        return self.false_match if self.case.expect is None else not self.top1


@dataclass
class Scores:
    n_expect: int = 0
    n_null: int = 0
    top1: int = 0
    top3: int = 0
    false_matches: int = 0
    times_ms: list[float] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.times_ms.append(o.ms)
        if o.case.expect is None:
            self.n_null += 1
            self.false_matches += o.false_match
        else:
            self.n_expect += 1
            self.top1 += o.top1
            self.top3 += o.top3

    def as_dict(self) -> dict:
        def rate(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None
        return {"cases_with_expect": self.n_expect, "cases_expecting_null": self.n_null,
                "top1": rate(self.top1, self.n_expect), "top3": rate(self.top3, self.n_expect),
                "false_match_rate": rate(self.false_matches, self.n_null),
                "median_ms": round(statistics.median(self.times_ms), 3) if self.times_ms else None,
                "worst_ms": round(max(self.times_ms), 3) if self.times_ms else None}


def run_method(name: str, index: Index, cases: list[Case], bm25: BM25 | None = None, exact: ExactLastLine | None = None) -> list[Outcome]:
    out = []
    for c in cases:
        t0 = time.perf_counter()
        if name == "matcher":
            res = match(index, c.text)
            ranked = [m.guide_id for m in res.matches]
            confident = [m.guide_id for m in res.matches if m.confidence == "match"]
        elif name == "bm25":
            ranked = bm25.search(last_error_line(parse(c.text)) or "")
            confident = ranked
        else:
            ranked = exact.search(c.text)
            confident = ranked
        out.append(Outcome(c, ranked, confident, (time.perf_counter() - t0) * 1000))
    return out


def evaluate(index: Index, cases: list[Case]) -> dict:
    bm25, exact = BM25(index), ExactLastLine(index)
    unknown = sorted({c.expect for c in cases if c.expect is not None and c.expect not in index.guides})
    report: dict = {"guides": len(index.guides), "cases": sum(c.variant is None for c in cases),
                    "variants": sum(c.variant is not None for c in cases), "unknown_expected_guides": unknown,
                    "methods": {}}
    groups = {"all": lambda c: True, "as_written": lambda c: c.variant is None, "variants": lambda c: c.variant is not None}
    for name in METHODS:
        outcomes = run_method(name, index, cases, bm25, exact)
        entry: dict = {}
        for group, keep in groups.items():
            s = Scores()
            for o in outcomes:
                if keep(o.case):
                    s.add(o)
            entry[group] = s.as_dict()
        by_variant = {}
        for kind in VARIANTS:
            s = Scores()
            for o in outcomes:
                if o.case.variant == kind:
                    s.add(o)
            if s.times_ms:
                by_variant[kind] = s.as_dict()
        entry["by_variant"] = by_variant
        entry["failures"] = [{"id": o.case.id, "expected": o.case.expect, "first": o.first,
                              "first_confident": o.confident[0] if o.confident else None}
                             for o in outcomes if o.failed]
        report["methods"][name] = entry
    return report


# ---------------------------------------------------------------------------------------
# Output.

def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def format_report(r: dict) -> str:
    out = [f"{r['cases']} cases + {r['variants']} pasted-like variants, {r['guides']} guides.", ""]
    if r["unknown_expected_guides"]:
        out += ["Expected guides that do not exist (or do not load): " + ", ".join(r["unknown_expected_guides"]), ""]
    head = f"{'':22} {'top-1':>7} {'top-3':>7} {'false match':>12} {'median ms':>10} {'worst ms':>9}"
    for group, title in (("all", "All cases"), ("as_written", "Cases as written"), ("variants", "Pasted-like variants")):
        g0 = r["methods"]["matcher"][group]
        out.append(f"{title}: {g0['cases_with_expect']} expecting a guide, {g0['cases_expecting_null']} expecting none")
        out.append(head)
        for name, label in (("matcher", "matcher (kb match)"), ("bm25", "BM25 search box"), ("exact", "exact last line")):
            g = r["methods"][name][group]
            med = "" if g["median_ms"] is None else f"{g['median_ms']:10.2f}"
            worst = "" if g["worst_ms"] is None else f"{g['worst_ms']:9.2f}"
            out.append(f"{label:22} {_pct(g['top1']):>7} {_pct(g['top3']):>7} {_pct(g['false_match_rate']):>12} {med:>10} {worst:>9}")
        out.append("")
    out.append("Matcher by variant (top-1 / false match):")
    for kind, g in r["methods"]["matcher"]["by_variant"].items():
        out.append(f"  {kind:15} {_pct(g['top1'])} / {_pct(g['false_match_rate'])}   ({g['cases_with_expect']} + {g['cases_expecting_null']})")
    fails = r["methods"]["matcher"]["failures"]
    out += ["", f"Matcher failures ({len(fails)}):" if fails else "Matcher failures: none."]
    for f in fails:
        got = f["first"] or "nothing"
        conf = "" if f["first"] is None or f["first"] == f["first_confident"] else " (similar)"
        out.append(f"  {f['id']}: expected {f['expected'] or 'no match'}, first {got}{conf}")
    for name in ("bm25", "exact"):
        out.append(f"{name}: {len(r['methods'][name]['failures'])} failing cases (see --json).")
    return "\n".join(out) + "\n"


def main(args) -> int:
    index = load_index(getattr(args, "guides", None) or GUIDES_DIR)
    try:
        cases = read_cases(args.cases)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if os.environ.get("KB_EVAL_VARIANTS", "1") != "0":
        cases = cases + variants(cases)
    report = evaluate(index, cases)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(format_report(report))
    return 0
