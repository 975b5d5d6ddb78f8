"""Every string a reader sees, from the pages, the command line and the API, in English and
Chinese: one catalogue of `key: (english, chinese)` and one function, `say`, that words a key.

The engine records what it found as codes with values (`("verified", {"line": 13, …})`) and
words them only when shown, so that the JSON output and both languages stay in step. The
sections are files by who speaks (the pages, the engine, the commands); their keys are one
name space (tests/test_text.py checks that no key is in two sections and every key has both
languages with the same placeholders).
"""
from __future__ import annotations

from kb.text.cli import CLI
from kb.text.engine import CUT, FILE_NOTES, REASONS, TIER_WORDS
from kb.text.page import PAGE

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "中文"}
SECTIONS: dict[str, dict[str, tuple[str, str]]] = {"page": PAGE, "reasons": REASONS, "tiers": TIER_WORDS, "cut": CUT,
                                                   "file": FILE_NOTES, "cli": CLI}
CATALOGUE: dict[str, tuple[str, str]] = {k: v for section in SECTIONS.values() for k, v in section.items()}


def say(key: str, lang: str = "en", **values: object) -> str:
    """The text of `key` in `lang` (English for any other), with `values` filled in."""
    en, zh = CATALOGUE[key]
    text = zh if lang == "zh" else en
    return text.format(**values) if values else text


def both(key: str, **values: object) -> dict[str, str]:
    """The text of `key` in every language, for an answer that is worded before its reader is known."""
    return {lang: say(key, lang, **values) for lang in LANGS}
