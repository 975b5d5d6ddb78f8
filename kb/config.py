"""Every `KB_*` setting: its name, type, default and meaning, in one place.

Settings are read from the environment when they are used, never when a module is imported:
a test (or an operator's wrapper) that sets one before a call gets it, and no module keeps a
stale copy. The README's configuration table is generated from this list
(`python -m kb generate`; tests/test_readme.py fails when it is stale).

This module imports nothing of the project: every layer may read a setting.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass


class SettingError(ValueError):
    """A `KB_*` variable set to something its type cannot read; the message says which and why."""


def _int(raw: str) -> int:
    return int(raw.replace("_", "").replace(",", ""))


def _bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError("expected 1 or 0 (true/false, yes/no, on/off)")


def _words(raw: str) -> tuple[str, ...]:
    return tuple(w for w in raw.replace(",", " ").split() if w)


_READ: dict[str, Callable[[str], object]] = {"str": str, "path": str, "int": _int, "float": float, "bool": _bool,
                                             "list": _words}


@dataclass(frozen=True)
class Setting:
    name: str
    kind: str  # one of _READ's keys
    default: object  # what get() returns when the variable is unset or empty; None: no value
    meaning: str  # one line for the README's table (Markdown)
    shown_default: str | None = None  # the table's default column, where the default is worked out
    scope: str = "serving"  # "serving" (the app, the API, the CLI) or "tests"

    def read(self, environ: dict[str, str] | None = None) -> object:
        raw = (os.environ if environ is None else environ).get(self.name)
        if raw is None or not raw.strip():
            return self.default
        try:
            return _READ[self.kind](raw.strip())
        except ValueError as exc:
            raise SettingError(f"{self.name}={raw!r} is not a valid {self.kind}: {exc}") from None


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("KB_GUIDES_DIR", "path", None, "the knowledge base the app and `kb serve` use", "`guides/`"),
    Setting("KB_CACHE_DIR", "path", None, "where the built index is cached (rebuilt when a guide or the code changes)",
            "`.kb-cache/`"),
    Setting("KB_DB_PATH", "path", "data/kb.sqlite3", "the SQLite file for feedback (created on first use, WAL mode)"),
    Setting("KB_DATABASE_URL", "str", None,
            "a SQLAlchemy URL, e.g. `postgresql+psycopg://kb:secret@db:5432/kb`; overrides `KB_DB_PATH`"),
    Setting("KB_RECORDING", "bool", True, "`0` switches feedback and the unmatched-error queue off"),
    Setting("KB_DB_TIMEOUT", "float", 5.0, "seconds to wait for a locked or unreachable database before telling the user"),
    Setting("KB_MAX_PASTE_CHARS", "int", 4_000_000,
            "larger pastes are cut: the first 20 % and the last 80 % of this budget are analysed"),
    Setting("KB_MAX_PASTE_LINES", "int", 200_000, "the same cut, by lines"),
    Setting("KB_MAX_ENV_CHARS", "int", 1_000_000, "of a longer environment report only the start is read"),
    Setting("KB_MAX_ENV_LINES", "int", 20_000, "the same, by lines"),
    Setting("KB_MAX_GUIDE_BYTES", "int", 1_000_000, "larger guide files are refused"),
    Setting("KB_LOAD_WORKERS", "int", None, "processes that read guides when there are 400 or more (`1`: none)",
            "one per core, at most 4"),
    Setting("KB_API_MAX_BODY", "int", 10_000_000, "`kb serve`: a request body over this many bytes is refused (413)"),
    Setting("KB_API_RATE_LIMIT", "int", 120,
            "`kb serve`: requests a minute from one client address before it is answered 429 (`0`: no limit)"),
    Setting("KB_API_TRUSTED_PROXIES", "list", (),
            "`kb serve` and the page: addresses of reverse proxies whose `X-Forwarded-For` names the client "
            "(comma-separated); every limit per client address counts that client", "none"),
    Setting("KB_VOTE_LIMIT", "int", 30,
            "the page: new \"did this solve it?\" answers an hour from one client address (`0`: no limit); "
            "one address has one answer per guide whatever the limit"),
    Setting("KB_COMMENT_LIMIT", "int", 10, "the page: comments an hour from one client address (`0`: no limit)"),
    Setting("KB_UNMATCHED_LIMIT", "int", 20,
            "the page: errors an hour one client address adds to the unmatched-error queue (`0`: no limit)"),
    Setting("KB_GITHUB_LOOKUP", "bool", False,
            "`1` looks up the upstream project's GitHub issues for the root error (sends its search words to GitHub); "
            "the page, `kb match` and `kb serve` list the reports"),
    Setting("KB_GITHUB_TOKEN", "str", None,
            "a GitHub token for that look-up (30 searches a minute instead of 10); never stored or shown"),
    Setting("KB_GITHUB_API_URL", "str", "https://api.github.com",
            "the API it asks (a GitHub Enterprise server, or the tests' local one)"),
    Setting("KB_GITHUB_TIMEOUT", "float", 4.0, "seconds before a look-up gives up and says so (0.1 to 30)"),
    Setting("KB_EVAL_VARIANTS", "bool", True, "`0`: `kb eval` scores a JSONL file's cases without their derived variants",
            scope="tests"),
    Setting("KB_PROPERTY_EXAMPLES", "int", 200, "examples per property in tests/test_properties.py", scope="tests"),
    Setting("KB_UPDATE_SCREENSHOTS", "bool", False, "`1`: tests/test_e2e.py rewrites the README's screenshots in docs/",
            scope="tests"),
)}


def get(name: str, environ: dict[str, str] | None = None):
    """The value of setting `name` now (from `environ`, by default the process's environment)."""
    return SETTINGS[name].read(environ)


def raw(name: str) -> str:
    """The variable as set ("" when unset): for cache keys that must change when it does."""
    SETTINGS[name]  # noqa: B018 - a KeyError for a name that is not a setting
    return os.environ.get(name, "")


def table() -> str:
    """The README's configuration table, in Markdown."""
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for scope in ("serving", "tests"):
        for s in SETTINGS.values():
            if s.scope != scope:
                continue
            default = s.shown_default or ("—" if s.default is None or s.default == () else f"`{_shown(s.default)}`")
            rows.append(f"| `{s.name}` | {s.kind} | {default} | {s.meaning}{' (tests)' if scope == 'tests' else ''} |")
    return "\n".join(rows) + "\n"


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
