"""The front door to the engine: what the page, `kb match`, `kb watch` and `kb serve` call.

- `diagnose(index, text, env_text=None, lang="en") -> Diagnosis`: everything shown about a paste;
- `as_json(d)`, `as_text(d)`: the forms `kb match --json` / `kb match` print (and the API returns);
- `matched_rows(d, result)`: a result's lines as pasted, for a card;
- `read_environment(text)`: a report on its own; `open_index()`: the served knowledge base;
- `read_log(data)`: a file's bytes read as a log, or refused; `search_guides`: the guide list's search;
- `configured_lookup()`, `look_up(d, lookup)`: the live look-up of upstream reports, where it is on;
- `TIERS`: the tier registry (kb.engine.tiers) a result's `tier` names, for its badge and words.

Nothing under components/ imports kb.engine (tests/test_architecture.py): it comes here.
"""
from __future__ import annotations

from pathlib import Path

from kb import config
from kb.diagnosis.build import diagnose, read_environment, report_cut_note
from kb.diagnosis.model import Cause, Check, Diagnosis, Environment, Fit, GuideResult, Row, Upstream
from kb.diagnosis.output import as_json, as_text
from kb.diagnosis.reports import Found, Lookup, configured_lookup, look_up
from kb.diagnosis.rows import matched_rows
from kb.diagnosis.search import filter_guides, gpu_in_query, search_guides
from kb.engine.index import Index
from kb.engine.input import Decoded
from kb.engine.input import decode_log as read_log
from kb.engine.tiers import TIERS, Tier

__all__ = ["TIERS", "Cause", "Check", "Decoded", "Diagnosis", "Environment", "Fit", "Found", "GuideResult", "Index", "Lookup",
           "Row", "Tier", "Upstream", "as_json", "as_text", "configured_lookup", "diagnose", "filter_guides", "gpu_in_query",
           "look_up", "matched_rows", "open_index", "read_environment", "read_log", "report_cut_note", "search_guides",
           "skeleton_of"]


def open_index(root: Path | str | None = None) -> Index:
    """The knowledge base at `root` (default KB_GUIDES_DIR, else guides/), from the on-disk cache when current."""
    from kb.engine.cache import load_index_cached
    return load_index_cached(root or config.get("KB_GUIDES_DIR"))


def skeleton_of(text: str) -> str:
    """A new guide's file proposed from an error text (an unmatched signature on the Authors page)."""
    from kb.authoring.skeleton import skeleton
    from kb.engine.parse import parse
    return skeleton(parse(text))
