"""Every KB_* setting is declared once, in kb/config.py, and read when it is used."""
from __future__ import annotations

import re

import pytest

from kb import config
from tests.conftest import ROOT

_NAME = re.compile(r"""["'](KB_[A-Z][A-Z0-9_]*)["']""")
_READ = re.compile(r"(?:environ|getenv)\b[^\n]*KB_")
SOURCES = [p for d in ("kb", "components", "tests", "bench", "deploy") for p in sorted((ROOT / d).rglob("*.py"))] + [ROOT / "app.py"]


def test_every_setting_named_in_the_code_is_declared():
    named = {m.group(1): p for p in SOURCES for m in _NAME.finditer(p.read_text(encoding="utf-8"))}
    undeclared = {n: str(p.relative_to(ROOT)) for n, p in named.items() if n not in config.SETTINGS}
    assert not undeclared, f"declare these in kb/config.py: {undeclared}"


def test_only_the_config_module_reads_settings_from_the_environment():
    # Tests and launchers may *set* variables for a child process; nothing served reads one but kb/config.py.
    served = [p for p in SOURCES if p.parts[len(ROOT.parts)] in ("kb", "components", "app.py") and p != ROOT / "kb" / "config.py"]
    readers = [f"{p.relative_to(ROOT)}:{n}" for p in served
               for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if _READ.search(line)]
    assert served and not readers, readers


def test_settings_are_read_when_used_not_at_import(monkeypatch):
    from kb.engine.parse import parse
    text = "x\n" * 50_000 + "ValueError: the end\n"
    assert parse(text).truncation is None
    monkeypatch.setenv("KB_MAX_PASTE_CHARS", "20000")
    assert parse(text).truncation  # the module was imported long before
    monkeypatch.setenv("KB_RECORDING", "off")
    from kb.feedback.store import Store
    assert Store().enabled is False


def test_a_bad_value_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("KB_API_RATE_LIMIT", "lots")
    with pytest.raises(config.SettingError, match=r"KB_API_RATE_LIMIT='lots' is not a valid int"):
        config.get("KB_API_RATE_LIMIT")
    monkeypatch.setenv("KB_RECORDING", "maybe")
    with pytest.raises(config.SettingError, match="KB_RECORDING"):
        config.get("KB_RECORDING")


def test_types_and_defaults(monkeypatch):
    for name in config.SETTINGS:
        monkeypatch.delenv(name, raising=False)
    assert config.get("KB_DB_TIMEOUT") == 5.0 and config.get("KB_API_TRUSTED_PROXIES") == ()
    monkeypatch.setenv("KB_API_TRUSTED_PROXIES", "127.0.0.1, ::1")
    assert config.get("KB_API_TRUSTED_PROXIES") == ("127.0.0.1", "::1")
    monkeypatch.setenv("KB_MAX_PASTE_LINES", "1_000")
    assert config.get("KB_MAX_PASTE_LINES") == 1000
    assert all(s.meaning and s.kind in ("str", "path", "int", "float", "bool", "list") for s in config.SETTINGS.values())
