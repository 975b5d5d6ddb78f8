"""Remove secrets and personal data from pasted text before it is stored or shown.

Everything a user pastes (error logs, comments) goes through `redact()` before it
reaches the database or leaves the page. It replaces tokens, keys, passwords,
e-mail addresses, IP addresses, user names in home paths and credentials in URLs
with visible placeholders such as `<hf-token>`, `<secret>`, `<email>`, `<ip>`,
`<user>`, so a reader can still tell that something was there.

Design constraints:
- Linear time on large pastes. Python's `re` backtracks, so every pattern either
  starts with a literal, or is anchored by a negative look-behind on the same
  character class it then repeats (a run is entered only at its first
  character), and repetitions never overlap one another. That keeps each scan
  O(n) even on a megabyte without spaces.
- Idempotent: no placeholder can be matched again by any pattern (placeholders
  contain `<`/`>`, which no value class accepts, and callbacks leave `<...>` alone).
- Ordinary ML-log content stays byte-identical: library paths, hex addresses,
  CUDA/driver versions (`12.4.131`, `550.54.15`, `0.6.4.1`), `rank=0 pid=123`,
  tokenizer settings (`pad_token=<pad>`), C++ scopes (`c10::Error`), slices (`x[::2]`).
"""
from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable

__all__ = ["redact"]

_Replacement = str | Callable[[re.Match[str]], str]


def _is_placeholder(value: str) -> bool:
    """Already redacted, or a tokenizer special token such as `<pad>` / `[CLS]`."""
    value = value.strip("\"'")
    return (value.startswith("<") and value.endswith(">")) or (value.startswith("[") and value.endswith("]"))


# --- PEM private keys -------------------------------------------------------------
# The END line is optional so that a truncated or mangled paste still loses its key body.
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s:,-]*?"
    r"(?:-----END [A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?=-----)|(?![A-Za-z0-9+/=\s:,-]))"
)

# --- Credentials inside URLs ----------------------------------------------------
# Runs first: later patterns would otherwise replace only part of `user:ghp_…@`.
# Any userinfo goes, not just user:password; a bare user name is personal data too.
_URL_USERINFO = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://)([^\s/@?#<>\"']+)@")

# --- Provider tokens with a recognisable shape ---------------------------------------
_TOKEN_PATTERNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{20,}"), "<hf-token>", ("hf_",)),
    (re.compile(r"(?<![A-Za-z0-9])api_org_[A-Za-z0-9]{20,}"), "<hf-token>", ("api_org_",)),
    (re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}"), "<anthropic-key>", ("sk-ant-",)),
    (re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}"), "<openai-key>", ("sk-",)),
    (re.compile(r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}"), "<github-token>", ("gh",)),
    (re.compile(r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}"), "<github-token>", ("github_pat_",)),
    (re.compile(r"(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}"), "<gitlab-token>", ("glpat-",)),
    (
        re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        "<aws-key-id>",
        ("akia", "asia", "agpa", "aida", "aroa"),
    ),
    (re.compile(r"(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}"), "<google-key>", ("aiza",)),
    (re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}"), "<slack-token>", ("xox",)),
    # JSON Web Tokens: three base64url parts, the first always starts with `{"` -> eyJ.
    (
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"),
        "<jwt>",
        ("eyj",),
    ),
)


# --- HTTP authorisation headers -----------------------------------------------------
_AUTH_HEADER = re.compile(
    r"(?ai)((?<![A-Za-z0-9_-])(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?)"
    r"(?:((?:bearer|basic|token|digest|bot)[ \t]+))?"
    r"([^\s\"',;]+)"
)
_BEARER = re.compile(r"(?<![A-Za-z0-9_])([Bb]earer[ \t]+)([A-Za-z0-9._~+/=-]+)")

# --- key=value, key: value, "key": "value", --key value ---------------------------------
# The name is a run of identifier characters that *ends* with one of these words;
# a space instead of `=`/`:` counts only after a CLI flag (`--token abc`), which the
# callback checks, so that prose like "password reset" stays.
_SECRET_WORDS = (
    r"token|api[_-]?key|apikey|secret|secret[_-]?key|access[_-]?key|private[_-]?key"
    r"|password|passwd|passphrase|client[_-]?secret|credentials?"
)
_ASSIGNMENT = re.compile(
    r"(?ai)(?<![A-Za-z0-9_.-])"
    r"(?P<name>[A-Za-z0-9_.-]*?(?:" + _SECRET_WORDS + r"))"
    r"(?P<sep>[\"']?[ \t]*[=:][ \t]*|[ \t]+(?=[^\s=:-]))"
    r"(?:(?P<q>[\"'])(?P<qv>[^\"'\r\n]*)(?P=q)|[\"']?(?P<uv>[^\s\"',;&)}\]]+))"
)
# `pad_token = "<pad>"`, `tokenizer.eos_token: </s>` and friends are tokenizer
# settings, not credentials; these are the words that precede `_token` in them.
_TOKENIZER_WORDS = frozenset(
    "pad eos bos unk sep cls mask special additional image video audio start end stop eot "
    "boi eoi bod eod boa eoa prefix suffix middle fim sys system user assistant think "
    "default next last first new max min num vocab split".split()
)
_HARMLESS_VALUES = frozenset(
    "true false none null nil yes no str int bytes bool optional any required "
    "undefined unset".split()
)
_ENV_REFERENCE = re.compile(r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%|\*+)$")
# A CLI flag takes a space-separated value, a plain word does not (`token count`).
_FLAG_NAME = re.compile(r"^--?[A-Za-z]")


def _assignment(m: re.Match[str]) -> str | None:
    """The match with its value replaced, or None when it is not a credential."""
    name, sep = m.group("name"), m.group("sep")
    value = m.group("qv") if m.group("q") else m.group("uv")
    if not sep.strip(" \t\"'") and not _FLAG_NAME.match(name):
        return None  # `password reset`: prose, not `--password hunter2`
    words = re.split(r"[._-]+", name.lower().lstrip("-"))
    if len(words) >= 2 and words[-1] == "token" and words[-2] in _TOKENIZER_WORDS:
        return None
    if (
        not value
        or _is_placeholder(value)
        or value.lower() in _HARMLESS_VALUES
        or _ENV_REFERENCE.match(value)
    ):
        return None
    start, end = (m.start("qv"), m.end("qv")) if m.group("q") else (m.start("uv"), m.end("uv"))
    return m.string[m.start() : start] + "<secret>" + m.string[end : m.end()]


def _redact_assignments(text: str) -> str:
    """Like `_ASSIGNMENT.sub(_assignment, text)`, but a declined match gives back its value.

    With plain `sub`, `token token=abc` would swallow `token=abc` as the value of a
    declined prose match; resuming after the separator lets the value be scanned
    again as a name. Every character is scanned at most twice, so it stays linear.
    """
    out: list[str] = []
    pos = 0
    while (m := _ASSIGNMENT.search(text, pos)) is not None:
        replacement = _assignment(m)
        if replacement is None:
            out.append(text[pos : m.end("sep")])
            pos = m.end("sep")
        else:
            out.append(text[pos : m.start()])
            out.append(replacement)
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _auth_header(m: re.Match[str]) -> str:
    if _is_placeholder(m.group(3)):
        return m.group(0)
    return m.group(1) + (m.group(2) or "") + "<secret>"


def _bearer(m: re.Match[str]) -> str:
    value = m.group(2)
    # "Bearer authentication" is prose; a credential is long or has digits.
    if len(value) < 20 and not any(c.isdigit() for c in value):
        return m.group(0)
    return m.group(1) + "<secret>"


# --- E-mail addresses ---------------------------------------------------------------
# `git@github.com:org/repo` is a service account, and the host is useful context.
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])(?!git@)[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
)

# --- User names in home directories -------------------------------------------------
_USER_CHARS = r"[^/\\\s\"'<>:;,|()\[\]{}*?=]+"
_POSIX_HOME = re.compile(r"(/(?:home|Users)/)(" + _USER_CHARS + r")")
# Windows allows spaces in profile names; accept them only when a `\` follows.
_WINDOWS_HOME = re.compile(
    r"(?ai)(\b[A-Z]:[\\/]+Users[\\/]+)"
    r"([^\\/\r\n\"'<>:;,|*?]+(?=[\\/])|" + _USER_CHARS + r")"
)
_SHARED_PROFILES = frozenset({"shared", "public", "default", "default user", "all users", "<user>"})


def _home(m: re.Match[str]) -> str:
    if m.group(2).lower() in _SHARED_PROFILES:
        return m.group(0)
    return m.group(1) + "<user>"


# --- IP addresses -------------------------------------------------------------------
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
# Four octets, not inside a longer dotted run (`libcublas.so.12.1.3.1`, `1.2.3.4.5`).
_IPV4 = re.compile(
    r"(?<![A-Za-z0-9_.])" + _OCTET + r"(?:\." + _OCTET + r"){3}(?![A-Za-z0-9_])(?!\.[0-9])"
)
# Text right before a dotted quad that makes it a version, not an address.
_VERSION_CONTEXT = re.compile(
    r"(?ai)(?:version|ver\.?|release|build|driver|cuda|cudnn|cublas|nccl|tensorrt|trt|"
    r"==|>=|<=|~=|!=|[A-Za-z]-)[ \t:=]*$"
)
# `pip list` / `conda list` lines: "nvidia-cudnn-cu12    8.9.2.26".
_PACKAGE_LINE = re.compile(r"^[ \t]*[A-Za-z0-9]+[-_][A-Za-z0-9._-]*[ \t]+$")
# EC2-style host names encode the address: ip-10-0-1-23.ec2.internal.
_IP_HOSTNAME = re.compile(r"(?<![A-Za-z0-9-])ip-" + _OCTET + r"(?:-" + _OCTET + r"){3}(?![0-9])")
_IPV6_CANDIDATE = re.compile(
    r"(?<![A-Za-z0-9_:.])(?:[0-9A-Fa-f]{0,4}:){2,7}"
    r"(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f]{0,4})"
    r"(?:%[A-Za-z0-9_.-]+)?"
    r"(?![A-Za-z0-9_:])(?!\.[0-9])"
)


def _ipv4(m: re.Match[str]) -> str:
    text = m.group(0)
    first = int(text.split(".", 1)[0])
    # 0.x, 127.x and 255.x (unspecified, loopback, netmasks) identify nobody and are
    # useful for diagnosis; a leading 0 also keeps versions like 0.6.4.1.
    if first in (0, 127, 255):
        return text
    if re.match(r":[0-9]", m.string[m.end() : m.end() + 2]):
        return "<ip>"  # host:port is an address whatever precedes it
    before, whole_line = _line_before(m.string, m.start())
    if _VERSION_CONTEXT.search(before[-40:]):
        return text
    if whole_line and _PACKAGE_LINE.match(before):
        return text
    return "<ip>"


def _line_before(text: str, index: int, limit: int = 80) -> tuple[str, bool]:
    """At most `limit` characters before `index` on its line, and whether they start the line.

    Bounded so that many addresses on one huge line still cost O(1) each.
    """
    window_start = max(0, index - limit)
    newline = text.rfind("\n", window_start, index)
    if newline >= 0:
        return text[newline + 1 : index], True
    return text[window_start:index], window_start == 0


def _ipv6(m: re.Match[str]) -> str:
    text = m.group(0)
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return text  # timestamps, MAC addresses, `a:b:c`
    if address.is_loopback or address.is_unspecified:
        return text
    groups = [g for g in text.split("%", 1)[0].split(":") if g]
    # `x[100::200]` is a slice; real compressed addresses carry hex letters or 4-digit groups.
    if "::" in text and len(groups) <= 2 and all(g.isdigit() and len(g) < 4 for g in groups):
        return text
    return "<ip>"


# Each step runs only if one of its hints (lower-case substrings that every match
# must contain) occurs in the text: most pastes skip most steps, and a step that
# cannot match costs nothing. Placeholders never create a match, so hints taken
# from the original text are enough.
_Step = tuple[Callable[[str], str], tuple[str, ...]]


def _sub(pattern: re.Pattern[str], replacement: _Replacement, *hints: str) -> _Step:
    return functools.partial(pattern.sub, replacement), hints


_STEPS: tuple[_Step, ...] = (
    _sub(_PRIVATE_KEY, "<private-key>", "private key"),
    _sub(_URL_USERINFO, r"\1<redacted>@", "://"),
    *(_sub(pattern, placeholder, *hints) for pattern, placeholder, hints in _TOKEN_PATTERNS),
    _sub(_AUTH_HEADER, _auth_header, "authorization"),
    _sub(_BEARER, _bearer, "bearer"),
    (_redact_assignments, ("token", "key", "secret", "pass", "credential")),
    _sub(_EMAIL, "<email>", "@"),
    _sub(_POSIX_HOME, _home, "/home/", "/users/"),
    _sub(_WINDOWS_HOME, _home, "users"),
    _sub(_IPV6_CANDIDATE, _ipv6, ":"),  # before IPv4, so ::ffff:10.0.0.1 goes as one address
    _sub(_IP_HOSTNAME, "ip-<ip>", "ip-"),
    _sub(_IPV4, _ipv4, "."),
)


def redact(text: str) -> str:
    """Return `text` with secrets and personal data replaced by `<placeholders>`."""
    lowered = text.lower()
    for step, hints in _STEPS:
        if any(hint in lowered for hint in hints):
            text = step(text)
    return text
