"""The page's language, and its strings from the one catalogue (kb.text) in that language."""
from __future__ import annotations

import streamlit as st

from kb.text import LANG_NAMES, LANGS, say

LANG_LABELS = LANG_NAMES
__all__ = ["LANGS", "LANG_LABELS", "lang", "t"]


def lang() -> str:
    value = st.session_state.get("lang", "en")
    return value if value in LANGS else "en"


def t(key: str, **values: object) -> str:
    return say(key, lang(), **values)
