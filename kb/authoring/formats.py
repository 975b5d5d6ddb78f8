"""Format strings as the upstream source writes them: parsed into literal text and fields, and
turned into a signature template that every value of the fields matches.

Styles: 'f-string' and 'format' (Python's `{field!conv:spec}`, `{{` for a brace), 'percent'
(Python's `%(name)s`, `%5.2f`), 'printf' (C's `%zu`, `%lld`, `%p`) and 'literal'. The format is
kept as written between its quotes, so its backslash escapes (`\\n`, `\\'`) are decoded here.

Sample renderings, for the check, are in kb/authoring/renderings.py.

The template is conservative: a field becomes a typed placeholder only where the format (a `d` or
`.2f` conversion) or a declared argument type guarantees what it prints, and `{any}` otherwise.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kb.engine.signature import compile_template

STYLES = ("f-string", "format", "percent", "printf", "literal")
ARG_TYPES = ("int", "float", "str", "path", "name", "version")


class FormatError(ValueError):
    """A format string that cannot be read in the style it claims."""


@dataclass(frozen=True)
class Field:
    """One replacement field: its key (the expression or name as written, or None), its position
    (1-based), the conversion that decides what it prints, and whether padding may add spaces."""

    key: str | None
    position: int
    kind: str  # "int", "float", "hex" (digits of a base), "text", "repr"
    padded: bool = False
    suffix: str = ""  # what the conversion prints after the value ('%' for Python's {:.1%})
    conv: str | None = None  # brace style: r, s or a
    spec: str = ""  # the conversion as written: a brace field's spec, or a %-conversion without its key


# ----------------------------------------------------------------- escapes ---

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[0-7]{1,3}|.)", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "0": "\0", "\n": ""}


def decode_escapes(text: str) -> str:
    """The string a literal's backslash escapes stand for (an unknown escape stays as written, as Python keeps it)."""
    def one(m: re.Match) -> str:
        e = m.group(1)
        if e in _SIMPLE:
            return _SIMPLE[e]
        if e[0] in "xu" and len(e) > 1:
            return chr(int(e[1:], 16))
        if e.isdigit():
            return chr(int(e, 8))
        return "\\" + e
    return _ESCAPE.sub(one, text)


# ------------------------------------------------------------------ parse ---

def parse(fmt: str, style: str) -> list[str | Field]:
    """Literal runs (decoded) and fields, in order."""
    if style not in STYLES:
        raise FormatError(f"unknown style {style!r}; known: {', '.join(STYLES)}")
    text = decode_escapes(fmt)
    if style == "literal":
        return [text]
    if style in ("f-string", "format"):
        return _parse_brace(text)
    return _parse_percent(text, c=style == "printf")


def _parse_brace(text: str) -> list[str | Field]:
    out: list[str | Field] = []
    lit = ""
    i = n = 0
    while i < len(text):
        ch = text[i]
        if ch in "{}" and text[i:i + 2] in ("{{", "}}"):
            lit += ch
            i += 2
            continue
        if ch == "}":
            raise FormatError(f"single '}}' at offset {i}: write '}}}}' for a literal brace")
        if ch != "{":
            lit += ch
            i += 1
            continue
        end = _matching_brace(text, i)
        body = text[i + 1:end]
        n += 1
        expr, conv, spec = _split_field(body)
        if expr.endswith("=") and not expr.endswith(("==", "!=", "<=", ">=")):  # f"{x=}" prints "x=" and the repr
            lit += expr
            expr, conv = expr[:-1].strip(), conv or ("r" if not spec else None)
        if lit:
            out.append(lit)
            lit = ""
        out.append(_brace_field(expr.strip() or None, n, conv, spec))
        i = end + 1
    if lit:
        out.append(lit)
    return out


def _matching_brace(text: str, start: int) -> int:
    """The index of the '}' that closes the field opened at `start`, past nested brackets and strings."""
    depth, quote, i = 0, None, start + 1
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                if ch != "}":
                    raise FormatError(f"unbalanced {ch!r} in the field at offset {start}")
                return i
            depth -= 1
        i += 1
    raise FormatError(f"the field at offset {start} is never closed: write '{{{{' for a literal brace")


def _split_field(body: str) -> tuple[str, str | None, str]:
    """expression, conversion (r, s, a or None), format spec: split at the top-level '!' and ':'."""
    depth, quote = 0, None
    for i, ch in enumerate(body):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == "!" and body[i + 1:i + 2] != "=":
            conv, _, spec = body[i + 1:].partition(":")
            return body[:i], conv.strip() or None, spec
        elif depth == 0 and ch == ":" and not _in_lambda(body[:i]):
            return body[:i], None, body[i + 1:]
    return body, None, ""


def _in_lambda(expr: str) -> bool:
    return re.search(r"\blambda\b[^:]*$", expr) is not None


# [[fill]align][sign][z][#][0][width][grouping][.precision][type]
_SPEC = re.compile(r"^(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?z?(?P<alt>#)?(?P<zero>0)?(?P<width>\d+)?[,_]?(?:\.(?P<prec>\d+))?(?P<type>[bcdeEfFgGnosxX%])?$", re.S)


def _brace_field(key: str | None, n: int, conv: str | None, spec: str) -> Field:
    m = None if "{" in spec else _SPEC.match(spec)  # a nested width, or a spec of the value's own type (a date's '%Y')
    if m is None:
        return Field(key, n, "text", padded=True, conv=conv, spec=spec)
    t = m["type"]
    kind = {"d": "int", "n": "float", "e": "float", "E": "float", "f": "float", "F": "float", "g": "float", "G": "float",
            "%": "float", "b": "hex", "o": "hex", "x": "hex", "X": "hex"}.get(t or "", "text")
    if kind == "text" and not t and conv in ("r", "a"):
        kind = "repr"
    zero_filled = bool(m["zero"]) or (m["fill"] == "0" and m["align"] in ("=", ">"))
    padded = bool(m["width"]) and not (zero_filled and kind in ("int", "float", "hex"))
    return Field(key, n, kind, padded, "%" if t == "%" else "", conv, spec)


_PERCENT = re.compile(r"%(?:\((?P<name>[^)]*)\))?(?P<flags>[-+ #0']*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
                      r"(?P<length>hh|h|ll|l|L|q|j|z|Z|t)?(?P<type>[diouxXeEfFgGaAcrspn%])")


def _parse_percent(text: str, c: bool) -> list[str | Field]:
    out: list[str | Field] = []
    pos = n = 0
    for m in _PERCENT.finditer(text):
        _no_stray_percent(text, pos, m.start())
        out.append(text[pos:m.start()])
        pos = m.end()
        if m["type"] == "%":
            out.append("%")
            continue
        n += 1
        t = m["type"]
        if t == "r" or (t == "a" and not c):
            kind = "repr"
        elif t in "diu":
            kind = "int"
        elif t in "eEfFgG":
            kind = "float"
        elif t in "oxXaAp":
            kind = "hex"
        else:
            kind = "text"
        zero_filled = "0" in m["flags"] and "-" not in m["flags"]
        padded = bool(m["width"]) and not (zero_filled and kind in ("int", "float", "hex") and m["width"] != "*")
        spec = m.group(0) if m["name"] is None else "%" + m.group(0)[len(m["name"]) + 3:]
        out.append(Field(m["name"], n, kind, padded, spec=spec))
    _no_stray_percent(text, pos, len(text))
    out.append(text[pos:])
    return _merge([p for p in out if p != ""])


def _no_stray_percent(text: str, start: int, end: int) -> None:
    at = text.find("%", start, end)
    if at >= 0:
        raise FormatError(f"a '%' at offset {at} starts no conversion: write '%%' for a percent sign")


def _merge(parts: list[str | Field]) -> list[str | Field]:
    out: list[str | Field] = []
    for p in parts:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] += p
        else:
            out.append(p)
    return out


# --------------------------------------------------------------- template ---

def declared(field: Field, arg_types: dict[str, str]) -> str | None:
    """The declared type of a field's argument: by the field as written, else by its position."""
    if field.key is not None and field.key in arg_types:
        return arg_types[field.key]
    return arg_types.get(str(field.position))


def placeholder(field: Field, arg_type: str | None) -> str:
    """The placeholder every value of this field matches."""
    if field.padded:
        return "{any}"  # spaces before (or after) the value: no typed placeholder says that
    if field.kind == "int":
        return "{int}"
    if field.kind == "float":
        return "{num}"
    if field.kind == "hex":
        return "{word}"
    typed = {"int": "{int}", "float": "{num}", "path": "{path}", "name": "{ident}", "version": "{version}"}
    if field.kind == "repr":
        return typed.get(arg_type or "", "{quoted}" if arg_type == "str" else "{any}")
    return typed.get(arg_type or "", "{any}")


def template_from_format(fmt: str, style: str, arg_types: dict[str, str] | None = None, prefix: str = "") -> str:
    """A signature template that matches every rendering of `fmt` (checked: it must compile).
    Raises FormatError for an unreadable format, TemplateError when it has too little literal text."""
    arg_types = arg_types or {}
    out = [_escape(prefix)]
    for part in parse(fmt, style):
        if isinstance(part, str):
            out.append(_escape(part))
        else:
            out.append(placeholder(part, declared(part, arg_types)) + _escape(part.suffix))
    template = "".join(out).strip()
    compile_template(template, allow_generic=True)
    return template


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")
