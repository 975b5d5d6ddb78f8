"""Labelled cases for `kb eval`, and the pasted-like variants derived from them.

Each line of CASES.jsonl is {"id", "text", "expect"}: `expect` is the guide the paste must
find, or null when no guide may claim it. Variants are derived from each case the way
people really paste (see VARIANTS), so that they need not be stored.
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from kb.engine.parse import parse

VARIANTS = ("last-line", "traceback-only", "log-only", "ray", "torchrun", "chinese", "crlf", "ansi", "8-ranks")


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    expect: str | None
    variant: str | None = None  # None: the case as written
    family: str | None = None  # the error family a person labelled it with (labelled sets only)
    split: str | None = None  # "tuned" or "held-out" (labelled sets only)
    also: tuple[str, ...] = ()  # other guides that answer it as well (a family's refinements)


FAMILIES = "families.json"  # a labelled set's map of which guide covers each family


def read_cases(path: str | Path, families: str = FAMILIES) -> list[Case]:
    """The cases of a JSONL file, or of a labelled set: a folder with cases.jsonl, whose
    rows name a `family`, and families.json, which says which guide covers each family
    (a family absent from it has no guide yet, so such a case expects no answer). `families`
    names another such file of the folder: the map as it was when the set was made."""
    path = Path(path)
    if path.is_dir():
        return _read_labelled(path, families)
    return [Case(str(d["id"]), str(d["text"]), d.get("expect")) for d in _rows(path)]


def _rows(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if not isinstance(d, dict) or "id" not in d or "text" not in d:
                raise KeyError("id or text")
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a JSON object with 'id', 'text' and 'expect' ({exc})") from None
        rows.append(d)
    return rows


def _read_labelled(folder: Path, name: str) -> list[Case]:
    try:
        mapping = json.loads((folder / name).read_text(encoding="utf-8"))
        families = mapping["covered"]
        classes = mapping.get("classes") or {}
        # A report labelled as holding no identifiable error (family null) is addressed by the
        # procedure for a paste without its root error, when the map names one.
        no_error = mapping.get("no_error")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{folder}/{name}: not an object with 'covered' ({exc})") from None
    out = []
    for d in _rows(folder / "cases.jsonl"):
        covered = families.get(d.get("family")) if d.get("family") else None
        if not d.get("family") and no_error:
            covered = no_error
        elif not covered and d.get("class"):
            # No guide for the family: a class guide whose procedure fits the report's broad mechanism
            # (its `class` label) addresses it, as a triage answer.
            covered = classes.get(d["class"])
        # A family may name several guides: the general one first, then guides that refine it for a
        # context (a device-side assert inside a serving engine); any of them answers it.
        guides = tuple(covered) if isinstance(covered, list) else ((covered,) if covered else ())
        out.append(Case(str(d["id"]), str(d["text"]), guides[0] if guides else None, family=d.get("family"),
                        split=d.get("split"), also=guides[1:]))
    return out



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
    (kb.engine.parse.find_errors), else the last line that is not blank."""
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
        while any(p < len(s) for p, s in zip(pos, streams, strict=True)):
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
