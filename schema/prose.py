"""Prose in two languages, and what Markdown may and may not make of it."""
from __future__ import annotations

import json
import re
import unicodedata

from markdown_it import MarkdownIt
from pydantic import BaseModel, ConfigDict, Field, model_validator

LANGS = ("en", "zh")
ID_PATTERN = r"^[a-z0-9][a-z0-9-]{1,79}$"
ITEM_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,39}$"

# Raw HTML in prose would be shown verbatim (the app never renders HTML), but a tag
# in a guide is almost always a mistake or an attack, so it is refused outright. So is
# every link and image: a guide cites its sources in `references`, whose URLs the app
# renders itself; prose that links would send readers wherever its author liked.
_MD = MarkdownIt("commonmark")
# Markdown makes HTML only from "<" before a letter, "/", "!" or "?", links and images only
# from "](", "][", a "]:" definition or an autolink "<scheme:"; GitHub-flavoured Markdown,
# which Streamlit renders, also links bare URLs, "www." and e-mail addresses. Text with
# none of these is plain.
_MARKUP_HINT = re.compile(r"(?i)<[A-Za-z/!?]|\]\(|\]\s*\[|\]:|://|www\.|mailto:|xmpp:|@")
_BARE_LINK = re.compile(
    r"(?i)(?<![A-Za-z0-9+.-])(?:[a-z][a-z0-9+.-]{1,20}://|www\.|mailto:|xmpp:)\S*"
    r"|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)
# A `code span` on one line, as the app reads it (components/markup.py): inside it nothing is a link.
_CODE_SPAN = re.compile(r"`[^`\n]+`")
MAX_MARKUP = 200
_MD.validateLink = lambda url: True  # type: ignore[method-assign]  # markdown-it's own hook; see every link as a renderer would, then refuse it here

# C0 controls but tab and line feed, DEL, C1 controls (\x9b is a CSI on many terminals) and the
# bidirectional overrides that make text read other than it is stored ("Trojan Source").
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Colour codes (SGR: ESC [ numbers m) are what real logs carry; raw errors may keep them.
SGR = re.compile(r"\x1b\[[0-9;]{0,40}m")
# Fast test over a whole guide: json.dumps escapes C0 controls as \u00XX (and \r, \b, \f).
_DUMPED_CONTROL = re.compile(r"\\u00[01][0-9a-fA-F]|\\[rbf]|[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _markdown_problem(text: str) -> str | None:
    """What Markdown would turn into markup, a link or an image, if anything.

    Parsing is the only reliable way to see what a renderer would see; the cheap test
    first keeps it off the path of the thousands of fields that hold neither.
    """
    if _MARKUP_HINT.search(text) is None:
        return None
    # Markdown's link parsing is quadratic in the brackets of one text: a field of
    # 10,000 "![" takes a second. Prose never needs more than a few.
    n = text.count("[") + text.count("<")
    if n > MAX_MARKUP:
        return f"{n:,} '[' and '<' characters (more than {MAX_MARKUP} is not prose)"
    env: dict = {}
    for token in _MD.parse(text, env):
        for t in [token, *(token.children or [])]:
            if t.type in ("html_inline", "html_block"):
                return f"raw HTML ({t.content.strip()[:40]!r})"
            if t.type == "link_open":
                return f"a link ({str(t.attrGet('href'))[:40]!r}); cite sources in references"
            if t.type == "image":
                return f"an image ({str(t.attrGet('src'))[:40]!r})"
    if env.get("references"):
        return "a link reference definition; cite sources in references"
    bare = _BARE_LINK.search(_CODE_SPAN.sub(" ", text))
    if bare:
        return f"a bare link ({bare.group(0)[:40]!r}), which is rendered as a link; cite it in references, or put it in `code`"
    return None


def control_problem(data: object, path: str = "", log_fields: tuple[str, ...] = ()) -> str | None:
    """Where a guide's data holds a control character, and which, if anywhere.

    `log_fields`: paths (with `*` for a list index) whose text is a pasted log and may keep
    SGR colour codes. The whole guide is tested at C speed first; most guides hold none.
    """
    if not path and not _DUMPED_CONTROL.search(json.dumps(data, ensure_ascii=False, default=str)):
        return None
    if isinstance(data, str):
        pattern = re.sub(r"\.\d+(?=\.|$)", ".*", path)
        text = SGR.sub("", data) if pattern in log_fields else data
        m = CONTROL.search(text)
        if m is None:
            return None
        char = m.group(0)
        name = unicodedata.name(char, "") or {"\x1b": "ESC", "\x07": "BEL", "\r": "CR"}.get(char, "control")
        return (f"{path or 'text'}: contains U+{ord(char):04X} ({name}); guide text may not hold terminal escapes "
                "or other control characters")
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, (list, tuple)) else ()
    for key, value in items:
        problem = control_problem(value, f"{path}.{key}" if path else str(key), log_fields)
        if problem:
            return problem
    return None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


class L10n(_Model):
    """A prose text in English and Chinese; a reader sees the other language when theirs is missing."""

    en: str | None = Field(None, description="English text.", max_length=20_000)
    zh: str | None = Field(None, description="Chinese (simplified) text.", max_length=20_000)

    @model_validator(mode="after")
    def _one_language(self) -> "L10n":
        if not (self.en or "").strip() and not (self.zh or "").strip():
            raise ValueError("needs a non-empty 'en' or 'zh' text")
        for lang in LANGS:
            text = getattr(self, lang)
            problem = _markdown_problem(text) if text else None
            if problem:
                raise ValueError(f"'{lang}' contains {problem}; prose is plain text with `code` spans")
        return self

    def get(self, lang: str) -> tuple[str, str]:
        """The text in `lang`, or the other language's; returns (text, language actually used)."""
        own = getattr(self, lang, None) if lang in LANGS else None
        if own and own.strip():
            return own, lang
        for other in LANGS:
            text = getattr(self, other)
            if text and text.strip():
                return text, other
        return "", lang
