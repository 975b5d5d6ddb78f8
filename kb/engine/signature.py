"""Signature templates: compile them to RE2 patterns, find their literal anchors, and
propose templates from an error line (for `kb new --from-error`).

A template is literal text with typed placeholders. Literal parts are what retrieval
looks for (an Aho-Corasick automaton over anchors); the compiled pattern verifies.
RE2 guarantees linear time, so no guide can make the matcher backtrack.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import re2

# What each placeholder stands for. None of them crosses a line.
PLACEHOLDERS: dict[str, str] = {
    "int": r"[-+]?\d+",
    "num": r"[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?",
    "hex": r"0[xX][0-9a-fA-F]+",
    "path": r"[^\s'\"]+",
    "word": r"\S+",
    "ident": r"[A-Za-z_][\w.]*",
    "quoted": r"(?:'[^'\n]*'|\"[^\"\n]*\")",
    "version": r"v?\d+(?:\.\d+)*[\w.+-]*",
    "any": r"[^\n]*?",
    # An amount of memory as PyTorch, vLLM and NCCL print it: '20.00 MiB', '1.5GB', '512 bytes'.
    "size": r"\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|bytes|B)\b",
}
# {type} or {type:name}; a name makes the captured value available to explanations and causes.
_TOKEN = re.compile(r"\{\{|\}\}|\{([a-z]+)(?::([a-z_][a-z0-9_]{0,30}))?\}|(\s+)")
MIN_ANCHOR = 8
# Quotes are straightened in pastes and templates alike: the first seed's title
# was published with typographic quotes around a Python repr.
QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "\u00a0": " ", "\u3000": " "})


class TemplateError(ValueError):
    pass


@dataclass(frozen=True)
class Compiled:
    """A template or regex made ready for retrieval and verification."""

    pattern: str  # RE2 syntax
    anchor: str  # literal text every match contains
    literal_chars: int  # how much fixed text the pattern pins down: its specificity
    nlines: int  # lines a match may span
    names: tuple[tuple[str, str], ...] = ()  # (name, placeholder type) of its named placeholders


_QUOTE_CHARS = re.compile("[" + "".join(chr(c) for c in QUOTES) + "]")


def normalise_text(text: str) -> str:
    # str.translate with a dict is slow on megabytes of text; most pastes have nothing to translate.
    if text.isascii():  # no typographic quote or special space can be there
        return text
    return text.translate(QUOTES) if _QUOTE_CHARS.search(text) else text


def literal_segments(template: str) -> list[str]:
    """The literal runs between placeholders, with white space collapsed to one space."""
    parts: list[str] = []
    current = ""
    for piece in _split(template):
        if piece[0] in ("lit", "brace"):
            current += piece[1]
        elif piece[0] == "ws":
            current += " "
        else:
            parts.append(current)
            current = ""
    parts.append(current)
    # Lines of a multi-line template are separate runs: retrieval looks within lines.
    out: list[str] = []
    for p in parts:
        out.extend(s.strip() for s in p.split("\n"))
    return [s for s in out if s]


def _split(template: str):
    pos = 0
    for m in _TOKEN.finditer(template):
        if m.start() > pos:
            yield ("lit", template[pos:m.start()])
        tok = m.group(0)
        if tok in ("{{", "}}"):
            yield ("brace", tok[0])  # an escaped brace: literal, never a stray one
        elif m.group(1) is not None:
            if m.group(1) not in PLACEHOLDERS:
                raise TemplateError(f"unknown placeholder {{{m.group(1)}}}; known: " + ", ".join(f"{{{k}}}" for k in PLACEHOLDERS))
            yield ("ph", m.group(1), m.group(2))
        else:
            yield ("ws", "\n" if "\n" in tok else " ")
        pos = m.end()
    if pos < len(template):
        yield ("lit", template[pos:])


def compile_template(template: str, allow_generic: bool = False) -> Compiled:
    """`allow_generic`: a signature with required context may match a line every log has
    (a bare `AssertionError` inside vLLM's code): the context makes it specific."""
    template = normalise_text(template).strip()
    out: list[str] = []
    names: list[tuple[str, str]] = []
    for kind, value, *name in _split(template):
        if kind == "lit":
            if "{" in value or "}" in value:
                raise TemplateError(f"stray brace in {value!r}; write '{{{{' or '}}}}' for a literal brace")
            out.append(re.escape(value))
        elif kind == "brace":
            out.append(re.escape(value))
        elif kind == "ph":
            if name and name[0]:
                if name[0] in dict(names):
                    raise TemplateError(f"placeholder name {name[0]!r} is used twice in one template")
                names.append((name[0], value))
                out.append(f"(?P<{name[0]}>" + PLACEHOLDERS[value] + ")")
            else:
                out.append("(?:" + PLACEHOLDERS[value] + ")")
        else:
            # A line break in a template may be a wrapped line in the paste, with or without indentation.
            out.append(r"[ \t]*\n\s*" if value == "\n" else r"\s+")
    segments = literal_segments(template)
    anchor = max(segments, key=len, default="")
    if len(anchor) < MIN_ANCHOR:
        raise TemplateError(
            f"template needs a literal run of at least {MIN_ANCHOR} characters (longest is {anchor!r}): it would match too much")
    pattern = "".join(out)
    _check_pattern(pattern, allow_generic)
    return Compiled(pattern, anchor, sum(len(s) for s in segments), template.count("\n") + 1, tuple(names))


# Every match must contain the anchor (8 characters or more), so a regex that matches any
# of these short strings matches text without its anchor: `.+`, `\S`, `a|b` would match
# nearly every line they are tried on.
_SHORT = "\n".join(("x", "0", " ", "\t", ":", ".", "-", "ab", "a b", "Error", "error:", "1234567"))


def compile_regex(regex: str, anchor: str, allow_generic: bool = False) -> Compiled:
    if len(anchor.strip()) < MIN_ANCHOR:
        raise TemplateError(f"anchor {anchor!r} is shorter than {MIN_ANCHOR} characters")
    _check_pattern(regex, allow_generic)
    m = re2.search(regex, _SHORT)
    if m is not None:
        raise TemplateError(f"pattern matches {m.group(0)!r}, which does not contain its anchor: it would match almost anything")
    nlines = regex.count(r"\n") + 1
    names = tuple((n, "regex") for n in re2.compile(regex).groupindex)
    literal = max(len(anchor.strip()), regex_literal_chars(regex))
    return Compiled(regex, normalise_text(anchor).strip(), literal, nlines, names)


def regex_literal_chars(regex: str) -> int:
    """How many characters every match of `regex` must spell out literally: a regex's specificity,
    so that a package's own `tensorrt_llm/…so: undefined symbol` outranks a generic `.so: undefined symbol`."""
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import sre_constants as c
            import sre_parse
        tree = sre_parse.parse(regex)
    except Exception:  # noqa: BLE001 - RE2 syntax Python cannot read: fall back to the anchor
        return 0

    def count(items) -> int:
        n = 0
        for op, av in items:
            if op is c.LITERAL:
                n += 1
            elif op is c.SUBPATTERN:
                n += count(av[-1])
            elif op is c.BRANCH:
                n += min((count(b) for b in av[1]), default=0)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
                n += av[0] * count(av[2]) if av[0] < 100 else 0
        return n

    return count(tree)


def _check_pattern(pattern: str, allow_generic: bool = False) -> None:
    try:
        compiled = re2.compile(pattern)
    except re2.error as exc:
        why = exc.args[0] if exc.args else exc
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else why
        raise TemplateError(f"not a valid RE2 pattern: {why}") from None
    if compiled.search("") is not None:
        raise TemplateError("pattern matches the empty string: it would match everything")
    m = None if allow_generic else compiled.search(_GENERIC)
    if m is not None:
        raise TemplateError(f"pattern matches the generic line {m.group(0)[:80]!r}: it would match almost any error"
                            " (a signature with required context may: give it context)")


# Lines every traceback or log has, naming no error in particular: a signature that
# matches one of them matches nearly every paste ("RuntimeError: {any}").
_GENERIC = "\n".join((
    "Traceback (most recent call last):",
    '  File "/zzz/zzz.py", line 1, in zzz',
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
    "RuntimeError: zzz", "ValueError: zzz", "Exception: zzz", "AssertionError", "Error: zzz", "error: zzz",
    "ERROR 01-01 00:00:00 [zzz.py:1] zzz", "INFO 01-01 00:00:00 [zzz.py:1] zzz", "WARNING: zzz",
    "[rank0]: zzz", "zzz failed", "Killed",
))


# Volatile tokens, most specific first, for proposing templates from a real line.
_VOLATILE = [
    (re.compile(r"0[xX][0-9a-fA-F]{4,}"), "{hex}"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+@-]+){2,}[\\/]?"), "{path}"),
    (re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\""), None),  # kept; see propose_template
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?![\w.])"), "{num}"),
    (re.compile(r"(?<![\w])[-+]?\d+(?![\w])"), "{int}"),
]


def propose_template(line: str, max_len: int = 240) -> str:
    """A template for one error line: literal text kept, volatile values as placeholders."""
    text = normalise_text(line).strip()[:max_len].replace("{", "{{").replace("}", "}}")
    for rx, repl in _VOLATILE:
        if repl is None:
            continue
        text = rx.sub(repl, text)
    return re.sub(r"\s+", " ", text)
