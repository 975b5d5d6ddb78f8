"""Retrieval and verification: where a paste holds a pattern's literal anchor, and whether
the pattern itself matches there.

The automaton scans the paste once whatever the number of guides; each hit is then checked
with the pattern's RE2 expression on a few lines around it.
"""
from __future__ import annotations

from dataclasses import dataclass

from kb.engine.index import Index, Pattern
from kb.engine.parse import Paste

MAX_LINES_PER_PATTERN = 16  # eight ranks printing the same crash twice is plenty


@dataclass(frozen=True)
class Span:
    line: int  # index into Paste.lines
    start: int  # character offsets within that line's text
    end: int


@dataclass
class Evidence:
    # The guide's pattern that verified there; None when the evidence is a likeness, not a
    # pattern (the likely tier points at the root error's line it compared).
    pattern: Pattern | None
    spans: list[Span]  # the first verified occurrence, one span per line it covers
    occurrences: int
    groups: dict[str, str] | None = None  # what its named placeholders captured there


_WINDOW_OK: dict[str, bool] = {}


def _window_ok(pattern: str) -> bool:
    """Whether searching a window of whole lines cut out of the paste finds what searching
    the paste between the same bounds finds: true unless the pattern pins the start or the
    end of the whole text (an unescaped ^ or $ outside a class, \\A, \\z). Word boundaries
    agree, since a window starts and ends at line boundaries."""
    ok = _WINDOW_OK.get(pattern)
    if ok is None:
        ok, i, in_class = True, 0, False
        while i < len(pattern):
            c = pattern[i]
            if c == "\\":
                if pattern[i + 1:i + 2] in ("A", "z"):
                    ok = False
                i += 2
                continue
            if in_class:
                in_class = c != "]"
            elif c == "[":
                in_class = True
                i += 1
                if pattern[i:i + 1] == "^":
                    i += 1
                if pattern[i:i + 1] == "]":  # a leading ] is a literal
                    i += 1
                continue
            elif c in "^$":
                ok = False
            i += 1
        _WINDOW_OK[pattern] = ok
    return ok


def verify(p: Pattern, paste: Paste, line_ids: list[int]) -> Evidence | None:
    first: list[Span] | None = None
    groups: dict[str, str] | None = None
    count = 0
    n = p.compiled.nlines
    # The RE2 binding converts the whole subject to UTF-8 at every call: searching a window
    # of a few lines, not the whole paste between bounds, keeps verification independent of
    # the paste's length.
    window = _window_ok(p.compiled.pattern)
    for li in line_ids:
        # One extra line each side: terminals and issue trackers wrap long error lines.
        lo, hi = max(0, li - n), min(len(paste.lines), li + n + 1)
        base = paste.starts[lo]
        end = paste.starts[hi - 1] + len(paste.lines[hi - 1].text)
        if window:
            m = p.regex.search(paste.text[base:end])
            if m is None:
                continue
            start, stop = base + m.start(), base + m.end()
        else:
            m = p.regex.search(paste.text, base, end)
            if m is None:
                continue
            start, stop = m.start(), m.end()
        count += 1
        if first is None:
            first = spans(paste, start, stop)
            groups = {k: v for k, v in m.groupdict().items() if v is not None} if p.compiled.names else None
    return Evidence(p, first, count, groups) if first else None


def spans(paste: Paste, start: int, end: int) -> list[Span]:
    out = []
    a, b = paste.line_at(start), paste.line_at(max(start, end - 1))
    for li in range(a, b + 1):
        ls = paste.starts[li]
        le = ls + len(paste.lines[li].text)
        out.append(Span(li, max(start, ls) - ls, min(end, le) - ls))
    return out


def candidates(index: Index, paste: Paste) -> dict[int, list[int]]:
    """Pattern id → line indices where its anchor occurs (deduplicated, capped)."""
    found: dict[int, list[int]] = {}
    if index.automaton is None or not paste.text:
        return found
    for end, (length, ids) in index.automaton.iter(paste.text):
        li = paste.line_at(end - length + 1)
        for pid in ids:
            lines = found.setdefault(pid, [])
            if len(lines) < MAX_LINES_PER_PATTERN and (not lines or lines[-1] != li):
                lines.append(li)
    return found


