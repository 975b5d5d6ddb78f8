"""A secret in every shape it takes in one paste.

The rules (kb.feedback.redact.rules) read text as it is. A secret also reaches a paste
wrapped over two lines by a console, inside a JSON log record (`"exc_info": "…\\n…"`),
percent-encoded in an access-log line, base64-encoded, or twice — once where a rule sees it
and once where none does. So the rules also read *views* of the paste in which those shapes
are undone, each view keeping where its characters came from; then every value found secret,
in the paste or in a view, is removed at every place it occurs and in each of its encodings.

Linear in the paste: a view is built in one pass only when its shape occurs at all, base64
runs are decoded up to a budget, and the values are found again with one Aho-Corasick pass.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import quote

import ahocorasick

from kb.engine.upstream import PROJECTS
from kb.feedback.views import views

__all__ = ["Found", "known_values", "spread"]


class Found(NamedTuple):
    """A value a rule removed, and the placeholder that stood in for it."""

    value: str
    mark: str


# Placeholders for personal data: their values spread only as whole words, and only names
# that are not a common account (a `root@host` prompt must not remove every "root").
_PERSONAL = frozenset({"<user>", "<host>", "<ip>", "<email>"})
_COMMON_NAMES = frozenset("root ubuntu admin user users home runner jovyan ec2-user nobody guest test local "
                          "localhost docker default data work workspace".split())
# Names of packages: a home folder called `sglang` is a user name there, not in `sglang/srt/…`.
_PACKAGES = frozenset({pkg for p in PROJECTS for pkg in p.packages} | {"transformers", "python", "conda", "cuda", "nvidia"})
MIN_SECRET = 8  # a shorter removed value ("token" cut to a few characters) is not spread
MIN_NAME = 4
MIN_PIECE = 6  # a wrapped secret's piece on one line, removed where that line is redacted alone
# A longer "value" is a run of repeated text a rule took whole (`sk-sk-sk-…`), not a secret that
# recurs; the automaton would also recurse that deep. Every PEM block is found by its own rule.
MAX_SECRET = 1024
MAX_VALUES = 5_000  # distinct values spread; a paste with more is hostile, and each was removed where found
B64_BUDGET = 2_000_000  # characters of base64 decoded per paste
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])")
def _b64(run: str) -> str | None:
    """The text a base64 run encodes, or None when it does not encode text."""
    s = run.rstrip("=")
    alt = "-" in s or "_" in s
    try:
        raw = (base64.urlsafe_b64decode if alt else base64.b64decode)(s + "=" * (-len(s) % 4))
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\n\t\r" for c in decoded)
    return decoded if decoded and printable >= 0.95 * len(decoded) else None


def _forms(value: str) -> set[str]:
    """A value as it may appear elsewhere in the same paste."""
    forms = {value, quote(value, safe=""), quote(value, safe="/:"), json.dumps(value)[1:-1]}
    if len(value) >= MIN_SECRET:
        forms.add(base64.b64encode(value.encode()).decode().rstrip("="))
    return {f for f in forms if f}


_SEPARATORS = re.compile(r"(?:[=:;,&@\s\"'|]|\\[nrt])+")
_URL_SEPARATORS = re.compile(r"(?:[=:;,&@\s\"'|/?#]|\\[nrt])+")
_DOMAIN_WORDS = frozenset("svc cluster local internal intranet intra corp lan localdomain home arpa compute ec2 "
                          "default".split())
_NAME = re.compile(r"[A-Za-z_.-]+")


def _parts(f: Found) -> list[Found]:
    """The pieces of a removed value that are secrets on their own: a rule may take a name with
    its value (`aws_session_token=…`), a user with a password (`mlops:…`), a whole webhook URL;
    the same paste may print the bare piece elsewhere."""
    if f.mark == "<host>":  # an internal name's labels (`ray-head.ml-team.svc.cluster.local`)
        labels = [x for x in f.value.split(".") if x != f.value and x.lower() not in _DOMAIN_WORDS]
        labels += [x[3:] for x in f.value.split(".") if x.lower().startswith("ip-")]  # ip-10-0-1-23: the address
        return [Found(x, f.mark) for x in labels if len(x) >= MIN_NAME]
    if f.mark in _PERSONAL:
        return []
    seps = _URL_SEPARATORS if "://" in f.value else _SEPARATORS
    pieces = [x for x in seps.split(f.value) if x != f.value]
    return [Found(x, "<secret>") for x in pieces
            if MIN_SECRET <= len(x) <= MAX_SECRET and not _NAME.fullmatch(x) and not x.startswith("<")]


def _spreads(f: Found, in_view: bool = False) -> bool:
    if f.mark in _PERSONAL:
        name = f.value.lower()
        # An address is found by its rule wherever it stands as text; only a view finds an encoded one.
        return (len(f.value) >= MIN_NAME and name not in _COMMON_NAMES
                and name.replace("-", "_") not in _PACKAGES)
    return MIN_SECRET <= len(f.value) <= MAX_SECRET and not f.value.startswith("<")


def _word_bounded(text: str, start: int, end: int) -> bool:
    return (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum())


Rules = Callable[[str, "list[Found] | None"], str]


def _in_views(text: str, rules: Rules) -> tuple[list[tuple[int, int, str]], list[Found]]:
    """Spans of `text` whose decoded or unwrapped reading holds a secret, and the values found."""
    marks: list[tuple[int, int, str]] = []
    values: list[Found] = []
    for view, decoded in views(text):
        seen: list[Found] = []
        rules(view.text, seen)
        for f in dict.fromkeys(seen):  # one search per distinct value: a log repeats its secret
            # A value with a blank in it was read across a decoded `\t` or `\n`, as in a Windows
            # path (`C:\Users\me\tools`): not a value of the text.
            if not _spreads(f, in_view=True) or any(c in "\t\n\r\b\f" for c in f.value):
                continue
            # Joined lines make host names and addresses out of two lines' ends (`-> 2` + `node7:…`);
            # a credential or an e-mail address across the join is what a wrap really cuts.
            if not decoded and f.mark in _PERSONAL and f.mark != "<email>":
                continue
            i = view.text.find(f.value)
            while i >= 0:
                start, end = view.original(i, i + len(f.value))
                if decoded or "\n" in text[start:end]:  # a wrap view adds only values across a join
                    marks.append((start, end, f.mark))
                    values.append(f)
                    if not decoded:  # each line's piece, for a caller that redacts one line at a time
                        values += [Found(piece, f.mark) for piece in re.split(r"\r?\n[ \t]*", text[start:end])
                                   if len(piece) >= MIN_PIECE]
                i = view.text.find(f.value, i + len(f.value))
    budget = B64_BUDGET
    for m in _B64_RUN.finditer(text):
        if budget <= 0:
            break
        budget -= len(m.group(0))
        decoded_text = _b64(m.group(0))
        if decoded_text is None:
            continue
        inner: list[Found] = []
        rules(decoded_text, inner)
        if inner:
            marks.append((m.start(), m.end(), "<secret>"))
            values.append(Found(m.group(0), "<secret>"))
    return marks, values


def known_values(text: str, rules: Rules) -> list[Found]:
    """Every value of `text` found secret or personal, in any shape, that is to be removed
    wherever it recurs: for redacting the text's lines one at a time (a stored signature)."""
    found: list[Found] = []
    rules(text, found)
    every = list(dict.fromkeys([*found, *_in_views(text, rules)[1]]))
    every += [part for f in every for part in _parts(f)]
    return [f for f in every if _spreads(f, in_view=f.mark == "<ip>" and f not in found)]


def spread(text: str, once: str, found: list[Found], rules: Rules, known: list[Found] | tuple[Found, ...] = ()) -> str:
    """`text` redacted, given `once`, the rules' pass over it, which recorded `found`. Spans whose
    decoded or unwrapped reading holds a secret are replaced first (and the rules run again);
    then every value found anywhere is removed wherever else it is left, in each encoding."""
    marks, more = _in_views(text, rules)
    out = once
    if marks:
        found = []
        out = rules(_replace(text, marks), found)
    every = list(dict.fromkeys([*found, *more]))
    every += [part for f in every for part in _parts(f)]
    values = {f.value: f.mark for f in [*every, *known] if _spreads(f) or f in known}
    if not values:
        return out
    automaton = ahocorasick.Automaton()
    for value, mark in list(values.items())[:MAX_VALUES]:
        for form in _forms(value):
            automaton.add_word(form, (form, mark))
    automaton.make_automaton()
    left = []
    for end, (form, mark) in automaton.iter(out):
        start = end - len(form) + 1
        if mark in _PERSONAL and not _word_bounded(out, start, end + 1):
            continue
        left.append((start, end + 1, mark))
    return _replace(out, left) if left else out


def _replace(text: str, marks: list[tuple[int, int, str]]) -> str:
    """`text` with each span replaced by its placeholder; overlapping spans become one, the
    longest placeholder kind winning ties by position."""
    marks.sort(key=lambda m: (m[0], -m[1]))
    out: list[str] = []
    pos = 0
    cur: tuple[int, int, str] | None = None
    for start, end, mark in marks:
        if cur is not None and start < cur[1]:
            cur = (cur[0], max(cur[1], end), cur[2] if cur[2] not in _PERSONAL else mark)
            continue
        if cur is not None:
            out.append(text[pos:cur[0]])
            out.append(cur[2])
            pos = cur[1]
        cur = (start, end, mark)
    if cur is not None:
        out.append(text[pos:cur[0]])
        out.append(cur[2])
        pos = cur[1]
    out.append(text[pos:])
    return "".join(out)
