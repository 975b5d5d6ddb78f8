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


# Emphasis characters too: identifiers such as flashinfer_jit_cache.__version__ must not turn bold.
# A backtick outside a code span is escaped as well, so that the only backticks Markdown sees
# are the delimiters of the spans code_spans() chose.
_LABEL = re.compile(r"([\\\[\]<>$*_`])")
_RUN = re.compile(r"`+")


def code_spans(text: str) -> list[str]:
    """`text` cut into [text, code, text, code, …, text] the way CommonMark pairs backticks: a run
    of n backticks opens a span that the next run of exactly n backticks closes; a run with no
    closer is text, and the search goes on right after it. (Pairing single backticks alone is
    wrong: in "`0``[`<img …>`" the first backtick opens a span that the one after "[" closes, so
    "<img …>" is outside code.) A span never crosses a line end here, where Markdown's may: a
    run whose closer is on a later line is text, escaped, so no span of ours is read otherwise."""
    parts: list[str] = []
    done = look = 0  # the end of what is placed; where the next opening run is looked for
    while (run := _RUN.search(text, look)) is not None:
        line_end = text.find("\n", run.end())
        line_end = len(text) if line_end < 0 else line_end
        width = len(run.group())
        close = next((m for m in _RUN.finditer(text, run.end(), line_end) if len(m.group()) == width), None)
        if close is None:
            look = run.end()
            continue
        parts += [text[done:run.start()], text[run.start():close.end()]]
        done = look = close.end()
    parts.append(text[done:])
    return parts


def label(text: str) -> str:
    """Guide or visitor text as a title, a widget label or a table cell. Streamlit reads those
    as Markdown too: links, images, directives, HTML and maths are neutralised (they all need
    one of these characters), so is emphasis (`__version__` is a name, not bold); `code` stays."""
    return "".join(part if i % 2 else _LABEL.sub(r"\\\1", part) for i, part in enumerate(code_spans(text)))


def code(text: str) -> str:
    """A value as inline code; as escaped text when a backtick or a line break would end the span."""
    return f"`{text}`" if text and not any(c in text for c in "`\n\r") else esc(text)


def prose(text: str) -> str:
    """Guide prose: literal, except `code spans`, which authors use for commands and flags."""
    # Only what the split captured is a code span: a run of backticks between two spans
    # ("```" in "````<img …>`") is text, and is escaped.
    return "".join(part if i % 2 else esc(part) for i, part in enumerate(_CODE.split(text)))


def highlight(text: str, start: int, end: int, width: int = 240) -> str:
    """One pasted line with the matched part highlighted, cut around the match if long."""
    lo = max(0, start - width // 3)
    hi = min(len(text), max(end, lo + width))
    before, hit, after = text[lo:start], text[start:end], text[end:hi]
    pre = "…" if lo > 0 else ""
    post = "…" if hi < len(text) else ""
    return f"{pre}{esc(before)}:orange-background[{esc(hit)}]{esc(after)}{post}"


_TICKS = re.compile(r"`+")


def literal(text: str) -> str:
    """Text as a Markdown code span that shows it exactly: monospaced, spaces kept (Streamlit
    draws inline code with white-space: pre-wrap), and nothing in it read as markup. Escaping
    is not enough for pasted text: Streamlit's Markdown still links a bare URL and turns `->`
    into an arrow in escaped text, never inside code. Empty text gives an empty string."""
    text = text.replace("\r", " ").replace("\n", " ")
    if not text:
        return ""
    fence = "`" * (max((len(m) for m in _TICKS.findall(text)), default=0) + 1)
    # CommonMark strips one space from each end when both ends are spaces, and a span may not
    # begin or end with its fence's character: one space each side then, which is stripped.
    pad = text.startswith("`") or text.endswith("`") or (text[0] == " " and text[-1] == " " and text.strip() != "")
    return f"{fence} {text} {fence}" if pad else f"{fence}{text}{fence}"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, cut after the last whole sentence that fits (never inside a
    word or an escape), or the whole text when no sentence ends before the limit."""
    if len(text) <= limit:
        return text
    ends = [m.start() for m in _SENTENCE_END.finditer(text, 0, limit + 1) if m.start() <= limit]
    return text[: ends[-1]].rstrip() + " …" if ends else text
