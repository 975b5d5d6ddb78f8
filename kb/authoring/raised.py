"""`kb validate`'s checks on signatures that say where upstream raises their text (`raised_at`).

1. The template still matches the format string it claims: the format is rendered with varied
   argument values (kb/authoring/formats.py), the prefix put before each rendering, and the
   signature's template (or regex) must find a match in every one. A template written for one
   wording, or typed tighter than the arguments allow ({int} for a field that may print text),
   fails here with the rendering that it misses.
2. The release range bounds the guide's version range. A guide's error can only be printed by the
   releases that contain its text, so the guide's `applies_to` must name the package with a range,
   and that range must lie within the union of its signatures' `raised_at` ranges for the package.
   The check reports; it never rewrites a guide (the range to write is in the message). The other
   direction (the guide covering the whole release range) is not required: a bug fixed in a later
   release narrows the guide, while the message stays in the source.
"""
from __future__ import annotations

from collections import defaultdict

import re2
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from kb.authoring.formats import FormatError
from kb.authoring.renderings import renderings
from kb.engine.signature import TemplateError, compile_regex, compile_template, normalise_text
from kb.guides.load import Problem
from schema.models import Guide, Signature


def raised_problems(g: Guide, path: str) -> list[Problem]:
    out = []
    for s in g.signatures:
        if s.raised_at is not None:
            why = format_mismatch(s)
            if why:
                out.append(Problem(path, None, f"signatures[{s.id}].raised_at", why))
    out.extend(range_problems(g, path))
    return out


def format_mismatch(s: Signature) -> str | None:
    """Why the signature's pattern misses a rendering of its format string, or None when it matches them all."""
    r = s.raised_at
    try:
        compiled = (compile_template(s.template, allow_generic=True) if s.template is not None
                    else compile_regex(s.regex, s.anchor, allow_generic=True))
    except TemplateError:
        return None  # reported where the signature is compiled
    try:
        samples = renderings(r.format, r.style, r.arg_types, r.prefix or "")
    except FormatError as exc:
        return f"the format string cannot be read as {r.style}: {exc}"
    pattern = re2.compile(compiled.pattern)
    for text in samples:
        if pattern.search(normalise_text(text)) is None:
            return (f"the template does not match {text!r}, a rendering of its format string "
                    f"(python -m kb template-from-format gives one that matches every rendering)")
    return None


def range_problems(g: Guide, path: str) -> list[Problem]:
    ranges: dict[str, list[str]] = defaultdict(list)
    for s in g.signatures:
        if s.raised_at is not None:
            ranges[canonicalize_name(s.raised_at.package)].append(s.raised_at.versions)
    components = {canonicalize_name(c.name): c for c in g.applies_to.components}
    out = []
    for package, specs in ranges.items():
        union = " or ".join(f"'{v}'" for v in dict.fromkeys(specs))
        comp = components.get(package)
        if comp is None or not comp.versions:
            what = "names no range for" if comp is not None else "does not name"
            out.append(Problem(path, None, "applies_to.components",
                               f"{what} {package}, whose releases {union} raise this guide's text (raised_at): give it that range, or the part of it the guide applies to"))
        elif not within(comp.versions, specs):
            out.append(Problem(path, None, "applies_to.components",
                               f"{package} '{comp.versions}' reaches releases that do not contain the guide's text: raised_at says {union}"))
    return out


def within(spec: str, unions: list[str]) -> bool:
    """Whether every version `spec` admits is admitted by one of `unions`: tested on every version the
    specifiers name and on versions just below and just above each, which decides it for ranges made of
    comparisons (>=, <, ==, ~=, !=)."""
    inner = SpecifierSet(spec)
    outer = [SpecifierSet(u) for u in unions]
    for v in _probes([inner, *outer]):
        if inner.contains(v, prereleases=True) and not any(o.contains(v, prereleases=True) for o in outer):
            return False
    return True


def _probes(specs: list[SpecifierSet]) -> list[Version]:
    out = {Version("0"), Version("99999")}
    for ss in specs:
        for sp in ss:
            try:
                v = Version(sp.version.replace(".*", ""))
            except InvalidVersion:
                continue
            rel = list(v.release)
            out.add(v)
            out.add(Version(".".join(map(str, rel + [0, 1]))))  # just above
            out.add(Version(".".join(map(str, rel[:-1] + [rel[-1] + 1]))))  # the next release at its precision
            lower = _below(rel)
            if lower:
                out.add(Version(".".join(map(str, lower))))
    return sorted(out)


def _below(rel: list[int]) -> list[int] | None:
    """A release just below `rel`: 0.6.0 -> 0.5.999, 2.1 -> 2.0.999."""
    rel = list(rel)
    for i in range(len(rel) - 1, -1, -1):
        if rel[i] > 0:
            return rel[:i] + [rel[i] - 1, 999, 999]
    return None
