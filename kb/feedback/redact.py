"""Remove secrets and personal data from pasted text before it is stored or offered.

Everything a user pastes goes through `redact()` before it reaches the database (the
unmatched-error queue, feedback comments) or leaves the page (the guide skeleton). It
replaces what it finds with visible placeholders such as `<hf-token>`, `<secret>`,
`<email>`, `<ip>`, `<user>`, `<host>`, so a reader can still tell that something was there.

A secret is removed in every shape it takes in the paste (kb.feedback.shapes): the rules also
read the paste with console line wraps joined, JSON string escapes and percent-encoding decoded,
and base64 runs decoded; a value found secret in any of these, or at any one place, is then
removed at every place and in each of its encodings.

Three sets of rules, in this order:
1. Private key blocks and credentials in URLs, whole (later rules would take only a part).
2. detect-secrets' provider detectors (kb.feedback.scanner) and our own credential rules
   for what they miss (kb.feedback.credentials): our token shapes, the scanner, then our
   header, command-line and keyword rules.
3. Personal and site data: e-mail addresses, user names, host names, IP addresses
   (kb.feedback.personal).

Design constraints:
- Linear time on large pastes: RE2 where the expression allows it, otherwise patterns
  built so that Python's `re` cannot backtrack (see each module).
- Idempotent: no placeholder can be matched again by any rule (placeholders contain
  `<`/`>`, which no value class accepts, and callbacks leave `<...>` alone).
- Ordinary ML-log content stays byte-identical: library paths, hex addresses,
  CUDA/driver versions (`12.4.131`, `550.54.15`, `0.6.4.1`), `rank=0 pid=123`,
  tokenizer settings (`pad_token=<pad>`), C++ scopes (`c10::Error`), slices (`x[::2]`).
- Callers redact before they template or cut: a cut through a secret leaves a piece
  that no rule recognises any more.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.feedback import credentials as cred
from kb.feedback import personal as pers
from kb.feedback.scanner import scan
from kb.feedback.shapes import Found, known_values, spread

__all__ = ["Found", "known_in", "redact", "rules"]

# A step rewrites the text and, given a list, records what it removed (kb.feedback.shapes.Found).
_Apply = Callable[[str, "list[Found] | None"], str]
# Each step runs only if one of its hints (lower-case substrings that every match must
# contain) occurs in the text: most pastes skip most steps, and a step that cannot match
# costs nothing. No hints: it always runs.
_Step = tuple[_Apply, tuple[str, ...]]
_PLACEHOLDER = re.compile(r"<[a-z0-9-]+>")


def removed(old: str, new: str) -> list[Found]:
    """What a replacement took out of `old`: the text each placeholder of `new` stands for."""
    pieces = _PLACEHOLDER.split(new)
    marks = _PLACEHOLDER.findall(new)
    if not marks or not old.startswith(pieces[0]) or not old.endswith(pieces[-1]):
        return []
    out: list[Found] = []
    pos = len(pieces[0])
    for i, mark in enumerate(marks):
        nxt = pieces[i + 1]
        end = len(old) - len(nxt) if i == len(marks) - 1 else old.find(nxt, pos) if nxt else pos
        if end < pos:
            return out
        if end > pos:
            out.append(Found(old[pos:end], mark))
        pos = end + len(nxt)
    return out


def _sub(pattern: re.Pattern[str], replacement: str | Callable[[re.Match[str]], str], *hints: str) -> _Step:
    def apply(text: str, record: list[Found] | None) -> str:
        if record is None:
            return pattern.sub(replacement, text)

        def one(m: re.Match[str]) -> str:
            new = m.expand(replacement) if isinstance(replacement, str) else replacement(m)
            if new != m.group(0):
                record.extend(removed(m.group(0), new))
            return new
        return pattern.sub(one, text)
    return apply, hints


def _call(fn: Callable[..., str], *hints: str) -> _Step:
    return (lambda text, record: fn(text, record)), hints


_STEPS: tuple[_Step, ...] = (
    _sub(cred.PRIVATE_KEY, "<private-key>", "private key"),
    _sub(cred.URL_USERINFO, r"\1<redacted>@", "://"),
    # Our token shapes first where both know a provider: some of the scanner's expressions stop
    # short (its JWT expression ends lazily and takes two parts of three).
    *(_sub(pattern, placeholder, *hints) for pattern, placeholder, hints in cred.TOKEN_PATTERNS),
    _call(scan),
    _sub(cred.AUTH_HEADER, cred.auth_header, "authorization"),
    _sub(cred.BEARER, cred.bearer, "bearer"),
    *(_sub(pattern, replacement, *hints) for pattern, replacement, hints in cred.COMMAND_RULES),
    _call(cred.assignments, *cred.ASSIGNMENT_HINTS),
    _sub(pers.EMAIL, "<email>", "@"),
    _sub(pers.USER_AT_HOST, pers.user_at_host, "@"),
    _sub(pers.USER_SETTING, pers.user_setting, "user", "login"),
    _sub(pers.POSIX_HOME, pers.home, "/home/", "/users/", "/u/", "/scratch/"),
    _sub(pers.TILDE_HOME, pers.home, "~"),
    _sub(pers.WINDOWS_HOME, pers.home, "users"),
    *(_sub(pattern, replacement, *hints) for pattern, replacement, hints in pers.HOSTS),
    _sub(pers.IPV6, pers.ipv6, ":"),  # before IPv4, so ::ffff:10.0.0.1 goes as one address
    _sub(pers.IP_HOSTNAME, "ip-<ip>", "ip-"),
    _sub(pers.IPV4, pers.ipv4, "."),
)


def rules(text: str, record: list[Found] | None = None) -> str:
    """One pass of every rule over `text`; with `record`, what each removed is appended to it."""
    lowered = text.lower()
    for step, hints in _STEPS:
        if not hints or any(hint in lowered for hint in hints):
            text = step(text, record)
    return text


def redact(text: str, known: Sequence[Found] = ()) -> str:
    """Return `text` with secrets and personal data replaced by `<placeholders>`. `known`: values
    found in the rest of the paste `text` comes from (`known_in`), removed from it as well."""
    found: list[Found] = []
    once = rules(text, found)
    return spread(text, once, found, rules, tuple(known))


def known_in(text: str) -> list[Found]:
    """The secret and personal values of a whole paste, in every shape: pass them to `redact`
    for each line of it that is redacted alone."""
    return known_values(text, rules)
