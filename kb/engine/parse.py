"""Turn what people paste into lines the matcher can read.

Pastes arrive with log prefixes, ANSI colours, CRLF, interleaved ranks and prose
around them. Each prefix rule is a small pattern; a line loses prefixes until
none applies. The text of every line keeps a one-to-one link with the original
line number so that explanations can point at what the person pasted.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import NamedTuple

import re2

from kb import config
from kb.engine.signature import normalise_text
from kb.engine.tracebacks import _ERRORISH, FRAME_ANYWHERE, ErrorLine, Line, find_errors, package_of  # noqa: F401 (re-exported)
from kb.engine.wraps import joined

# Above the cut-off for one paste the head and the tail are analysed: the error is usually
# at the end, and the command line and versions at the start.
HEAD_SHARE = 0.2


def max_paste_chars() -> int:
    """Default cut-off for one paste (KB_MAX_PASTE_CHARS), read when a paste is parsed."""
    return int(config.get("KB_MAX_PASTE_CHARS"))


def max_paste_lines() -> int:
    """The same cut-off for the number of lines (KB_MAX_PASTE_LINES)."""
    return int(config.get("KB_MAX_PASTE_LINES"))


MAX_LINE = 20_000  # longer lines keep their start and end for matching: no error message is that long
SKIP_MARKER = "[… middle of the paste skipped …]"
MAX_DISTINCT_ERRORS = 200  # distinct error lines templated for a signature or a skeleton

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # half a UTF-16 pair is no text: RE2 cannot even encode it
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
    re.compile(r"^[IWEF]\d{4}\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+[\w./-]+:\d+\]\s?"),
    # ISO timestamps, bracketed or not, optionally followed by a level: "[2025-05-01 10:00:00 TP0] ", "2024-01-01T10:00:00.123Z ERROR "
    re.compile(r"^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[^\]\n]{0,40}\]\s?"),
    re.compile(rf"^\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?:\s*[-|]?\s*{_LEVEL}\b\s*[-:|]?)?\s?"),
    # journald / syslog: "Nov 29 10:00:01 host kernel: "
    re.compile(r"^[A-Z][a-z]{2}\s+\d{1,2}\s\d\d:\d\d:\d\d\s[\w.-]+\s[\w./-]+(?:\[\d+\])?:\s"),
    # the left border of a box drawn around the output (rich's panels, a log viewer's frame): "│ "
    re.compile(r"^[│┃]\s?"),
]
# The right border of such a box, dropped from a line that had the left one.
_RIGHT_BORDER = re.compile(r"\s+[│┃]$")




@dataclass
class Paste:
    lines: list[Line]
    text: str  # the lines' texts joined with "\n"
    starts: list[int]  # offset of each line in `text`
    truncation: str | None = None  # a note when part of the input was not analysed
    total_chars: int = 0
    _errors: list[ErrorLine] | None = field(default=None, repr=False)
    _modules: dict[str, int] | None = field(default=None, repr=False)

    @property
    def errors(self) -> list[ErrorLine]:
        """Exception lines, found on first use: matching itself never needs them."""
        if self._errors is None:
            self._errors = find_errors(self.lines, self._errorish_lines)
        return self._errors

    @property
    def modules(self) -> dict[str, int]:
        """Package → index of the first traceback frame line whose file belongs to it."""
        if self._modules is None:
            found: dict[str, int] = {}
            if 'File "' in self.text:
                for m in FRAME_ANYWHERE.finditer(self.text):
                    pkg = package_of(m.group(1))
                    if pkg and pkg not in found:
                        found[pkg] = self.line_at(m.start())
            self._modules = found
        return self._modules

    def _errorish_lines(self) -> list[int]:
        found: list[int] = []
        for m in _ERRORISH_ALL.finditer(self.text):
            i = self.line_at(m.start())
            if not found or found[-1] != i:
                found.append(i)
                if len(found) >= 200:
                    break
        return found

    def line_at(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    @property
    def empty(self) -> bool:
        return not self.text.strip()


_ERRORISH_ALL = re2.compile("(?i)" + _ERRORISH.pattern)
# One alternation, repeated, matched once per line: a line usually carries two or three
# prefixes ("(Worker pid=1) ERROR 11-29 … [core.py:1] "), and a million-line paste must
# not pay for a separate attempt per prefix rule and per layer.
_ANY_PREFIX = re.compile("(?:" + "|".join(f"(?:{rx.pattern[1:]})" for rx in PREFIXES) + "){1,6}")


def strip_prefixes(line: str) -> tuple[str, str]:
    m = _ANY_PREFIX.match(line)
    if not m or not m.end():
        return "", line
    return line[: m.end()], line[m.end():]


_CONTROL_TABLE = dict.fromkeys([*range(0x00, 0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f])


def clean(text: str) -> str:
    # Each step is skipped when a cheap test shows it has nothing to do: most pastes
    # have no escape sequence and no broken UTF-16.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    text = text.translate(_CONTROL_TABLE) if text.isascii() else _CONTROL.sub("", text)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _SURROGATE.sub("\ufffd", text)
    return text


class _Cut(NamedTuple):
    text: str
    note: str | None
    head_lines: int  # lines of the head in `text`; the marker line follows them
    marker_no: int  # number in the paste of the first line not (wholly) analysed
    tail_no: int  # number in the paste of the first line of the tail


def _cut(text: str, limit: int, max_lines: int) -> _Cut:
    """Keep the head and the tail of an oversized paste (`text` has "\n" line ends only),
    cut at line boundaries unless one line alone is longer than the budget."""
    n_lines = text.count("\n") + 1
    if len(text) <= limit and n_lines <= max_lines:
        return _Cut(text, None, 0, 0, 0)
    head = text[: int(limit * HEAD_SHARE)]
    head = head[: head.rfind("\n") + 1] or head
    head = head[: _after_newlines(head, max(1, int(max_lines * HEAD_SHARE)))]
    start = max(len(head), len(text) - (limit - len(head)))
    tail = text[start:]
    if text[start - 1: start] not in ("", "\n"):  # a partial first line: drop it if a whole one follows
        nl = tail.find("\n")
        tail = tail[nl + 1:] if 0 <= nl < len(tail) - 1 else tail
    tail_max = max(1, max_lines - head.count("\n") - 2)
    if tail.count("\n") >= tail_max:
        pos = len(tail)
        for _ in range(tail_max):
            pos = tail.rfind("\n", 0, pos)
        tail = tail[pos + 1:]
    skipped = text[len(head): len(text) - len(tail)]
    if not skipped:
        return _Cut(text, None, 0, 0, 0)
    whole = not head or head.endswith("\n")
    head_nl = head.count("\n")
    marker_no = head_nl + 1
    tail_no = head_nl + skipped.count("\n") + 1
    note = (f"The paste is {len(text):,} characters and {n_lines:,} lines; the first {len(head):,} characters "
            f"and the last {len(tail):,} (lines {tail_no:,}–{n_lines:,}) were analysed, "
            f"{max(1, tail_no - marker_no):,} lines in the middle were skipped.")
    out = head + ("" if whole else "\n") + SKIP_MARKER + "\n" + tail
    return _Cut(out, note, head_nl + (0 if whole else 1), marker_no, tail_no)


def _after_newlines(s: str, n: int) -> int:
    """Offset just after the n-th "\n" of s, or len(s) when s has fewer."""
    pos = -1
    for _ in range(n):
        pos = s.find("\n", pos + 1)
        if pos < 0:
            return len(s)
    return pos + 1


def parse(text: str, limit: int | None = None, max_lines: int | None = None) -> Paste:
    total = len(text)
    # Line ends first, so that the cut, the line count and the line numbers agree.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    cut = _cut(text, limit or max_paste_chars(), max_lines or max_paste_lines())
    text, note = cut.text, cut.note
    text = normalise_text(clean(text))
    # Head lines keep their numbers, the marker line stands for the gap, tail lines keep
    # the numbers they had in the original paste.
    split = cut.head_lines if note else 1 << 62
    shift = cut.tail_no - cut.head_lines - 1
    first_prefix = _ANY_PREFIX.match
    lines: list[Line] = []
    parts: list[str] = []
    long_lines = 0
    raws = text.split("\n")
    for i, raw in enumerate(raws):
        m = first_prefix(raw)
        prefix, body = (raw[: m.end()], raw[m.end():]) if m and m.end() else ("", raw)
        if len(body) > MAX_LINE:
            body = _shorten(body)
            long_lines += 1
        # Runs of spaces inside a line (not its indentation) become one, so that a
        # signature's literal words are found however the program aligned them.
        if "  " in body and "  " in body.lstrip():
            body = _SPACES.sub(" ", body)
        body = body.rstrip()
        if prefix.endswith(("│", "│ ", "┃", "┃ ")) and body.endswith(("│", "┃")):
            body = _RIGHT_BORDER.sub("", body)
        no = i + 1 if i < split else (cut.marker_no if i == split else i + shift)
        lines.append(Line(no, prefix, body))
        parts.append(body)
    # A message a console wrapped over several lines is read whole on its first line.
    for k, whole in joined(raws, [len(ln.prefix) for ln in lines], parts).items():
        lines[k] = lines[k]._replace(text=whole)
        parts[k] = whole
    if long_lines:
        note = ((note + " ") if note else "") + (
            f"{long_lines:,} line(s) longer than {MAX_LINE:,} characters were shortened to their first "
            f"{MAX_LINE // 4:,} and last {MAX_LINE - MAX_LINE // 4:,} characters.")
    starts = [0, *accumulate(map((1).__add__, map(len, parts)))][:-1] if parts else []
    return Paste(lines, "\n".join(parts), starts, truncation=note, total_chars=total)


def _shorten(line: str) -> str:
    """A very long line keeps its start and its end, where an error message usually is."""
    head = MAX_LINE // 4
    return line[:head] + " [… " + f"{len(line) - MAX_LINE:,}" + " characters skipped …] " + line[len(line) - (MAX_LINE - head):]


def last_error_line(paste: Paste) -> str | None:
    """The exception's last line, as a person would copy it into a search box."""
    if paste.errors:
        return paste.lines[paste.errors[-1].index].text.strip()
    nonblank = [ln.text.strip() for ln in paste.lines if ln.text.strip()]
    return nonblank[-1] if nonblank else None
