"""The secret detectors of detect-secrets (Yelp's maintained scanner), run in linear time.

detect-secrets ships one detector per provider (AWS, Azure storage, Slack, Stripe, npm,
PyPI, JWT, private keys, basic auth in URLs, …) as compiled regular expressions. We use
those expressions as they are, but not detect-secrets' own matching loop:

- Python's `re` backtracks, and several of the expressions go quadratic or worse on
  hostile input (100 KB of `sk-` takes minutes). Every expression RE2 accepts is run by
  RE2, which is linear; the few RE2 refuses (they use look-around) are run by Python on
  one line at a time, cut into bounded windows, so no input can make them slow.
- `analyze_string` yields a capture group where the expression has one, which for some
  detectors is only the prefix (`ghp` of a GitHub token). We replace the captured value
  when it is the secret (8 characters or more), and the whole match otherwise.

Left out: KeywordDetector (its expressions are catastrophic on `passwordpassword…`; its
keyword list is used by our own linear assignment rule instead) and IPPublicDetector
(our address rule also removes private addresses and keeps version numbers).
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from itertools import pairwise
from typing import NamedTuple

import re2
from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin

from kb.feedback.shapes import Found

__all__ = ["scan"]

_SKIPPED = frozenset({"KeywordDetector", "IPPublicDetector"})
_MIN_GROUP = 8  # a captured value shorter than this is a prefix, not the secret
_WINDOW = 4_000  # characters a look-around expression sees at once
_OVERLAP = 600  # longer than any secret those expressions find (GitLab tokens: 50)
_RE2_MAX_REPEAT = 1000  # RE2 refuses larger counted repetitions
_MIN_ENTROPY_LENGTH = 16


class _Detector(NamedTuple):
    placeholder: str
    linear: object | None  # an RE2 pattern, or None
    fallback: re.Pattern[str] | None  # the Python pattern, for windows of one line
    candidates: object | None  # RE2: the fallback without its look-around, which matches a superset


def _placeholder(secret_type: str) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")
    return f"<{words}>"


# Look-around and back-references: RE2 has neither (and would log each refusal to stderr).
_NOT_RE2 = re.compile(r"\(\?<?[=!]|\\[1-9]")
_LOOK_AROUND = re.compile(r"\(\?<?[=!](?:[^()\\]|\\.)*\)")


def _as_re2(pattern: re.Pattern[str], source: str | None = None) -> object | None:
    """The same expression under RE2, or None when RE2 cannot run it."""
    source = pattern.pattern if source is None else source
    if _NOT_RE2.search(source):
        return None
    source = re.sub(r"\{(\d+),(\d+)\}", lambda m: f"{{{m.group(1)},{min(int(m.group(2)), _RE2_MAX_REPEAT)}}}",
                    source)
    if pattern.flags & re.VERBOSE:
        if "#" in source:
            return None  # comments: leave it to Python
        source = re.sub(r"\s+", "", source)
    if pattern.flags & re.IGNORECASE:
        source = "(?i)" + source
    try:
        return re2.compile(source)
    except re2.error:
        return None


@functools.cache
def _detectors() -> tuple[_Detector, ...]:
    out: list[_Detector] = []
    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    for secret_type, cls in sorted(plugins.items()):
        if cls.__name__ in _SKIPPED or not issubclass(cls, RegexBasedDetector):
            continue
        # Each detector sets `denylist` as a class attribute; the base class declares a property.
        for pattern in cls.denylist:  # type: ignore[attr-defined]
            linear = _as_re2(pattern)
            # Without its look-around an expression matches more, never less: where that finds
            # nothing, the exact (Python) expression cannot find anything either.
            candidates = None if linear else _as_re2(pattern, _LOOK_AROUND.sub("", pattern.pattern))
            out.append(_Detector(_placeholder(secret_type), linear, None if linear else pattern, candidates))
    return tuple(out)


_DELIMITERS = " \t\n=:\"'"  # some expressions include the character before or after the secret


def _spans(match: re.Match[str]) -> Iterator[tuple[int, int]]:
    groups = [match.span(i) for i in range(1, (match.re.groups or 0) + 1)]
    groups = [(a, b) for a, b in groups if a >= 0 and b - a >= _MIN_GROUP]
    if groups:
        yield from groups
        return
    start, end = match.span()
    whole = match.group(0)
    yield start + (len(whole) - len(whole.lstrip(_DELIMITERS))), end - (len(whole) - len(whole.rstrip(_DELIMITERS)))


def _windows(text: str) -> Iterator[tuple[int, str]]:
    """Each line, cut into overlapping windows of bounded size, with its offset."""
    start = 0
    for line in text.split("\n"):
        lo = 0
        while True:
            yield start + lo, line[lo : lo + _WINDOW]
            if lo + _WINDOW >= len(line):
                break
            lo += _WINDOW - _OVERLAP
        start += len(line) + 1


def _found(text: str) -> list[tuple[int, int, str]]:
    hits: list[tuple[int, int, str]] = []
    for detector in _detectors():
        if detector.linear is not None:
            for m in detector.linear.finditer(text):  # type: ignore[attr-defined]
                hits.extend((a, b, detector.placeholder) for a, b in _spans(m))
            continue
        assert detector.fallback is not None
        if detector.candidates is not None and detector.candidates.search(text) is None:  # type: ignore[attr-defined]
            continue
        for offset, window in _windows(text):
            if detector.candidates is not None and detector.candidates.search(window) is None:  # type: ignore[attr-defined]
                continue
            for m in detector.fallback.finditer(window):
                hits.extend((offset + a, offset + b, detector.placeholder) for a, b in _spans(m))
    hits.extend(_high_entropy(text))
    return hits


# --- quoted strings of high entropy (detect-secrets' Base64 and Hex detectors) -------------------

@functools.cache
def _entropy_plugins() -> tuple[tuple[object, HighEntropyStringsPlugin], ...]:
    out = []
    plugins: dict[str, type] = get_mapping_from_secret_type_to_class()
    for cls in plugins.values():
        if issubclass(cls, HighEntropyStringsPlugin):
            # Each subclass (Base64, Hex) fixes charset and limit itself; only the base takes them.
            plugin = cls()  # type: ignore[call-arg]
            # Their expression, `(['"])([charset]+)(\1)`, with the back-reference spelled out for RE2.
            charset = re.escape(plugin.charset)
            out.append((re2.compile(f"'([{charset}]+)'|\"([{charset}]+)\""), plugin))
    return tuple(out)


def _high_entropy(text: str) -> Iterator[tuple[int, int, str]]:
    for pattern, plugin in _entropy_plugins():
        for m in pattern.finditer(text):  # type: ignore[attr-defined]
            group = 1 if m.group(1) is not None else 2
            value = m.group(group)
            # Short quoted words (ids, names) can score high by chance; secrets are longer.
            if len(value) >= _MIN_ENTROPY_LENGTH and plugin.calculate_shannon_entropy(value) > plugin.entropy_limit:
                yield m.start(group), m.end(group), "<secret>"
    for m in _QUOTED_TOKEN.finditer(text):
        group = 1 if m.group(1) is not None else 2
        if random_looking(m.group(group)):
            yield m.start(group), m.end(group), "<secret>"


# A fixed entropy limit misses a third of random 32-character keys (their entropy is capped by
# their length: log2(32) = 5 bits at most, and the Base64 limit is 4.5). A quoted run of letters
# and digits is a key when it mixes cases and digits the way random text does: its character
# class changes at more than `_SWITCHES` of its positions (CamelCase names and words change at
# a third or fewer), and its entropy is near the most its length allows.
_QUOTED_TOKEN = re2.compile(r"'([A-Za-z0-9+/=_-]{20,256})'|\"([A-Za-z0-9+/=_-]{20,256})\"")
_SWITCHES = 0.45
_LOWER_RUN = re.compile(r"[a-z]{3,}")


def _kind(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.isupper() else 2 if c.islower() else 3


def random_looking(value: str) -> bool:
    chars = [c for c in value if c.isalnum()]
    if len(chars) < 20 or not (any(c.isdigit() for c in chars) and any(c.isupper() for c in chars)
                               and any(c.islower() for c in chars)):
        return False
    # Words in it (`Phi3SmallForCausalLM`): runs of three lower-case letters are rare in random text.
    if sum(len(w) for w in _LOWER_RUN.findall(value)) >= 0.4 * len(chars):
        return False
    switches = sum(_kind(a) != _kind(b) for a, b in pairwise(chars)) / (len(chars) - 1)
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return switches > _SWITCHES and entropy >= 0.8 * math.log2(min(n, 64))


def scan(text: str, record: list | None = None) -> str:
    """`text` with every secret detect-secrets' detectors find replaced by a `<placeholder>`;
    with `record`, each (value, placeholder) removed is appended to it."""
    hits = _found(text)
    if not hits:
        return text
    hits.sort(key=lambda h: (h[0], -h[1]))
    out: list[str] = []
    pos = 0
    for start, end, placeholder in hits:
        if end <= pos:
            continue  # inside a span already replaced
        if start < pos:  # overlaps the span just replaced: that placeholder covers it too
            pos = end
            continue
        out.append(text[pos:start])
        out.append(placeholder)
        if record is not None:
            record.append(Found(text[start:end], placeholder))
        pos = end
    out.append(text[pos:])
    return "".join(out)
