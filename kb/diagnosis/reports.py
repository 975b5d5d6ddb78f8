"""Upstream reports of a diagnosis's root error, looked up live on GitHub where a deployment
switched the look-up on (KB_GITHUB_LOOKUP, kb.lookup.github). The page, `kb match` and
`kb serve` ask for them here; what they send is the first upstream search's words, which the
diagnosis already redacted and cleaned of paths, values and names."""
from __future__ import annotations

from kb.diagnosis.model import Diagnosis
from kb.lookup.github import Found, Lookup, Report, from_environment

__all__ = ["Found", "Lookup", "Report", "configured_lookup", "look_up"]


def configured_lookup() -> Lookup | None:
    """The look-up the settings ask for, or None when it is off (the default). One per process:
    its cache is what keeps a busy page from asking GitHub on every paste."""
    return from_environment()


def look_up(d: Diagnosis, lookup: Lookup | None) -> Found | None:
    """The reports of the first project the paste names (where its error is most likely
    reported), or None when the look-up is off or there is nothing to search for."""
    if lookup is None or not d.upstream:
        return None
    first = d.upstream[0]
    return lookup.search(first.repo, first.query)
