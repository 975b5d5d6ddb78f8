"""Text from a paste or a guide shown through Markdown without ever becoming markup.

Streamlit's Markdown also reads `$…$` as maths and `:name[…]` as directives, so every
ASCII punctuation character of untrusted text is backslash-escaped (CommonMark allows it),
and HTML is never enabled.
"""
from __future__ import annotations

import re

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_CODE = re.compile(r"(`[^`\n]+`)")


def esc(text: str) -> str:
    """Plain text, shown literally."""
    return _PUNCT.sub(r"\\\1", text).replace("\n", "  \n")


def prose(text: str) -> str:
    """Guide prose: literal, except `code spans`, which authors use for commands and flags."""
    out = []
    for part in _CODE.split(text):
        if len(part) > 2 and part.startswith("`") and part.endswith("`"):
            out.append(part)
        else:
            out.append(esc(part))
    return "".join(out)


def highlight(text: str, start: int, end: int, width: int = 240) -> str:
    """One pasted line with the matched part highlighted, cut around the match if long."""
    lo = max(0, start - width // 3)
    hi = min(len(text), max(end, lo + width))
    before, hit, after = text[lo:start], text[start:end], text[end:hi]
    pre = "…" if lo > 0 else ""
    post = "…" if hi < len(text) else ""
    return f"{pre}{esc(before)}:orange-background[{esc(hit)}]{esc(after)}{post}"
