"""The values in the user's message, and the cause they point to.

A signature's named placeholders (`{size:tried}`) and its `captures` templates read values
near the matched lines: how much memory was asked for and how much was free, which
collective timed out after how long. A cause's `when` test over those values says
whether it fits this paste; the page then quotes the user's own numbers. Tests are
evaluated by simpleeval (no Python code from a guide ever runs).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import re2
from simpleeval import EvalWithCompoundTypes, InvalidExpression

from kb.engine.results import CauseFit, Match, Value  # noqa: F401 (CauseFit and Value re-exported)
from kb.engine.signature import TemplateError, compile_template
from kb.text import say

if TYPE_CHECKING:
    from kb.engine.parse import Paste
    from schema.models import Guide

UNITS = {"b": 1, "bytes": 1, "kb": 1e3, "kib": 2**10, "mb": 1e6, "mib": 2**20, "gb": 1e9, "gib": 2**30,
         "tb": 1e12, "tib": 2**40, "pb": 1e15, "pib": 2**50}
_SIZE = re.compile(r"([\d.]+)\s?([KMGTP]i?B|bytes|B)\b", re.I)
_UNIT_LITERAL = re.compile(r"(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|TiB|KB|MB|GB|TB)\b")
CAPTURE_WINDOW = 4  # lines around the matched error where its other values are looked for


def number(text: str, kind: str) -> float | None:
    if kind == "size":
        m = _SIZE.fullmatch(text.strip())
        return float(m.group(1)) * UNITS[m.group(2).lower()] if m else None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


@lru_cache(maxsize=4096)
def _capture_pattern(template: str):
    try:
        c = compile_template(template, allow_generic=True)
    except TemplateError:
        return None, ()
    return re2.compile(c.pattern), c.names


def capture(g: "Guide", m: "Match", paste: "Paste") -> dict[str, Value]:
    """Every named value the matched signature, its context and its captures read in the paste."""
    out: dict[str, Value] = {}
    evs = [m.evidence] + [c.evidence for c in m.contexts if c.evidence is not None and c.kind == "pattern"]
    for ev in evs:
        if ev is None or not ev.groups:
            continue
        kinds = dict(ev.pattern.compiled.names) if ev.pattern is not None else {}
        for name, text in ev.groups.items():
            out.setdefault(name, Value(name, text, number(text, kinds.get(name, ""))))
    sig = next((s for s in g.signatures if s.id == m.signature), None)
    if sig is None or not sig.captures or m.evidence is None:
        return out
    lo = max(0, m.evidence.spans[0].line - CAPTURE_WINDOW)
    hi = min(len(paste.lines), m.evidence.spans[-1].line + CAPTURE_WINDOW + 1)
    window = "\n".join(paste.lines[i].text for i in range(lo, hi))
    for template in sig.captures:
        rx, names = _capture_pattern(template)
        found = rx.search(window) if rx is not None else None
        if found is None:
            continue
        kinds = dict(names)
        for name, text in found.groupdict().items():
            if text is not None:
                out.setdefault(name, Value(name, text, number(text, kinds.get(name, ""))))
    return out


def expression(test: str) -> str:
    """A `when` test in simpleeval's syntax: '1 GiB' is written out as a product of units."""
    return _UNIT_LITERAL.sub(lambda m: f"({m.group(1)}*{m.group(2)})", test)


def names_in(test: str) -> set[str]:
    return set(re.findall(r"\b[a-z_][a-z0-9_]*\b", expression(test))) - {"and", "or", "not"} - set(_UNIT_NAMES)


_UNIT_NAMES = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def check_test(test: str) -> str | None:
    """Why a `when` test cannot be evaluated, or None."""
    try:
        EvalWithCompoundTypes(names={**_UNIT_NAMES, **dict.fromkeys(names_in(test), 1.0)}, functions={}).eval(expression(test))
    except (InvalidExpression, SyntaxError, TypeError, ZeroDivisionError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def cause_fits(g: "Guide", values: dict[str, Value]) -> list[CauseFit]:
    out = []
    for i, c in enumerate(g.causes):
        if c.when is None:
            continue
        needed = names_in(c.when.test)
        nums = {n: values[n].number for n in needed if n in values and values[n].number is not None}
        fits: bool | None = None
        if len(nums) == len(needed):
            try:
                fits = bool(EvalWithCompoundTypes(names={**_UNIT_NAMES, **nums}, functions={}).eval(expression(c.when.test)))
            except (InvalidExpression, SyntaxError, TypeError, ZeroDivisionError):
                fits = None
        texts = {n: v.text for n, v in values.items()}
        if fits is False:
            # `says` is what the cause means when its test holds; filled with numbers that fail the
            # test it would state something false as a fact ("the very first collective (SeqNum
            # 1580)"). Say instead which of the user's numbers argue against it.
            shown = ", ".join(f"{n} {texts[n]}" for n in sorted(needed) if n in texts)
            out.append(CauseFit(i, fits, say("cause_against", "en", values=shown, test=c.when.test),
                                say("cause_against", "zh", values=shown, test=c.when.test)))
            continue
        out.append(CauseFit(i, fits, _fill(c.when.says.en or c.when.says.zh or "", texts),
                            _fill(c.when.says.zh or c.when.says.en or "", texts)))
    return out


def _fill(template: str, texts: dict[str, str]) -> str:
    return re.sub(r"\{([a-z_][a-z0-9_]*)\}", lambda m: texts.get(m.group(1), m.group(0)), template)
