"""Checks over the whole knowledge base: loading problems plus each guide's self-tests.

Every raw error must match its own guide first and with confidence; every near miss
must not match it. All problems are collected, so an author sees them at once.
"""
from __future__ import annotations

from collections import defaultdict

import re2

from kb.engine.index import Index, Pattern
from kb.guides.load import Problem
from kb.engine.match import match
from schema.models import Guide


def self_test(index: Index) -> list[Problem]:
    problems: list[Problem] = []
    # One pass over the patterns, not one per guide: at 10,000 guides that is 10,000 passes fewer.
    regexes: dict[str, list[Pattern]] = defaultdict(list)
    for p in index.patterns:
        if p.kind == "regex":
            regexes[p.guide].append(p)
    for gid, g in index.guides.items():
        path = str(index.paths.get(gid, gid))
        for i, raw in enumerate(g.raw_errors):
            result = match(index, raw.text)
            top = result.matches[0] if result.matches else None
            if top is None or top.guide_id != gid or top.confidence != "match":
                got = f"{top.guide_id} ({top.confidence})" if top else "nothing"
                problems.append(Problem(path, None, f"raw_errors.{i}", f"does not match this guide first with confidence 'match'; first is {got}"))
        for i, near in enumerate(g.near_misses):
            result = match(index, near.text)
            if any(m.guide_id == gid and m.confidence == "match" for m in result.matches):
                problems.append(Problem(path, None, f"near_misses.{i}", "matches this guide, but must not"))
        problems.extend(_anchor_checks(g, regexes.get(gid, ()), path))
    return problems


def _anchor_checks(g: Guide, patterns, path: str) -> list[Problem]:
    """A regex's anchor must be inside what it matches, or retrieval would never find it."""
    out = []
    for p in patterns:
        for raw in g.raw_errors:
            m = re2.search(p.compiled.pattern, raw.text)
            if m and p.compiled.anchor not in m.group(0):
                out.append(Problem(path, None, f"signatures[{p.sig}]", f"anchor {p.compiled.anchor!r} is not part of the text the regex matches"))
                break
    return out


def validate(index: Index) -> list[Problem]:
    return list(index.problems) + self_test(index)
