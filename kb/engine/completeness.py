"""Whether a paste stops short: a traceback without its error line, a last line cut off.

Copying a log from a terminal or a web page often stops a few lines early, and the line
that is missing (the exception's own line, at the end of every Python traceback) is the
one that finds the guide. Saying so helps more than any guide offered for what is there.
"""
from __future__ import annotations

import re

from kb.engine.parse import Paste

_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s*File "[^"]+", line \d+(?:, in \S+)?\s*$')
_FRAME_START = re.compile(r'^\s*File "')
_OPENERS = " \t([{,=:"

def _in_traceback(text: str, indent: int = 0) -> bool:
    """A line that belongs inside a traceback, above its error line: a frame, its source
    line (indented more than the traceback's header) or the carets under it."""
    return not text.strip() or len(text) - len(text.lstrip(" \t")) > indent or text.lstrip().startswith("^")


def _open_quote(text: str) -> bool:
    """Whether the line ends inside a quoted string. A quote opens after a space or a bracket
    (an apostrophe, as in "model's", follows a letter); the same quote closes it."""
    quote = None
    for i, c in enumerate(text):
        if quote is not None:
            if c == quote:
                quote = None
        elif c in "'\"" and (i == 0 or text[i - 1] in _OPENERS):
            quote = c
    return quote is not None


def _cut_off(text: str) -> bool:
    """A last line that cannot be whole: a frame without its line number, or a quoted string
    left open. Not brackets: real messages leave them open (vLLM's "(4.26 GiB KV cache is
    needed, …"), and Python prints only the first line of a statement (`warnings.warn(`)."""
    if _FRAME_START.match(text):
        return not _FRAME.match(text)
    return _open_quote(text)


def cut_notes(paste: Paste) -> list[tuple[str, dict]]:
    """Codes with their values (worded by kb.text.say), in the order they should be read."""
    lines = paste.lines
    last = len(lines) - 1
    while last >= 0 and not lines[last].text.strip():
        last -= 1
    if last < 0:
        return []
    notes: list[tuple[str, dict]] = []
    # The header may stand after a log message's own words or a progress bar on its line.
    header = next((i for i in range(last, -1, -1) if _HEADER in lines[i].text), None)
    # A traceback printed inside another program's output (pip's, indented) has its lines indented more.
    indent = len(lines[header].text) - len(lines[header].text.lstrip(" \t")) if header is not None else 0
    if header is not None and all(_in_traceback(ln.text, indent) for ln in lines[header + 1: last + 1]):
        notes.append(("traceback_cut", {"line": lines[header].no}))
    # Inside a cut traceback only its last frame line is judged: a source line may open a string
    # it closes lines later (`raise RuntimeError('''`).
    if not (notes and not _FRAME_START.match(lines[last].text)) and _cut_off(lines[last].text.strip()):
        notes.append(("ends_mid_line", {}))
    return notes
