"""Why a guide ranks where it does: the reason codes are worded by the one catalogue, kb.text.

`word` is kept as a name for kb.engine.match, which words its explanation notes with it.
"""
from __future__ import annotations

from kb.text import say as word

__all__ = ["word"]
