"""A paste's line as the person pasted it, with the matcher's offsets carried over.

The matcher reads a cleaned line (`Line.text`: log prefix split off, runs of spaces inside
the line collapsed, quotes straightened, trailing spaces dropped). Shown back to the person,
the line must be theirs: indentation, alignment and curly quotes as they were. This module
finds the original line again and maps each offset of `Line.text` onto it; when it cannot
(the marker line of a cut paste, a shortened overlong line, a change in how lines are read),
it says so and the caller shows `Line.text`.
"""
from __future__ import annotations

from typing import NamedTuple

from kb.engine.parse import Line, clean
from kb.engine.signature import normalise_text

_BLANK = " \t"


class AsPasted(NamedTuple):
    text: str  # the whole line as pasted (ANSI colour codes and control characters removed)
    body_start: int  # where the part after the log prefix starts in `text`
    offsets: tuple[int, ...]  # offsets[i]: position in `text` of character i of Line.text; one more for its end

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Line.text[start:end] as positions in `text`."""
        if end <= start:
            return self.offsets[start], self.offsets[start]
        return self.offsets[start], self.offsets[end - 1] + 1


def split_lines(raw: str) -> list[str]:
    """The pasted text's lines, numbered as `Line.no` numbers them (from 1)."""
    return raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _align(pasted: str, text: str) -> list[int] | None:
    """Positions in `pasted` of each character of `text`, where `text` is `pasted` with some
    runs of blanks made one space and trailing blanks dropped; None when it is not."""
    out: list[int] = []
    i = 0
    for j, ch in enumerate(text):
        if i >= len(pasted):
            return None
        if pasted[i] != ch and pasted[i] in _BLANK and j and text[j - 1] == " ":
            while i < len(pasted) and pasted[i] in _BLANK:  # the rest of a run made one space
                i += 1
            if i >= len(pasted):
                return None
        if pasted[i] == ch:
            out.append(i)
            i += 1
        elif ch == " " and pasted[i] in _BLANK:  # a run of blanks (tabs first) made one space
            out.append(i)
            while i < len(pasted) and pasted[i] in _BLANK:
                i += 1
        else:
            return None
    if pasted[i:].strip(_BLANK) not in ("", "│", "┃"):  # the right border of a box may follow
        return None
    out.append(i if not text else out[-1] + 1)
    return out


def as_pasted(line: Line, raw_lines: list[str]) -> AsPasted | None:
    """`line` as it was pasted, or None when the pasted line does not give its text."""
    if not 0 < line.no <= len(raw_lines):
        return None
    pasted = clean(raw_lines[line.no - 1])
    norm = normalise_text(pasted)  # one character for one: offsets agree with `pasted`
    if len(norm) != len(pasted) or not norm.startswith(line.prefix):
        return None
    start = len(line.prefix)
    offsets = _align(norm[start:], line.text)
    if offsets is None:
        return None
    return AsPasted(pasted, start, tuple(start + o for o in offsets))
