"""Checks over the whole knowledge base: loading problems plus each guide's self-tests.

Every raw error must match its own guide first, in the tier of the guide's scope ("match"
for a specific guide, "triage" for a class guide); every near miss must not; the first raw
error, the one the guide page shows, must read as printed output, not an issue title. All problems
are collected, so an author sees them at once.
"""
from __future__ import annotations

import re
from collections import defaultdict

import re2

from kb import ROOT
from kb.authoring.evidence import evidence_problems
from kb.authoring.raised import raised_problems
from kb.authoring.raw_title import raw_title_problems
from kb.authoring.typography import typography_problems
from kb.engine.index import Index, Pattern
from kb.engine.match import match
from kb.engine.signature import TemplateError, compile_template
from kb.engine.tiers import SCOPE_TIER
from kb.engine.values import check_test, names_in
from kb.guides.load import Problem
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
        own = SCOPE_TIER[g.scope].name  # the tier the guide's scope answers in: match, or triage for a class guide
        for i, raw in enumerate(g.raw_errors):
            result = match(index, raw.pasted())
            top = result.matches[0] if result.matches else None
            if top is None or top.guide_id != gid or top.confidence != own:
                got = f"{top.guide_id} ({top.confidence})" if top else "nothing"
                problems.append(Problem(path, None, f"raw_errors.{i}", f"does not match this guide first with confidence '{own}'; first is {got}"))
        for i, near in enumerate(g.near_misses):
            result = match(index, near.text)
            if any(m.guide_id == gid and m.confidence == own for m in result.matches):
                problems.append(Problem(path, None, f"near_misses.{i}", "matches this guide, but must not"))
        problems.extend(_anchor_checks(g, regexes.get(gid, ()), path))
        problems.extend(value_problems(g, path))
        problems.extend(evidence_problems(g, path))
        problems.extend(typography_problems(g, path))
        problems.extend(reproduction_problems(g, path))
        problems.extend(raw_title_problems(g, path))
        problems.extend(raised_problems(g, path))
    return problems


def _anchor_checks(g: Guide, patterns, path: str) -> list[Problem]:
    """A regex's anchor must be inside what it matches, or retrieval would never find it."""
    out = []
    for p in patterns:
        for raw in g.raw_errors:
            m = re2.search(p.compiled.pattern, raw.pasted())
            if m and p.compiled.anchor not in m.group(0):
                out.append(Problem(path, None, f"signatures[{p.sig}]", f"anchor {p.compiled.anchor!r} is not part of the text the regex matches"))
                break
    return out


def declared_names(g: Guide) -> set[str]:
    """The names a guide's templates capture: its signatures', their contexts' and captures'."""
    names: set[str] = set()
    for s in g.signatures:
        for t in [s.template, *(c.template for c in s.context), *s.captures]:
            if t:
                try:
                    names.update(n for n, _ in compile_template(t, allow_generic=True).names)
                except TemplateError:
                    pass  # reported where the template is compiled
    return names


def value_problems(g: Guide, path: str) -> list[Problem]:
    """Captures compile; a cause's `when` test parses and names only values the guide captures."""
    out = []
    for s in g.signatures:
        for i, t in enumerate(s.captures):
            try:
                if not compile_template(t, allow_generic=True).names:
                    out.append(Problem(path, None, f"signatures[{s.id}].captures.{i}", "a capture needs a named placeholder, e.g. {size:free}"))
            except TemplateError as exc:
                out.append(Problem(path, None, f"signatures[{s.id}].captures.{i}", str(exc)))
    names = declared_names(g)
    for i, c in enumerate(g.causes):
        if c.when is None:
            continue
        why = check_test(c.when.test)
        if why:
            out.append(Problem(path, None, f"causes.{i}.when.test", f"cannot be evaluated: {why}"))
        unknown = sorted(names_in(c.when.test) - names)
        if unknown:
            out.append(Problem(path, None, f"causes.{i}.when.test", f"names values no signature captures: {', '.join(unknown)}"))
        for lang in ("en", "zh"):
            text = getattr(c.when.says, lang) or ""
            missing = sorted(set(re.findall(r"\{([a-z_][a-z0-9_]*)\}", text)) - names)
            if missing:
                out.append(Problem(path, None, f"causes.{i}.when.says.{lang}", f"names values no signature captures: {', '.join(missing)}"))
    return out


def reproduction_problems(g: Guide, path: str) -> list[Problem]:
    """A reproduced guide has its script, and keeps the output it printed as a raw error."""
    if g.reproduced is None:
        return []
    out = []
    if not (ROOT / g.reproduced.script).is_file():
        out.append(Problem(path, None, "reproduced.script", f"{g.reproduced.script} does not exist"))
    if g.reproduced.script != f"repro/{g.id}.py":
        out.append(Problem(path, None, "reproduced.script", f"the script of guide {g.id} is repro/{g.id}.py"))
    if not any(r.source == f"repro:{g.id}" for r in g.raw_errors):
        out.append(Problem(path, None, "raw_errors", f"a reproduced guide keeps the output as a raw error with source 'repro:{g.id}'"))
    return out


def validate(index: Index) -> list[Problem]:
    return list(index.problems) + self_test(index)


def untitled_references(index: Index) -> int:
    """How many references (over all guides) have no title. Every reference should have one,
    the source's own; until they all do this is a count `kb validate` reports, not a refusal."""
    return sum(1 for g in index.guides.values() for r in g.references if not r.title)
