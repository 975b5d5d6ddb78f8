"""Our own credential rules: what detect-secrets' detectors (kb.feedback.scanner) miss.

Each rule is here because a real paste leaked through the scanner's detectors alone:
tokens of providers it has no detector for (Hugging Face, Anthropic, newer OpenAI and
GitHub formats, Google, W&B), private key bodies (it finds only the BEGIN line, and a key
inside an error line has escaped newlines), credentials after a keyword (its keyword
detector cannot be run safely; its keyword list is used here), and command lines that
carry a password (`curl -u`, `docker login -p`, `mysql -p…`, `aws configure`, `.netrc`).

Linear time: every pattern starts with a literal, or is anchored by a negative
look-behind on the class it then repeats, and repetitions never overlap one another.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from detect_secrets.plugins.keyword import DENYLIST as _SCANNER_KEYWORDS

from kb.feedback.shapes import Found

__all__ = ["ASSIGNMENT_HINTS", "PRIVATE_KEY", "TOKEN_PATTERNS", "URL_USERINFO", "assignments", "auth_header",
           "bearer", "COMMAND_RULES", "AUTH_HEADER", "BEARER", "is_placeholder"]


def is_placeholder(value: str) -> bool:
    """Already redacted, or a tokenizer special token such as `<pad>` / `[CLS]`."""
    value = value.strip("\"'")
    return (value.startswith("<") and value.endswith(">")) or (value.startswith("[") and value.endswith("]"))


# --- PEM private keys ----------------------------------------------------------------------------
# The body may hold real line breaks or escaped ones (`\n` inside a JSON string or a repr in an
# error line). The END line is optional so that a truncated paste still loses its key body.
_PEM_BODY = r"(?:[A-Za-z0-9+/=\s:,-]|\\[nrt/])"
PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----" + _PEM_BODY + r"*?"
    r"(?:-----END [A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?=-----)|(?!" + _PEM_BODY + r"))"
)

# --- Credentials inside URLs ---------------------------------------------------------------------
# Any userinfo goes, not just user:password; a bare user name is personal data too.
URL_USERINFO = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://)([^\s/@?#<>\"']+)@")

# --- Provider tokens detect-secrets has no detector for --------------------------------------------
TOKEN_PATTERNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{20,}"), "<hf-token>", ("hf_",)),
    (re.compile(r"(?<![A-Za-z0-9])api_org_[A-Za-z0-9]{20,}"), "<hf-token>", ("api_org_",)),
    (re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}"), "<anthropic-key>", ("sk-ant-",)),
    (re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}"), "<openai-key>", ("sk-",)),
    (re.compile(r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}"), "<github-token>", ("gh",)),
    (re.compile(r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}"), "<github-token>", ("github_pat_",)),
    (re.compile(r"(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}"), "<gitlab-token>", ("glpat-",)),
    (re.compile(r"(?<![A-Za-z0-9_-])pypi-[A-Za-z0-9_-]{16,}"), "<pypi-token>", ("pypi-",)),
    (re.compile(r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{20,}"), "<npm-token>", ("npm_",)),
    (
        re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        "<aws-key-id>",
        ("akia", "asia", "agpa", "aida", "aroa"),
    ),
    (re.compile(r"(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}"), "<google-key>", ("aiza",)),
    (re.compile(r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}"), "<slack-token>", ("xox",)),
    (re.compile(r"(?<![A-Za-z0-9_-])(?:r8_|dapi)[A-Za-z0-9]{32,}"), "<secret>", ("r8_", "dapi")),
    (re.compile(r"https://(?:discord(?:app)?\.com/api/webhooks|hooks\.slack\.com/(?:services|workflows))/[^\s\"'<>]+"),
     "<webhook>", ("webhooks", "hooks.slack")),
    (re.compile(r"https://[A-Za-z0-9.-]*\.webhook\.office\.com/[^\s\"'<>]+"), "<webhook>", ("webhook.office",)),
    # JSON Web Tokens: three base64url parts, the first always starts with `{"` -> eyJ.
    (
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"),
        "<jwt>",
        ("eyj",),
    ),
)

# --- HTTP authorisation and cookies --------------------------------------------------------------------
AUTH_HEADER = re.compile(
    r"(?ai)((?<![A-Za-z0-9_-])(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?)"
    r"(?:((?:bearer|basic|token|digest|bot|apikey)[ \t]+))?"
    r"([^\s\"',;]+)"
)
BEARER = re.compile(r"(?<![A-Za-z0-9_])([Bb]earer[ \t]+)([A-Za-z0-9._~+/=-]+)")
# A Cookie or Set-Cookie header, a curl --cookie / -b value, a requests `cookies=` dict: everything
# up to the end of the line or the closing quote is cookie values.
_COOKIE = re.compile(r"(?ai)((?<![A-Za-z0-9_-])(?:set-)?cookies?[\"']?[ \t]*[:=][ \t]*|--cookie[ \t]+|-b[ \t]+)"
                     r"(?:(\{)([^}\r\n]*)|([\"']?)([^\"'\r\n]+))")


def auth_header(m: re.Match[str]) -> str:
    if is_placeholder(m.group(3)):
        return m.group(0)
    return m.group(1) + (m.group(2) or "") + "<secret>"


def bearer(m: re.Match[str]) -> str:
    value = m.group(2)
    # "Bearer authentication" is prose; a credential is long or has digits.
    if len(value) < 20 and not any(c.isdigit() for c in value):
        return m.group(0)
    return m.group(1) + "<secret>"


def _cookie(m: re.Match[str]) -> str:
    value = m.group(3) if m.group(2) else m.group(5)
    if m.group(1).lower().startswith("-b") and "=" not in value:
        return m.group(0)  # `-b` is many tools' flag; a cookie has name=value
    if is_placeholder(value.strip()):
        return m.group(0)
    return m.group(1) + (m.group(2) or m.group(4) or "") + "<secret>"


# --- Command lines that carry a credential -------------------------------------------------------------
COMMAND_RULES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str], tuple[str, ...]], ...] = (
    (_COOKIE, _cookie, ("cookie", "-b ")),
    # curl -u user:pass, --user user:pass, --proxy-user user:pass (a value without ":" is a user name).
    (re.compile(r"(?<![\w-])(-u|--user|--proxy-user)([ \t]+|=)?([\"']?)[^\s\"':]+:[^\s\"']+"), r"\1\2\3<redacted>",
     ("-u", "--user", "--proxy-user")),
    # docker / podman / helm / nerdctl login -p SECRET (the -u user name goes too).
    (re.compile(r"(?ai)\b((?:docker|podman|nerdctl|buildah|helm|oras|skopeo)\b[^\n]{0,60}?\blogin\b[^\n]{0,200}?"
                r"(?:[ \t]-p|--password))([ \t]+|=)([^\s\"']+|\"[^\"\n]*\"|'[^'\n]*')"), r"\1\2<secret>", ("login",)),
    # mysql -pSECRET (no space: with a space the next word is the database)
    (re.compile(r"(?ai)\b((?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?[ \t]-p)(?![ \t])([^\s\"']+|\"[^\"\n]*\"|'[^'\n]*')"),
     r"\1<secret>", ("mysql", "mariadb")),
    # wandb login KEY, wandb.login(key="KEY")
    (re.compile(r"(?ai)\bwandb(?:\.|[ \t]+)login\b[^\n]{0,80}?([0-9a-f]{40}|local-[0-9a-f]{40,})"), "<wandb-login>", ("wandb",)),
    (re.compile(r"(?ai)\bwandb\.login\([^)\n]{0,200}?\bkey[ \t]*=[ \t]*[\"']([^\"'\n]+)[\"']"), "<wandb-login>", ("wandb",)),
    # .netrc: machine HOST login USER password SECRET, on one line or one entry per line
    (re.compile(r"(?ai)(?<![\w-])(machine[ \t]+)(\S+)([ \t]+login[ \t]+)(\S+)([ \t]+password[ \t]+)(\S+)"),
     r"\1<host>\3<user>\5<secret>", ("machine",)),
    (re.compile(r"(?am)^([ \t]*password[ \t]+)(\S+)[ \t]*$"), r"\1<secret>", ("password",)),
    # aws configure: "AWS Secret Access Key [****ABCD]: VALUE"
    (re.compile(r"(?ai)\b((?:aws[ \t]+)?(?:secret[ \t]+access[ \t]+key|access[ \t]+key[ \t]+id|session[ \t]+token)"
                r"[ \t]*(?:\[[^\]\n]{0,60}\])?[ \t]*[:=][ \t]*)([^\s\"']+)"), r"\1<secret>", ("access key", "session token")),
    # A credential in a URL's query: ?key=…, &access_token=…, &X-Amz-Signature=… (a name that ends
    # in one of these words; a value of at least 6 characters, so `?page=2` and `&sig=1` stay).
    (re.compile(r"(?ai)([?&;](?:[A-Za-z0-9_.-]*[_.-])?(?:key|apikey|token|secret|sig|signature|password|passwd|pwd|auth|"
                r"credential|x-amz-credential|x-amz-security-token|code)=)([^&#\s\"'<>]{6,})"),
     r"\1<secret>", ("key=", "token=", "secret=", "sig", "passw", "pwd=", "auth=", "credential=", "code=")),
    # A session cookie named on its own, outside a Cookie header (a proxy's log, a curl -b file).
    (re.compile(r"(?<![A-Za-z0-9_-])(_oauth2_proxy(?:_csrf)?|sessionid|session_id|connect\.sid|JSESSIONID|PHPSESSID|"
                r"_gh_sess|laravel_session|csrftoken|XSRF-TOKEN|_xsrf|remember_token|auth_token|__Secure-[A-Za-z0-9_-]+|"
                r"__Host-[A-Za-z0-9_-]+)=([^;&\s\"'<>|]{8,}(?:\|[^;&\s\"'<>|]+)*)"), r"\1=<secret>",
     ("oauth2_proxy", "session", "sid=", "csrf", "xsrf", "remember_token", "auth_token", "__secure-", "__host-")),
    # A 40-hex key near "API key" (W&B prints "API key … is invalid" with the key in it).
    (re.compile(r"(?ai)(\bapi[ _-]?key\b[^\n]{0,80}?)(?<![0-9a-f])([0-9a-f]{40})(?![0-9a-f])"), r"\1<secret>",
     ("api key", "api_key", "api-key", "apikey")),
    # A keyword in Chinese: 密钥 (key), 秘钥, 密码 (password), 令牌 (token), 口令 (passphrase), 凭证 (credential).
    (re.compile(r"((?:密钥|秘钥|密匙|密码|令牌|口令|凭证|凭据|访问码)(?:[ \t]*(?:是|为|[:：=])[ \t]*|[ \t]+)[\"'“‘「]?)"
                r"([^\s\"'”’」，。；,;)）]{4,})"), r"\1<secret>", ("密钥", "秘钥", "密匙", "密码", "令牌", "口令", "凭证", "凭据", "访问码")),
    # Azure connection strings: AccountKey=…; SharedAccessKey=…; SAS signatures sig=…
    (re.compile(r"(?ai)((?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=)([^;&\s\"']+)"),
     r"\1<secret>", ("accountkey", "sharedaccess", "sig=")),
)

# --- key=value, key: value, "key": "value", --key value -------------------------------------------
# The name is a run of identifier characters that *ends* with one of these words: ours, and
# detect-secrets' KeywordDetector list (`db_?pass`, `auth_?key`, `contraseña`, …). A space instead
# of `=`/`:` counts only after a CLI flag (`--token abc`), so that prose like "password reset" stays.
_OWN_WORDS = ("token", "api[_-]?key", "apikey", "secret", "secret[_-]?key", "access[_-]?key", "private[_-]?key",
              "password", "passwd", "passphrase", "client[_-]?secret", "credentials?", "account[_-]?key")
_SECRET_WORDS = "|".join(sorted({*_OWN_WORDS, *(w.replace("_?", "[_-]?") for w in _SCANNER_KEYWORDS)}, key=len, reverse=True))
ASSIGNMENT_HINTS = ("token", "key", "secret", "pass", "credential", "pwd", "contrase")
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
        or is_placeholder(value)
        or value.lower() in _HARMLESS_VALUES
        or _ENV_REFERENCE.match(value)
    ):
        return None
    start, end = (m.start("qv"), m.end("qv")) if m.group("q") else (m.start("uv"), m.end("uv"))
    return m.string[m.start() : start] + "<secret>" + m.string[end : m.end()]


def assignments(text: str, record: list | None = None) -> str:
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
            if record is not None:
                value = m.group("qv") if m.group("q") else m.group("uv")
                record.append(Found(value, "<secret>"))
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)
