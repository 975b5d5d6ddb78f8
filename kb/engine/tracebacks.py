"""Tracebacks in a paste: the lines the parser produces, the exception lines with their
frames and chains, and the packages those frames belong to."""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import NamedTuple


class Line(NamedTuple):  # a NamedTuple: a million-line paste builds a million of these
    no: int  # 1-based line number in the paste as pasted
    prefix: str  # what was stripped (a log prefix), shown dimmed
    text: str  # what the matcher reads


class ErrorLine(NamedTuple):  # a NamedTuple too: a paste may hold 200,000 exception lines
    # (mypy: the field shadows tuple.index, a method nothing here calls; the name is used everywhere)
    index: int  # type: ignore[assignment]  # index into Paste.lines
    exc_type: str | None
    message: str
    frames: tuple[tuple[str, str], ...] = ()  # (file name, function), innermost last
    modules: tuple[str, ...] = ()  # the packages of every frame of its traceback, innermost last, once each
    start: int = -1  # index of its traceback's first line (the "Traceback" header), or of the line itself
    chain: int = -1  # errors printed as one chain ("During handling of…", "The above exception…") share this


_EXC = re.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Fault)|Exception|KeyError|StopIteration))"
    r"(?::\s?(?P<msg>.*))?$")
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')
FRAME_ANYWHERE = re.compile(r'File "([^"\n]{1,1000})", line \d+')
_CHAIN = ("During handling of the above exception, another exception occurred:",
          "The above exception was the direct cause of the following exception:")
_TRACEBACK = "Traceback (most recent call last):"
# IPython and Jupyter start a traceback with the exception's type and a rule of dashes before it:
# "OSError                                   Traceback (most recent call last)" (no colon).
IPYTHON_HEADER = re.compile(r"^[A-Za-z_][\w.]*\s+Traceback \(most recent call last\)\s*$")
_ERRORISH = re.compile(r"\b(?:error|failed|failure|fatal|exception|assert(?:ion)?|segmentation fault|killed|not found|undefined symbol|timed? ?out)\b", re.I)


# Packages a frame's path may name outside site-packages (a source checkout: /workspace/vllm/vllm/…).
KNOWN_PACKAGES = frozenset("""vllm sglang sgl_kernel torch torchvision torchaudio transformers flashinfer triton deepspeed
flash_attn xformers bitsandbytes tensorrt_llm accelerate peft trl ray huggingface_hub safetensors tokenizers numpy
megatron apex transformer_engine diffusers lightning pytorch_lightning datasets xgrammar outlines""".split())


def package_of(path: str) -> str | None:
    """The top-level package a frame's file belongs to, from its path."""
    p = path.replace("\\", "/")
    for marker in ("site-packages/", "dist-packages/"):
        i = p.rfind(marker)
        if i >= 0:
            top = p[i + len(marker):].split("/", 1)[0]
            return top[:-3] if top.endswith(".py") else top
    for seg in reversed(p.split("/")[:-1]):
        if seg in KNOWN_PACKAGES:
            return seg
    return None


def find_errors(lines: list[Line], errorish: Callable[[], list[int]] | None = None) -> list[ErrorLine]:
    """Exception lines with the frames of their traceback; other error-looking lines
    only when the paste holds no Python exception at all."""
    errors: list[ErrorLine] = []
    frames: list[tuple[str, str]] = []
    modules: list[str] = []
    in_tb, start, chain, chained = False, -1, -1, False
    for i, line in enumerate(lines):
        t = line.text
        if ":" not in t and not frames and not t.startswith(("Traceback", "  File")) and "Traceback" not in t:
            continue
        # A traceback starts wherever its header stands: a log message prints it after its own words
        # ("Scheduler hit an exception: Traceback (most recent call last):"), a progress bar before it.
        if _TRACEBACK in t or (t.endswith(")") and IPYTHON_HEADER.match(t)):
            in_tb, frames, modules, start = True, [], [], i
            if not chained:
                chain = i
            chained = False
            continue
        if t in _CHAIN:
            chained = True
            continue
        fm = _FRAME.match(t)
        if fm:
            path = fm.group("file")
            frames.append((os.path.basename(path), fm.group("func")))
            pkg = package_of(path)
            if pkg and pkg not in modules[-1:]:
                modules.append(pkg)
            continue
        m = _EXC.match(t)
        # A bare type ("AssertionError") is an error line inside a traceback, also one whose header
        # the excerpt cut off: frames above it say so.
        if m and (in_tb or frames or m.group("msg") is not None):
            errors.append(ErrorLine(i, m.group("type"), (m.group("msg") or "").strip(), tuple(frames[-3:]),
                                    tuple(dict.fromkeys(reversed(modules)))[::-1], start if in_tb else i,
                                    chain if in_tb else i))
            in_tb, frames, modules = False, [], []
    if not errors:
        # `errorish`: the lines a whole-text scan found (Paste.errors gives them); else each line is searched.
        candidates = errorish() if errorish is not None else [i for i, ln in enumerate(lines) if _ERRORISH.search(ln.text)]
        errors = [ErrorLine(i, None, lines[i].text.strip(), (), (), i, i) for i in candidates
                  if len(lines[i].text.strip()) > 8][:50]
    return errors
