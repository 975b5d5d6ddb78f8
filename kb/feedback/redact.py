"""Remove secrets and personal data from pasted text before it is stored or offered.

Everything a user pastes goes through `redact()` before it reaches the database (the
unmatched-error queue, feedback comments) or leaves the page (the guide skeleton). It
replaces what it finds with visible placeholders such as `<hf-token>`, `<secret>`,
`<email>`, `<ip>`, `<user>`, `<host>`, so a reader can still tell that something was there.

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

import functools
import re
from collections.abc import Callable

from kb.feedback import credentials as cred
from kb.feedback import personal as pers
from kb.feedback.scanner import scan

__all__ = ["redact"]

_Replacement = str | Callable[[re.Match[str]], str]
# Each step runs only if one of its hints (lower-case substrings that every match must
# contain) occurs in the text: most pastes skip most steps, and a step that cannot match
# costs nothing. No hints: it always runs.
_Step = tuple[Callable[[str], str], tuple[str, ...]]


def _sub(pattern: re.Pattern[str], replacement: object, *hints: str) -> _Step:
    return functools.partial(pattern.sub, replacement), hints


_STEPS: tuple[_Step, ...] = (
    _sub(cred.PRIVATE_KEY, "<private-key>", "private key"),
    _sub(cred.URL_USERINFO, r"\1<redacted>@", "://"),
    # Our token shapes first where both know a provider: some of the scanner's expressions stop
    # short (its JWT expression ends lazily and takes two parts of three).
    *(_sub(pattern, placeholder, *hints) for pattern, placeholder, hints in cred.TOKEN_PATTERNS),
    (scan, ()),
    _sub(cred.AUTH_HEADER, cred.auth_header, "authorization"),
    _sub(cred.BEARER, cred.bearer, "bearer"),
    *(_sub(pattern, replacement, *hints) for pattern, replacement, hints in cred.COMMAND_RULES),
    (cred.assignments, cred.ASSIGNMENT_HINTS),
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


def redact(text: str) -> str:
    """Return `text` with secrets and personal data replaced by `<placeholders>`."""
    lowered = text.lower()
    for step, hints in _STEPS:
        if not hints or any(hint in lowered for hint in hints):
            text = step(text)
    return text
