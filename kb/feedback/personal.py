"""Personal and site data a secret scanner does not look for: who ran it, on which machine.

E-mail addresses, user names (in shell prompts, `user@host`, `USER=`, home directories),
host names (in prompts, NCCL's `host:pid:tid` prefix, `host=` / `--master-addr` values,
single-label URL hosts, internal domains such as `.internal` or `.cluster.local`) and IP
addresses (v4 and v6, with ports and interface names). Public service hosts that ML logs
name all the time (huggingface.co, github.com, pypi.org, …) are kept: they say which
download failed and identify nobody. Loopback and unspecified addresses are kept too.

Linear time, like kb.feedback.credentials: each repetition is entered at its first
character only (negative look-behind on the class it repeats) and bounded where it nests.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

__all__ = ["EMAIL", "HOSTS", "IPV4", "IPV6", "IP_HOSTNAME", "POSIX_HOME", "USER_AT_HOST", "USER_SETTING",
           "WINDOWS_HOME", "TILDE_HOME", "home", "host_setting", "ipv4", "ipv6", "user_at_host", "user_setting"]

# --- E-mail addresses -------------------------------------------------------------------------
# `git@github.com:org/repo` is a service account, and the host is useful context.
EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])(?!git@)[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
)

# --- user@host: shell prompts (`alice@gpu-node-17:~$`, `[dave@login01 ~]$`), ssh targets -------------
# A host without a dot (an e-mail address has one) that has a digit or a hyphen, or is followed
# by the `:` or space of a prompt; `q@k` in a formula has neither.
USER_AT_HOST = re.compile(
    r"(?<![A-Za-z0-9_.%+<>-])([A-Za-z_][A-Za-z0-9_.-]{0,31})@([A-Za-z][A-Za-z0-9-]{0,62})(?![A-Za-z0-9_@-]|\.[A-Za-z0-9])"
)
_SERVICE_USERS = frozenset({"root", "git"})


def user_at_host(m: re.Match[str]) -> str:
    user, host = m.group(1), m.group(2)
    after = m.string[m.end() : m.end() + 1]
    # A prompt starts its line, after a few blanks or brackets: look back a few characters only
    # (a search back to the line's start is quadratic on one long line of `a:b@a:b@…`).
    lo = max(0, m.start() - 8)
    before = m.string[lo : m.start()]
    nl = before.rfind("\n")
    head = before[nl + 1 :] if nl >= 0 else (before if lo == 0 else None)
    prompt = (head is not None and head.strip(" \t([") == "") or before.endswith("[")
    if not (any(c.isdigit() or c == "-" for c in host) or after == ":" or (prompt and after in (" ", "]"))):
        return m.group(0)
    return ("root" if user in _SERVICE_USERS else "<user>") + "@<host>"


# --- USER=erin, "username": "erin", LOGNAME=erin -----------------------------------------------------
USER_SETTING = re.compile(
    r"(?ai)(?<![A-Za-z0-9_.-])((?:SUDO_)?(?:user(?:[_-]?name)?|logname|login))"
    r"([\"']?[ \t]*[=:][ \t]*[\"']?)([A-Za-z_][A-Za-z0-9_.-]{0,31})(?![A-Za-z0-9_.@-])"
)
_NOT_PEOPLE = frozenset({"root", "none", "null", "true", "false", "nobody", "unknown", "default", "admin"})


def user_setting(m: re.Match[str]) -> str:
    name, sep, value = m.groups()
    quoted_name = m.string[m.start() - 1 : m.start()] in ("'", '"')
    if ":" in sep and not quoted_name and name.lower() in ("user", "login"):
        return m.group(0)  # `user: hello` is a chat turn, not a setting
    if value.lower() in _NOT_PEOPLE:
        return m.group(0)
    return name + sep + "<user>"


# --- User names in home directories ---------------------------------------------------------------
_USER_CHARS = r"[^/\\\s\"'<>:;,|()\[\]{}*?=]+"
POSIX_HOME = re.compile(r"(/(?:home|Users|users|u|scratch)/)(" + _USER_CHARS + r")")
TILDE_HOME = re.compile(r"(?<![\w~])(~)([a-z_][a-z0-9_.-]{0,31})(?=/)")
# Windows allows spaces in profile names; accept them only when a `\` follows.
WINDOWS_HOME = re.compile(
    r"(?ai)(\b[A-Z]:[\\/]+Users[\\/]+)"
    r"([^\\/\r\n\"'<>:;,|*?]+(?=[\\/])|" + _USER_CHARS + r")"
)
_SHARED_PROFILES = frozenset({"shared", "public", "default", "default user", "all users", "<user>"})


def home(m: re.Match[str]) -> str:
    if m.group(2).lower() in _SHARED_PROFILES:
        return m.group(0)
    return m.group(1) + "<user>"


# --- Host names -------------------------------------------------------------------------------------
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = _LABEL + r"(?:\." + _LABEL + r"){0,10}"
_PUBLIC = ("huggingface.co", "hf.co", "github.com", "githubusercontent.com", "pypi.org", "pythonhosted.org",
           "pytorch.org", "nvidia.com", "nvcr.io", "docker.io", "docker.com", "ghcr.io", "anaconda.org",
           "anaconda.com", "wandb.ai", "vllm.ai", "openai.com", "anthropic.com", "googleapis.com", "modelscope.cn",
           "python.org", "ubuntu.com", "debian.org", "conda-forge.org", "xethub.hf.co")


def _public(host: str) -> bool:
    host = host.lower().rstrip(".")
    return host in ("localhost", "localhost.localdomain") or any(host == d or host.endswith("." + d) for d in _PUBLIC)


def _is_address(host: str) -> bool:
    return bool(re.fullmatch(r"[0-9.]+|[0-9A-Fa-f:]+", host))


def _is_module(m: re.Match[str]) -> bool:
    """`from google.protobuf.internal import x`: a Python module, not a machine."""
    before = m.string[max(0, m.start() - 7) : m.start()]
    return before.endswith(("from ", "import ")) or m.string.startswith(" import", m.end())


def host_setting(m: re.Match[str]) -> str:
    host = m.group("host")
    spaced = m.group("spaced") is not None
    if spaced and not re.search(r"[0-9.-]", host):
        return m.group(0)  # `host key verification failed`: a word, not a machine
    if _public(host) or _is_address(host) or host.lower() in ("none", "null", "true", "false", "any", "all"):
        return m.group(0)
    return m.string[m.start() : m.start("host")] + "<host>"


HOSTS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str], tuple[str, ...]], ...] = (
    # host=…, hostname: …, MASTER_ADDR=…, node_name=…, --master-addr …, "connect to host …"
    (re.compile(r"(?ai)(?<![A-Za-z0-9_.-])(?:--)?(?:host(?:[_-]?name)?|master[_-]addr(?:ess)?|node[_-]?name|nodelist"
                r"|server[_-]?name|hostaddr)(?:[\"']?[ \t]*[:=][ \t]*[\"']?|(?P<spaced>[ \t]+))(?P<host>" + _HOSTNAME
                + r")(?![A-Za-z0-9_-])"), host_setting, ("host", "master", "node", "server")),
    # NCCL prefixes every line with host:pid:tid [device]
    (re.compile(r"(?<![A-Za-z0-9_.:-])(" + _HOSTNAME + r")(:[0-9]+:[0-9]+[ \t]\[[0-9]+\])(?=[^\n]{0,80}\bNCCL\b)"),
     r"<host>\2", ("nccl",)),
    # a URL whose host is a single label (a machine on the local network): http://gpu-node-17:8000/
    (re.compile(r"(?i)(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,20}://(?:<redacted>@)?)(?!localhost(?![A-Za-z0-9-]))"
                r"([A-Za-z][A-Za-z0-9-]{0,62})(?=[:/?#\s\"'<>)\]]|$)"), r"\1<host>", ("://",)),
    # internal DNS names
    (re.compile(r"(?ai)(?<![A-Za-z0-9_.-])(?:" + _LABEL + r"\.){1,10}"
                r"(internal|intranet|intra|corp|lan|localdomain|cluster\.local|svc|home\.arpa)"
                r"(?![A-Za-z0-9_-])(?!\.[A-Za-z0-9])"), lambda m: m.group(0) if _is_module(m) else f"<host>.{m.group(1)}",
     ("internal", "intra", "corp", ".lan", "localdomain", "cluster.local", ".svc", "home.arpa")),
)

# --- IP addresses -----------------------------------------------------------------------------------
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
# Four octets, not inside a longer dotted run (`libcublas.so.12.1.3.1`, `1.2.3.4.5`).
IPV4 = re.compile(r"(?<![A-Za-z0-9_.])" + _OCTET + r"(?:\." + _OCTET + r"){3}(?![A-Za-z0-9_])(?!\.[0-9])")
# Text right before a dotted quad that makes it a version, not an address.
_VERSION_CONTEXT = re.compile(
    r"(?ai)(?:version|ver\.?|release|build|driver|cuda|cudnn|cublas|nccl|tensorrt|trt|"
    r"==|>=|<=|~=|!=|[A-Za-z]-)[ \t:=]*$"
)
# `pip list` / `conda list` lines: "nvidia-cudnn-cu12    8.9.2.26".
_PACKAGE_LINE = re.compile(r"^[ \t]*[A-Za-z0-9]+[-_][A-Za-z0-9._-]*[ \t]+$")
# EC2-style host names encode the address: ip-10-0-1-23.ec2.internal.
IP_HOSTNAME = re.compile(r"(?<![A-Za-z0-9-])ip-" + _OCTET + r"(?:-" + _OCTET + r"){3}(?![0-9])")
# A run of hex groups and colons (at most 9 groups, the last may be a port or a dotted quad), an
# optional zone (`%eth0`), and the interface name NCCL writes before it (`eth0:fe80::1%eth0`).
IPV6 = re.compile(
    r"(?<![A-Za-z0-9_.:])(?P<iface>[A-Za-z][A-Za-z0-9_-]{0,14}:)?"
    r"(?P<addr>(?:[0-9A-Fa-f]{0,4}:){2,8}"
    r"(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f]{0,5})"
    r"(?:%[A-Za-z0-9_.-]+)?)"
    r"(?![A-Za-z0-9_:])(?!\.[0-9])"
)


def ipv4(m: re.Match[str]) -> str:
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


def _ipv6_address(text: str) -> ipaddress.IPv6Address | None:
    try:
        return ipaddress.IPv6Address(text.split("%", 1)[0])
    except ValueError:
        return None


def _ipv6_text(text: str) -> str | None:
    """`text` as it should read: `<ip>` (with its port), or None when it is no address."""
    address, port = _ipv6_address(text), ""
    if address is None and re.search(r":[0-9]{1,5}$", text):
        head, _, port = text.rpartition(":")  # `2001:db8::1:29500`: an address and a port
        address, port = _ipv6_address(head), ":" + port
    if address is None:
        return None  # timestamps, MAC addresses, `a:b:c`
    if address.is_loopback or address.is_unspecified:
        return text
    groups = [g for g in text.split("%", 1)[0].split(":") if g]
    # `x[100::200]` is a slice; real compressed addresses carry hex letters or 4-digit groups.
    if "::" in text and len(groups) <= 2 and all(g.isdigit() and len(g) < 4 for g in groups):
        return text
    return "<ip>" + port


def ipv6(m: re.Match[str]) -> str:
    iface, addr = m.group("iface") or "", m.group("addr")
    # `fe80:` looks like an interface name too: try the split first, then the whole run.
    shown = _ipv6_text(addr)
    if shown is not None:
        return iface + shown
    shown = _ipv6_text(iface + addr) if iface else None
    return m.group(0) if shown is None else shown
