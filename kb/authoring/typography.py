"""Chinese prose has no space between two Chinese characters.

The usual cause is YAML itself: a folded (`>-`) or plain text that an editor wrapped turns
each line break into a space, so a sentence broken between two Chinese characters shows a
stray gap on the page. Only the guide's own prose (its L10n texts) is checked: raw errors,
quotes and titles are verbatim copies of a source and keep what the source printed.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

from pydantic import BaseModel

from kb.guides.load import Problem
from schema.models import Guide, L10n

# CJK ideographs (unified, extension A, compatibility), CJK symbols and punctuation (、。「」…)
# and the full-width forms Chinese text uses for its punctuation (，：（）！？；).
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff01-\uff60\uffe0-\uffee"
# A run of spaces between two of them; the ideographic space U+3000 is itself in the class.
STRAY_SPACE = re.compile(f"(?<=[{CJK}])[ \t\u00a0]+(?=[{CJK}])")


def prose_fields(obj: object, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, text) of every prose text in a guide, both languages."""
    if isinstance(obj, L10n):
        for lang in ("en", "zh"):
            value = getattr(obj, lang)
            if value:
                yield f"{path}.{lang}", value
    elif isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from prose_fields(getattr(obj, name), f"{path}.{name}" if path else name)
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from prose_fields(item, f"{path}.{i}")


def stray_spaces(text: str) -> list[str]:
    """The places in `text` where a space sits between two Chinese characters, with a few
    characters around each so an author can find them."""
    return [text[max(0, m.start() - 6):m.end() + 6] for m in STRAY_SPACE.finditer(text)]


def typography_problems(g: Guide, path: str) -> list[Problem]:
    out = []
    for field, text in prose_fields(g):
        found = stray_spaces(text)
        if found:
            shown = ", ".join(repr(f) for f in found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
            out.append(Problem(path, None, field, f"a space between two Chinese characters ({shown}); Chinese text has "
                                                  "none. In a folded YAML text, a line break there becomes a space: "
                                                  "join the lines."))
    return out
