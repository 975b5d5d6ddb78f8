"""Bytes from a file (an upload in the app, FILE for `kb match`) read as a log, or refused.

The app and the command line share this, so that a PNG, a library or an archive is refused
with the same verdict wherever it is given, and a log padded with NUL bytes, written in
UTF-16 or in another encoding is read the same way.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from kb.engine.parse import HEAD_SHARE, max_paste_chars

# Files that are certainly not logs, by their first bytes: images, executables and
# libraries, archives, PDF, WebAssembly, SQLite.
_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"\x7fELF", b"PK\x03\x04", b"%PDF", b"\x1f\x8b", b"BZh",
          b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"7z\xbc\xaf", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\x00asm",
          b"SQLite format 3\x00")
# What a log never holds much of, once NUL bytes are set aside: undecodable bytes and
# control characters other than tab, line ends, form feed and ANSI's escape.
_JUNK = re.compile(r"[\ufffd\x01-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")
SNIFF_BYTES = 65536


def max_bytes() -> int:
    """More than any paste analyses, even of 4-byte characters: a bigger file is cut before it
    is decoded, so a 200 MB upload never becomes 800 MB of text."""
    return 4 * max_paste_chars()

class Decoded(NamedTuple):
    text: str | None  # None: the bytes are not a log (see `looks_binary`)
    notes: list[tuple[str, dict]]  # codes (worded by kb.text.say) with their values, in the order they apply


def looks_binary(head: bytes) -> bool:
    """An image, a library, an archive, or bytes that are mostly not text."""
    if head.startswith(_MAGIC):
        return True
    body = head.replace(b"\0", b"")
    if not body:
        return bool(head)  # nothing but NUL bytes
    text = body.decode("utf-8", errors="replace")
    return len(_JUNK.findall(text)) > len(text) // 10


def _utf16(data: bytes) -> bool:
    """A byte-order mark, then mostly ASCII text: every other byte NUL."""
    sample = data[2:4098]
    return data[:2] in (b"\xff\xfe", b"\xfe\xff") and len(sample) >= 2 and \
        max(sample[0::2].count(0), sample[1::2].count(0)) * 4 >= len(sample) // 2


def _cut(data: bytes, max_bytes: int) -> tuple[bytes, dict]:
    head = data[: int(max_bytes * HEAD_SHARE)]
    head = head[: head.rfind(b"\n") + 1] or head
    tail = data[len(data) - (max_bytes - len(head)):]
    nl = tail.find(b"\n")
    tail = tail[nl + 1:] if 0 <= nl < len(tail) - 1 else tail
    lines = data.count(b"\n", len(head), len(data) - len(tail))
    return head + b"\n" + tail, {"size": len(data), "head": len(head), "tail": len(tail), "lines": lines}


def decode_log(data: bytes, limit: int | None = None) -> Decoded:
    """The text of a file, or None with the note "binary"; notes say where the text is not
    all of the file or not exactly what it held."""
    notes: list[tuple[str, dict]] = []
    limit = limit or max_bytes()
    if len(data) > limit:
        data, values = _cut(data, limit)
        notes.append(("cut", values))
    if _utf16(data):  # Windows tools write logs in UTF-16 with a byte-order mark
        return Decoded(data.decode("utf-16", errors="replace"), notes)
    if looks_binary(data[:SNIFF_BYTES]):
        return Decoded(None, [*notes, ("binary", {})])
    if b"\0" in data:  # a log padded with NUL bytes after a crash, or UTF-16 without a mark
        data = data.replace(b"\0", b"")
        notes.append(("nul", {}))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        notes.append(("replaced", {}))
    return Decoded(text, notes)
