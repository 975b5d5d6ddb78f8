"""Which upstream project a paste belongs to, and a search of its GitHub issues for the error.

Offered when no guide matches: someone has often reported the same error upstream. The
project follows from the paste's traceback frames (`…/site-packages/vllm/…`), else from the
package names the paste mentions. The search holds the error's words only: paths, numbers,
addresses and quoted values are left out, so that it finds other people's reports of the
same error and carries as little of this paste as possible.
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
    Project("FlashAttention", "Dao-AILab/flash-attention", ("flash_attn", "flash_attn_2_cuda")),
    Project("xFormers", "facebookresearch/xformers", ("xformers",)),
    Project("bitsandbytes", "bitsandbytes-foundation/bitsandbytes", ("bitsandbytes",)),
    Project("DeepSpeed", "deepspeedai/DeepSpeed", ("deepspeed",)),
    Project("PEFT", "huggingface/peft", ("peft",)),
    Project("Accelerate", "huggingface/accelerate", ("accelerate",)),
    Project("Transformers", "huggingface/transformers", ("transformers",)),
    Project("Ray", "ray-project/ray", ("ray",), platform=True),
    Project("Triton", "triton-lang/triton", ("triton",), platform=True),
    Project("PyTorch", "pytorch/pytorch", ("torch", "torchrun"), platform=True),
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


def project_of(paste: Paste) -> Project | None:
    """The project to report the paste's error to, or None when nothing names one."""
    frames = _traceback_projects(paste)
    if frames:
        # The innermost frame raised the error; but when that is PyTorch under vLLM, vLLM is
        # where people report it. So the innermost frame in a project that is not a platform.
        return next((p for p in reversed(frames) if not p.platform), frames[-1])
    counts: dict[Project, int] = {}
    for m in _MENTION.finditer(paste.text, 0, MAX_SCAN):
        p = _BY_PACKAGE[m.group(1).lower()]
        counts[p] = counts.get(p, 0) + 1
    if not counts:
        return None
    named = [p for p in PROJECTS if p in counts]
    return next((p for p in named if not p.platform), named[0])


# Placeholders, redaction marks (<user>), braces, and quotes that are not apostrophes.
_DROP = re.compile(r"\{[a-z]+\}|<[^<>\s]*>|[{}\"`]|(?<![A-Za-z])'|'(?![A-Za-z])")
MIN_WORDS = 2  # "RuntimeError:" alone finds every issue; "KeyError: qwen2" finds the right ones


def search_terms(line: str) -> str:
    """The words of an error line that other reports of it share."""
    words = [w for w in _DROP.sub(" ", propose_template(line)).split() if w.strip(".,;:()[]=-")]
    return " ".join(words[:MAX_WORDS])


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
