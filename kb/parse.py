"""Turn what people paste into lines the matcher can read.

Pastes arrive with log prefixes, ANSI colours, CRLF, interleaved ranks and prose
around them. Each prefix rule is a small pattern; a line loses prefixes until
none applies. The text of every line keeps a one-to-one link with the original
line number so that explanations can point at what the person pasted.
"""
from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import NamedTuple

from kb.signature import normalise_text

# Default cut-off for one paste. Above it the head and the tail are analysed: the error
# is usually at the end, and the command line and versions at the start.
MAX_CHARS = int(os.environ.get("KB_MAX_PASTE_CHARS", 4_000_000))
HEAD_SHARE = 0.2
MAX_LINE = 20_000  # longer lines are cut for matching: no error message is that long

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}")

_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"
PREFIXES: list[re.Pattern[str]] = [
    # docker compose: "vllm-1  | "
    re.compile(r"^[A-Za-z0-9][\w.-]*\s+\|\s"),
    # vLLM: "ERROR 11-18 18:07:28 engine.py:366] " and "ERROR 11-29 10:00:01 [core.py:123] "
    re.compile(rf"^{_LEVEL}\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+(?:\[[\w./-]+:\d+\]|[\w./-]+:\d+\])\s?"),
    # worker tags: "(VllmWorker rank=0 pid=123) ", "(RayWorkerWrapper pid=5, ip=10.0.0.1) ", "(EngineCore_DP0 pid=7) "
    re.compile(r"^\([A-Za-z_][\w-]*(?:\s[^()\n]{0,120})?\bpid=\d+[^()\n]{0,120}\)\s?"),
    # torchrun / deepspeed rank tags
    re.compile(r"^\[(?:rank|default)\d+\]:\s?"),
    re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:\s?"),
    re.compile(r"^(?:rank|Rank)\s?\d+:\s"),
    # glog: "E1129 10:00:01.123456 12345 file.cc:123] "
    re.compile(r"^[IWEF]\d{4}\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+[\w.-]+:\d+\]\s?"),
    # ISO timestamps, bracketed or not, optionally followed by a level: "[2025-05-01 10:00:00 TP0] ", "2024-01-01T10:00:00.123Z ERROR "
    re.compile(r"^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[^\]\n]{0,40}\]\s?"),
    re.compile(rf"^\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?:\s*[-|]?\s*{_LEVEL}\b\s*[-:|]?)?\s?"),
    # journald / syslog: "Nov 29 10:00:01 host kernel: "
    re.compile(r"^[A-Z][a-z]{2}\s+\d{1,2}\s\d\d:\d\d:\d\d\s[\w.-]+\s[\w./-]+(?:\[\d+\])?:\s"),
]

_EXC = re.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Fault)|Exception|KeyError|StopIteration))"
    r"(?::\s?(?P<msg>.*))?$")
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)')
_CHAIN = ("During handling of the above exception, another exception occurred:",
          "The above exception was the direct cause of the following exception:")
_TRACEBACK = "Traceback (most recent call last):"
_ERRORISH = re.compile(r"\b(?:error|failed|failure|fatal|exception|assert(?:ion)?|segmentation fault|killed|not found|undefined symbol|timed? ?out)\b", re.I)


class Line(NamedTuple):  # a NamedTuple: a million-line paste builds a million of these
    no: int  # 1-based line number in the paste as pasted
    prefix: str  # what was stripped (a log prefix), shown dimmed
    text: str  # what the matcher reads


@dataclass(frozen=True)
class ErrorLine:
    index: int  # index into Paste.lines
    exc_type: str | None
    message: str
    frames: tuple[tuple[str, str], ...] = ()  # (file name, function), innermost last


@dataclass
class Paste:
    lines: list[Line]
    text: str  # the lines' texts joined with "\n"
    starts: list[int]  # offset of each line in `text`
    errors: list[ErrorLine] = field(default_factory=list)
    truncation: str | None = None  # a note when part of the input was not analysed
    total_chars: int = 0

    def line_at(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    @property
    def empty(self) -> bool:
        return not self.text.strip()


# One alternation tried once per line: most lines carry no prefix, and a million-line
# paste must not pay for ten separate attempts on each.
_ANY_PREFIX = re.compile("|".join(f"(?:{rx.pattern})" for rx in PREFIXES))


def strip_prefixes(line: str) -> tuple[str, str]:
    prefix = ""
    for _ in range(6):
        m = _ANY_PREFIX.match(line)
        if not m or m.end() == 0:
            break
        prefix += line[: m.end()]
        line = line[m.end():]
    return prefix, line


def clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ANSI.sub("", text)
    return _CONTROL.sub("", text)


def _cut(text: str, limit: int) -> tuple[str, str | None, int]:
    """Keep the head and the tail of an oversized paste, cut at line boundaries."""
    if len(text) <= limit:
        return text, None, 0
    head_n = int(limit * HEAD_SHARE)
    head = text[:head_n]
    head = head[: head.rfind("\n") + 1] or head
    tail = text[len(text) - (limit - len(head)):]
    nl = tail.find("\n")
    tail = tail[nl + 1:] if 0 <= nl < len(tail) - 1 else tail
    skipped = text[len(head): len(text) - len(tail)]
    note = (f"The paste is {len(text):,} characters; the first {len(head):,} and the last {len(tail):,} "
            f"were analysed, {skipped.count(chr(10)) + 1:,} lines in the middle were skipped.")
    return head + "[… middle of the paste skipped …]\n" + tail, note, skipped.count("\n")


def parse(text: str, limit: int | None = None) -> Paste:
    total = len(text)
    text, note, skipped_lines = _cut(text, limit or MAX_CHARS)
    text = _SPACES.sub(" ", normalise_text(clean(text)))
    head_lines = text[: text.find("[… middle of the paste skipped …]")].count("\n") if note else -1
    first_prefix = _ANY_PREFIX.match
    lines: list[Line] = []
    parts: list[str] = []
    for i, raw in enumerate(text.split("\n")):
        m = first_prefix(raw)
        prefix, body = strip_prefixes(raw) if m and m.end() else ("", raw)
        if len(body) > MAX_LINE:
            body = body[:MAX_LINE]
        body = body.rstrip()
        # Tail lines keep the numbers they had in the original paste (the marker line stands for the gap).
        no = i + 1 if note is None or i <= head_lines else i + skipped_lines
        lines.append(Line(no, prefix, body))
        parts.append(body)
    starts = [0, *accumulate(len(b) + 1 for b in parts)][:-1] if parts else []
    paste = Paste(lines, "\n".join(parts), starts, truncation=note, total_chars=total)
    paste.errors = find_errors(paste.lines)
    return paste


def find_errors(lines: list[Line]) -> list[ErrorLine]:
    """Exception lines with the frames of their traceback; other error-looking lines
    only when the paste holds no Python exception at all."""
    errors: list[ErrorLine] = []
    frames: list[tuple[str, str]] = []
    in_tb = False
    for i, line in enumerate(lines):
        t = line.text
        if ":" not in t and not t.startswith(("Traceback", "  File")):
            continue
        if t.startswith(_TRACEBACK):
            in_tb, frames = True, []
            continue
        fm = _FRAME.match(t)
        if fm:
            frames.append((os.path.basename(fm.group("file")), fm.group("func")))
            continue
        m = _EXC.match(t)
        if m and (in_tb or m.group("msg") is not None):
            errors.append(ErrorLine(i, m.group("type"), (m.group("msg") or "").strip(), tuple(frames[-3:])))
            in_tb, frames = False, []
    if not errors:
        errors = [ErrorLine(i, None, line.text.strip()) for i, line in enumerate(lines)
                  if _ERRORISH.search(line.text) and len(line.text.strip()) > 8][:50]
    return errors


def last_error_line(paste: Paste) -> str | None:
    """The exception's last line, as a person would copy it into a search box."""
    if paste.errors:
        return paste.lines[paste.errors[-1].index].text.strip()
    nonblank = [ln.text.strip() for ln in paste.lines if ln.text.strip()]
    return nonblank[-1] if nonblank else None


def error_signature(paste: Paste, max_errors: int = 3) -> str:
    """The normalised error lines and top frames, as stored for the unmatched-error queue.

    Volatile values are templated away so that the same error seen twice counts twice.
    """
    from kb.signature import propose_template

    seen: list[str] = []
    for err in paste.errors:
        line = propose_template(paste.lines[err.index].text)
        if err.frames:
            line += "  @ " + " < ".join(f"{f}:{fn}" for f, fn in reversed(err.frames))
        if line not in seen:
            seen.append(line)
        if len(seen) >= max_errors:
            break
    return "\n".join(seen)
