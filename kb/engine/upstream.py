"""Which upstream projects a paste belongs to, and a search of their GitHub issues for the error.

Offered with every answer: someone has often reported the same error upstream, and a guide's
advice is worth checking against the newest reports. The projects follow from the paste's
traceback frames (`…/site-packages/vllm/…`), then from the package names the paste mentions;
the first is where the error is most likely reported. The search holds the error's words only:
paths, model names, numbers, sizes, addresses and quoted values are left out, so that it finds
other people's reports of the same error and carries as little of this paste as possible.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote_plus

from kb.engine.parse import Paste, last_error_line
from kb.engine.signature import propose_template


@dataclass(frozen=True)
class Project:
    name: str  # as people write it
    repo: str  # owner/name on GitHub
    packages: tuple[str, ...]  # import names, as they appear in paths and in logs
    platform: bool = False  # what other projects run on: a frame there is rarely where to report


# Most specific first: a tie between mentions goes to the project listed first.
PROJECTS: tuple[Project, ...] = (
    Project("SGLang", "sgl-project/sglang", ("sglang", "sgl_kernel")),
    Project("vLLM", "vllm-project/vllm", ("vllm",)),
    Project("TensorRT-LLM", "NVIDIA/TensorRT-LLM", ("tensorrt_llm",)),
    Project("FlashInfer", "flashinfer-ai/flashinfer", ("flashinfer",)),
    Project("XGrammar", "mlc-ai/xgrammar", ("xgrammar",)),
    Project("Outlines", "dottxt-ai/outlines", ("outlines", "outlines_core")),
    Project("LMCache", "LMCache/LMCache", ("lmcache",)),
    Project("FlashAttention", "Dao-AILab/flash-attention", ("flash_attn", "flash_attn_2_cuda")),
    Project("xFormers", "facebookresearch/xformers", ("xformers",)),
    Project("bitsandbytes", "bitsandbytes-foundation/bitsandbytes", ("bitsandbytes",)),
    Project("DeepSpeed", "deepspeedai/DeepSpeed", ("deepspeed",)),
    Project("PEFT", "huggingface/peft", ("peft",)),
    Project("Accelerate", "huggingface/accelerate", ("accelerate",)),
    Project("Transformers", "huggingface/transformers", ("transformers",)),
    Project("TRL", "huggingface/trl", ("trl",)),
    Project("Unsloth", "unslothai/unsloth", ("unsloth", "unsloth_zoo")),
    Project("Ray", "ray-project/ray", ("ray",), platform=True),
    Project("Triton", "triton-lang/triton", ("triton",), platform=True),
    Project("PyTorch", "pytorch/pytorch", ("torch", "torchrun"), platform=True),
    Project("NCCL", "NVIDIA/nccl", ("nccl",), platform=True),
)
_BY_PACKAGE = {pkg: p for p in PROJECTS for pkg in p.packages}
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+')
_SITE = re.compile(r"[\\/](?:site|dist)-packages[\\/](?P<pkg>[A-Za-z_]\w*)")
_MENTION = re.compile(r"(?<![\w.-])(" + "|".join(sorted(map(re.escape, _BY_PACKAGE), key=len, reverse=True)) + r")(?![\w-])", re.I)
MAX_SCAN = 1_000_000  # characters of a paste searched for package names: the start says what ran
MAX_WORDS = 14
_TRACEBACK_TEXT = ("Traceback (most recent call last)", "During handling of the above exception",
                   "The above exception was the direct cause")


def _frame_project(path: str) -> Project | None:
    m = _SITE.search(path)
    if m:
        return _BY_PACKAGE.get(m.group("pkg"))
    # A source checkout (`/workspace/vllm/vllm/v1/…`): the folder nearest the file that is a package.
    for part in reversed(re.split(r"[\\/]", path)[:-1]):
        if part in _BY_PACKAGE:
            return _BY_PACKAGE[part]
    return None


def _traceback_projects(paste: Paste) -> list[Project]:
    """The projects of the first traceback's frames, outermost first."""
    out: list[Project] = []
    in_tb = False
    for line in paste.lines:
        t = line.text
        if t.startswith("Traceback (most recent call last):"):
            if out:
                break
            in_tb = True
            continue
        if not in_tb:
            continue
        m = _FRAME.match(t)
        if m:
            p = _frame_project(m.group("file"))
            if p is not None:
                out.append(p)
        elif t and not t.startswith((" ", "\t")) and not t.startswith("^"):
            if out:
                break  # the exception line: this traceback is complete
            in_tb = False
    return out


def projects_of(paste: Paste) -> list[Project]:
    """Every project the paste names, the one to report its error to first: the innermost
    frame in a project that is not a platform (PyTorch under vLLM is reported to vLLM), then
    the other projects of the traceback, then those the paste mentions, most mentioned first."""
    frames = _traceback_projects(paste)
    out: list[Project] = []
    for p in [*(p for p in reversed(frames) if not p.platform), *reversed(frames)]:
        if p not in out:
            out.append(p)
    counts: dict[Project, int] = {}
    for m in _MENTION.finditer(paste.text, 0, MAX_SCAN):
        p = _BY_PACKAGE[m.group(1).lower()]
        counts[p] = counts.get(p, 0) + 1
    order = {p: i for i, p in enumerate(PROJECTS)}
    named = sorted(counts, key=lambda p: (p.platform, -counts[p], order[p]))
    out += [p for p in named if p not in out]
    return out


def project_of(paste: Paste) -> Project | None:
    """The project to report the paste's error to, or None when nothing names one."""
    found = projects_of(paste)
    return found[0] if found else None


# Placeholders, redaction marks (<user>), braces, and quotes that are not apostrophes.
_DROP = re.compile(r"\{[a-z]+\}|<[^<>\s]*>|[{}\"`]|(?<![A-Za-z])'|'(?![A-Za-z])")
MIN_WORDS = 2  # "RuntimeError:" alone finds every issue; "KeyError: qwen2" finds the right ones
# A word that varies from one report to the next: a path or a model id (a slash), a value with
# digits that is not an identifier (`12.4`, `0x7f`, `-7B`, `32768`), a `~` home.
_VARIES = re.compile(r"[/\\~]|^[^A-Za-z_]*\d|^[\w.+-]*\d[\w.+-]*[.-]\d|^-|^[\[(]?\d")
# Units whose number was dropped, and words that only join what was dropped to what is kept.
_PATHLIKE = re.compile(r"[/\\~]")
_ERRNO = re.compile(r"\[Errno -?\d+\]|\[WinError -?\d+\]")
_UNITS = frozenset("b kb mb gb kib mib gib tib bytes byte s ms sec seconds %".split())
_JOINERS = frozenset("a an and at by for from in into is of on or the to with".split())
_EDGE = ".,;:()[]{}=-'\""


def search_terms(line: str) -> str:
    """The words of an error line that other reports of it share: no paths, model names,
    values or units, and no joining word left hanging where a value was dropped."""
    # Paths and model ids go before the line is templated, which would keep a piece of them.
    kept = " ".join(w for w in _ERRNO.sub(" ", line).split() if not _PATHLIKE.search(w))
    words: list[str] = []
    for raw in _DROP.sub(" ", propose_template(kept)).split():
        w = raw.strip(_EDGE) if not raw.endswith(":") else raw.lstrip(_EDGE)
        core = w.rstrip(":")
        if not core.strip(_EDGE) or _VARIES.search(core) or core.lower() in _UNITS:
            continue
        words.append(w)
    words = words[:MAX_WORDS]
    while words and words[-1].lower().rstrip(":") in _JOINERS:
        words.pop()
    return " ".join(words)


def root_error_line(paste: Paste) -> str | None:
    """The line that says what failed first: the first exception that says something (the
    root of a chain, the first rank's), else the error line a person would copy."""
    for err in paste.errors:
        line = paste.lines[err.index].text.strip()
        if err.exc_type and not err.message:  # `raise RuntimeError('''` puts the message on the next line
            after = (ln.text.strip() for ln in paste.lines[err.index + 1: err.index + 4])
            line = f"{line} {next((a for a in after if a), '')}".strip()
        if err.exc_type and len(search_terms(line).split()) >= MIN_WORDS:
            return line
    # No exception says anything: the last error-looking line that is not a traceback's own text.
    for err in reversed(paste.errors):
        line = paste.lines[err.index].text.strip()
        if not line.startswith(_TRACEBACK_TEXT):
            return line
    return last_error_line(paste)


def issue_search_url(project: Project, line: str) -> str | None:
    terms = search_terms(line)
    if len(terms.split()) < MIN_WORDS:
        return None
    return f"https://github.com/{project.repo}/issues?q={quote_plus('is:issue ' + terms)}"


@dataclass(frozen=True)
class Link:
    """A search of one project's issues for the root error."""

    project: Project
    query: str  # the words searched, without `is:issue`
    url: str


MAX_LINKS = 3  # the projects a person would report to; a long tail of mentioned packages is noise


_FRAME_CALL = re.compile(r'^\s*File "(?:[^"]*[\\/])?(?P<file>[^"\\/]+\.py)", line \d+, in (?P<func>[A-Za-z_<][\w<>]*)')


def frame_terms(paste: Paste) -> str:
    """For a traceback cut before its error line: the innermost whole frame, as `file.py function`,
    which other reports of the same failure print too."""
    for ln in reversed(paste.lines):
        m = _FRAME_CALL.match(ln.text)
        if m:
            return f"{m.group('file')} {m.group('func')}"
    return ""


def links(paste: Paste, line: str | None) -> list[Link]:
    """A search for `line` (already redacted by the caller) in each project the paste names;
    with no error line worth searching, for the innermost frame of the traceback."""
    terms = search_terms(line) if line else ""
    if len(terms.split()) < MIN_WORDS:
        terms = frame_terms(paste)
    if len(terms.split()) < MIN_WORDS:
        return []
    query = quote_plus("is:issue " + terms)
    return [Link(p, terms, f"https://github.com/{p.repo}/issues?q={query}") for p in projects_of(paste)[:MAX_LINKS]]
