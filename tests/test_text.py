"""One catalogue for every string a reader sees (kb.text): each key in both languages, once."""
from __future__ import annotations

import ast
import re
import string

from kb.text import CATALOGUE, LANGS, SECTIONS, both, say
from tests.conftest import ROOT

_HAN = r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]"


def _fields(s: str) -> list[str]:
    # A value worded by the engine in both languages comes as `what` and `what_zh`.
    return sorted(f.removesuffix("_zh") for _, f, _, _ in string.Formatter().parse(s) if f)


def test_every_key_has_both_languages_with_the_same_placeholders():
    for key, pair in CATALOGUE.items():
        assert len(pair) == len(LANGS), key
        en, zh = pair
        assert en.strip() and zh.strip(), key
        assert _fields(en) == _fields(zh), key
        assert re.search(_HAN, zh) or en == zh or not re.search(r"[a-z]{4}", en), f"{key}: the Chinese text is not Chinese"
        assert not re.search(f"{_HAN} +{_HAN}", zh), f"{key}: a stray space between Chinese characters"


def test_no_key_is_in_two_sections():
    seen: dict[str, str] = {}
    for name, section in SECTIONS.items():
        for key in section:
            assert key not in seen, f"{key!r} is in {seen[key]} and {name}"
            seen[key] = name
    assert len(seen) == len(CATALOGUE)


def test_words_in_the_readers_language():
    assert say("root_error", "en", line=3) == "The root error, on line 3 of your paste:"
    assert "第 3 行" in say("root_error", "zh", line=3)
    assert say("results", "fr") == say("results", "en")  # another language: English
    assert both("cli_no_guide") == {"en": "No guide for this error yet.", "zh": "这个报错目前还没有指南。"}


def test_no_other_catalogue_or_word_function():
    """Strings in both languages live in kb/text/ only: no module elsewhere defines a word()
    function or a table of (english, chinese) pairs."""
    for path in [*(ROOT / "kb").rglob("*.py"), *(ROOT / "components").rglob("*.py"), ROOT / "app.py"]:
        if path.parent.name == "text":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            assert not (isinstance(node, ast.FunctionDef) and node.name == "word"), f"{path}: a word() function"
            if isinstance(node, ast.Dict) and len(node.values) >= 2:
                pairs = [v for v in node.values if isinstance(v, ast.Tuple) and len(v.elts) == 2
                         and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in v.elts)
                         and re.search(_HAN, v.elts[1].value)]
                nested = [v for v in node.values if isinstance(v, ast.Dict)
                          and {getattr(k, "value", None) for k in v.keys} >= {"en", "zh"}]
                assert len(pairs) < 2 and len(nested) < 2, f"{path}:{node.lineno}: a catalogue of its own; put it in kb/text/"
