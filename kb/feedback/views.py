"""Readings of a paste in which the other shapes of its secrets are undone: console wraps
joined, JSON string escapes undone (a few levels deep), percent-encoding decoded. Each reading
(a View) keeps where its characters came from, so that what a rule finds there is removed
from the paste itself (kb.feedback.shapes). Built in one pass, and only over the lines that
hold the shape.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from kb.engine.parse import _ANY_PREFIX as _LOG_PREFIX

__all__ = ["View", "views"]

JSON_DEPTH = 3
_WRAP_WIDTH = 60  # a console wraps long lines; a short line ending in a word is just a line
_MAX_WIDTH = 400
_NCCL_PREFIX = re.compile(r"[A-Za-z0-9_.-]+:\d+:\d+ \[\d+\]")
_TERMINAL_WIDTHS = frozenset({80, 100, 120, 132, 140, 150, 160, 180, 200, 220, 240, 250, 256, 300})
_JSON_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])')
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


class View:
    """`text`, another reading of an original text, and where each of its pieces came from:
    `pieces` holds (view start, view length, original start, original length); a piece of
    equal lengths maps character by character, another maps as a whole."""

    def __init__(self, text: str, pieces: list[tuple[int, int, int, int]], parent: View | None = None) -> None:
        self.text = text
        self.pieces = pieces
        self.parent = parent  # a view of a view (JSON inside a JSON string): positions map through it
        self._starts = [p[0] for p in pieces]

    def _at(self, i: int, end: bool) -> int:
        k = bisect.bisect_right(self._starts, i if not end else i - 1) - 1
        vs, vl, os_, ol = self.pieces[max(k, 0)]
        if vl == ol:
            return os_ + (i - vs)
        return os_ + ol if end else os_

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span that view span [start, end) came from."""
        span = self._at(start, False), self._at(end, True)
        return self.parent.original(*span) if self.parent is not None else span


def _rewrite(text: str, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str]) -> View | None:
    """The lines of `text` that hold a match of `pattern`, each match decoded; the other lines
    are left out, so that the rules read only what the decoding changed (and its line)."""
    pieces: list[tuple[int, int, int, int]] = []
    out: list[str] = []
    vpos = 0
    pos = end = -1  # where the copy has reached, and the end of the current line range

    def copy(upto: int) -> None:
        nonlocal vpos, pos
        if upto > pos:
            pieces.append((vpos, upto - pos, pos, upto - pos))
            out.append(text[pos:upto])
            vpos += upto - pos
            pos = upto

    for m in pattern.finditer(text):
        if m.start() > end:  # a match on a line after the current range: close it, open another
            if pos >= 0:
                copy(end)
                pieces.append((vpos, 1, end, 1 if end < len(text) else 0))
                out.append("\n")
                vpos += 1
            pos = text.rfind("\n", max(end, 0), m.start()) + 1 if end >= 0 else text.rfind("\n", 0, m.start()) + 1
        copy(m.start())
        new = decode(m)
        pieces.append((vpos, len(new), m.start(), m.end() - m.start()))
        out.append(new)
        vpos += len(new)
        pos = m.end()
        nl = text.find("\n", m.end())
        end = max(end, len(text) if nl < 0 else nl)
    if not pieces:
        return None
    copy(end)
    return View("".join(out), pieces)


def _json_unescape(m: re.Match[str]) -> str:
    s = m.group(0)
    if s[1] == "u":
        return chr(int(s[2:], 16))
    return {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(s[1], s[1])


def _percent(m: re.Match[str]) -> str:
    c = chr(int(m.group(0)[1:], 16))
    return c if c.isprintable() or c in "\n\t" else m.group(0)


_WRAP = re.compile(r"(?<=\S)\r?\n[ \t]*(?=\S)")


def _unwrapped(text: str) -> View | None:
    """Lines a console wrapped joined again: a newline inside a word, after a line exactly as
    long as a terminal is wide (a common width, or the length of two other lines of the paste:
    a console cuts every line of a long message at the same column)."""
    lengths: dict[int, int] = {}
    for line in text.split("\n"):
        n = len(line.rstrip("\r"))
        if n >= _WRAP_WIDTH:
            lengths[n] = lengths.get(n, 0) + 1
    widths = {n for n, k in lengths.items() if k >= 3 or n in _TERMINAL_WIDTHS}

    def wrapped(m: re.Match[str]) -> bool:
        end = m.start()
        lo = max(0, end - _MAX_WIDTH - 1)
        nl = text.rfind("\n", lo, end)
        if nl < 0 and lo > 0:
            return False  # longer than any terminal is wide
        if end - (nl + 1) not in widths:
            return False
        # A line that starts with a log prefix (`host:pid:tid [0] NCCL`, a timestamp, `[rank1]:`)
        # is a line of its own, however long the one before it.
        return not (_LOG_PREFIX.match(text, m.end(), m.end() + _MAX_WIDTH) or _NCCL_PREFIX.match(text, m.end()))

    joins = [m for m in _WRAP.finditer(text) if wrapped(m)]
    if not joins:
        return None
    keep = {m.start() for m in joins}
    return _rewrite(text, _WRAP, lambda m: "" if m.start() in keep else m.group(0))


def views(text: str) -> list[tuple[View, bool]]:
    """The readings of `text` in which its secrets' other shapes are undone, each with whether
    it is a decoding (True: what a rule finds there is in the text, encoded) or the console
    wraps joined (False: only a value across a join is new there)."""
    out = []
    source, parent = text, None
    for _ in range(JSON_DEPTH):  # a JSON record's message may itself be JSON (an event log's)
        if "\\" not in source or not _JSON_ESCAPE.search(source):
            break
        v = _rewrite(source, _JSON_ESCAPE, _json_unescape)
        if v is None:
            break
        v.parent = parent
        out.append((v, True))
        source, parent = v.text, v
    if "%" in text and _PERCENT.search(text):
        v = _rewrite(text, _PERCENT, _percent)
        if v is not None:
            out.append((v, True))
    if "\n" in text:
        v = _unwrapped(text)
        if v is not None:
            out.append((v, False))
    return out
