"""Prose in two languages, and what Markdown may and may not make of it."""
from __future__ import annotations

import re

from markdown_it import MarkdownIt
from pydantic import BaseModel, ConfigDict, Field, model_validator

LANGS = ("en", "zh")
ID_PATTERN = r"^[a-z0-9][a-z0-9-]{1,79}$"
ITEM_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,39}$"

# Raw HTML in prose would be shown verbatim (the app never renders HTML), but a tag
# in a guide is almost always a mistake or an attack, so it is refused outright.
_MD = MarkdownIt("commonmark")
# Markdown makes HTML only from "<" before a letter, "/", "!" or "?", and links only from
# "](", a "]:" definition or an autolink "<scheme:": text without these is plain.
_MARKUP_HINT = re.compile(r"<[A-Za-z/!?]|\]\(|\]:")
MAX_MARKUP = 200
_MD.validateLink = lambda url: True  # see every link as a renderer would, then judge its scheme here


def _markdown_problem(text: str) -> str | None:
    """What Markdown would turn into markup or a dangerous link, if anything.

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
    for token in _MD.parse(text):
        for t in [token, *(token.children or [])]:
            if t.type in ("html_inline", "html_block"):
                return f"raw HTML ({t.content.strip()[:40]!r})"
            if t.type == "link_open" and not str(t.attrGet("href") or "").startswith("https://"):
                return f"a link that is not https:// ({str(t.attrGet('href'))[:40]!r})"
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
                raise ValueError(f"'{lang}' contains {problem}; write plain text, Markdown and https:// links only")
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
