"""Messages a console wrapped over several lines, joined again for the matcher.

Rich (its logging handler, the exception line under its tracebacks) prints a long message over
two or more lines, at the console's width. A signature written from the message as the program
formats it then misses it, and a generic guide answers instead. Two layouts are recognised, each
by what the console itself does, so that a line is joined only when it cannot be a line of its own:

- a log handler's columns: the next line is indented exactly to the column where the message
  started on this one, after the time and the level, with nothing else on it before the text
  (rich's handler prints the rest of a message that way);
- a rich traceback's box: after its bottom border (`╰───╯`, as wide as the console), the
  exception's lines are wrapped at that width: a line goes on on the next when the next one's
  first word would not have fitted after it;
- the same for an exception line with no box above it (the excerpt starts at the exception): the
  width is that of its widest line, and at least two of its lines must be that full.

A joined line keeps its number; the lines it took in stay as they are (they are shown as
pasted, and match on their own as before).
"""
from __future__ import annotations

import re
from itertools import pairwise

from kb.engine.tracebacks import _ERRORISH

MIN_COLUMN = 10  # a message column after a time and a level; a traceback's source lines are indented 4
MIN_WRAPPED = 60  # a line shorter than this was not wrapped by a console
MAX_JOINED = 6  # lines one message may be joined from
_STRUCTURE = ('File "', "Traceback (", "^", "During handling", "The above exception")
_LEVEL = re.compile(r"\b(?:ERROR|CRITICAL|FATAL|WARNING|Error|Exception)\b")
# Rich's handler prints where the record was logged at the right end of its first line: "  core.py:123".
_LOGGED_AT = re.compile(r"\s{2,}[\w.-]+\.py:\d+\s*$")
_BOTTOM = re.compile(r"^\s*╰─+╯\s*$")
_EXC_START = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception): \S")


def _indent(raw: str) -> int:
    return len(raw) - len(raw.lstrip(" "))


def _column_continues(line: str, nxt: str) -> bool:
    """Whether `nxt` is the rest of `line`'s message, indented to the column it started at."""
    c = _indent(nxt)
    if c < MIN_COLUMN or c >= len(line) or "\t" in nxt[:c] or len(line.rstrip()) < MIN_WRAPPED:
        return False
    if line[c - 2:c] != "  " or line[c] == " " or nxt.lstrip().startswith(_STRUCTURE):
        return False
    return bool(_LEVEL.search(line[:c]) or _ERRORISH.search(line))


def _first_word(raw: str) -> int:
    words = raw.split(None, 1)
    return len(words[0]) if words else 0


def _fixed_width(raws: list[str], bodies: list[int], texts: list[str], k: int, out: dict[int, int]) -> None:
    """An exception line a console wrapped at its width with no box to say the width (an excerpt
    that starts at the exception, as rich or a fixed-width terminal printed it): the lines under it
    that are not records of their own are its rest when at least two of them are as full as the
    widest, and one goes on on the next where the next one's first word would not have fitted."""
    block = [k]
    for j in range(k + 1, min(len(texts), k + MAX_JOINED)):
        t = texts[j]
        if not t.strip() or t[:1] in " \t" or t.startswith(_STRUCTURE) or _EXC_START.match(t):
            break
        block.append(j)
    if len(block) < 2:
        return
    length = {j: len(raws[j].rstrip()) - bodies[j] for j in block}
    width = max(length.values())
    if sum(1 for j in block[:-1] if length[j] >= width - 3) < 2:
        return
    for a, b in pairwise(block):
        if length[a] + 1 + _first_word(texts[b]) <= width:
            break
        out[a] = b


def continuations(raws: list[str], bodies: list[int] | None = None, texts: list[str] | None = None) -> dict[int, int]:
    """Line index → the index of the line its message goes on on, for the lines a console wrapped.
    `bodies`: where each line's text starts in its raw line (after its log prefix); `texts`: the
    lines as the matcher reads them."""
    out: dict[int, int] = {}
    if texts is not None and bodies is not None:
        for k in (k for k, t in enumerate(texts) if ": " in t and len(t) >= MIN_WRAPPED and _EXC_START.match(t)):
            _fixed_width(raws, bodies, texts, k, out)
    indented = " " * MIN_COLUMN
    # Only the lines that may be wrapped are looked at: a million-line log has few.
    for j in (j for j, r in enumerate(raws) if r.startswith(indented)):
        if j and _column_continues(raws[j - 1], raws[j]):
            out[j - 1] = j
    for b in (b for b, r in enumerate(raws) if "╰" in r and _BOTTOM.match(r)):
        width = len(raws[b].rstrip())
        k = b + 1
        while k + 1 < len(raws) and k - b < MAX_JOINED * 2 and raws[k].strip() and raws[k + 1].strip():
            if raws[k + 1].startswith(" ") or len(raws[k].rstrip()) + 1 + _first_word(raws[k + 1]) <= width:
                break  # the next word would have fitted: the message itself goes on on a new line
            out[k] = k + 1
            k += 1
    return out


def joined(raws: list[str], bodies: list[int], texts: list[str]) -> dict[int, str]:
    """The matcher's text for each line a console wrapped: its own text and the rest of the message.
    `texts` are the lines as the matcher reads them (prefix off, spaces collapsed), `bodies` where
    each starts in its raw line."""
    nexts = continuations(raws, bodies, texts)
    out: dict[int, str] = {}
    for k in sorted(nexts, reverse=True):  # from the bottom, so that a line takes in the ones already joined below it
        head = texts[k]
        if _LOGGED_AT.search(raws[k]):
            head = _LOGGED_AT.sub("", head)
        tail = out.get(k + 1, texts[k + 1]).strip()
        if sum(1 for j in range(k, k + MAX_JOINED) if j in nexts) >= MAX_JOINED:
            tail = texts[k + 1].strip()
        out[k] = head.rstrip() + " " + tail
    return out
