"""Reading an uploaded file as text, whatever it really is."""
from __future__ import annotations

import re

from components.i18n import lang, t
from kb.engine.parse import HEAD_SHARE, MAX_CHARS

# Files that are certainly not logs, by their first bytes: images, executables and
# libraries, archives, PDF, WebAssembly, SQLite.
_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"\x7fELF", b"PK\x03\x04", b"%PDF", b"\x1f\x8b", b"BZh",
          b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"7z\xbc\xaf", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\x00asm",
          b"SQLite format 3\x00")
# What a log never holds much of, once NUL bytes are set aside: undecodable bytes and
# control characters other than tab, line ends, form feed and ANSI's escape.
_JUNK = re.compile(r"[\ufffd\x01-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")
# More than any paste analyses, even of 4-byte characters: a bigger file is cut before it
# is decoded, so a 200 MB upload never becomes 800 MB of text.
MAX_BYTES = 4 * MAX_CHARS

_NOTES = {
    "nul": ("NUL bytes in the file were removed.", "已移除文件中的 NUL 字节。"),
    "cut": ("The file is {size:,} bytes: its first {head:,} and last {tail:,} bytes were read, {lines:,} lines between "
            "them were not (line numbers after the gap count from the start of what was read).",
            "文件大小为 {size:,} 字节：只读取了开头 {head:,} 字节和结尾 {tail:,} 字节，中间 {lines:,} 行未读取"
            "（缺口之后的行号从读取内容的开头算起）。"),
}


def _note(key: str, **values: object) -> str:
    return _NOTES[key][1 if lang() == "zh" else 0].format(**values)


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


def _cut(data: bytes) -> tuple[bytes, str]:
    head = data[: int(MAX_BYTES * HEAD_SHARE)]
    head = head[: head.rfind(b"\n") + 1] or head
    tail = data[len(data) - (MAX_BYTES - len(head)):]
    nl = tail.find(b"\n")
    tail = tail[nl + 1:] if 0 <= nl < len(tail) - 1 else tail
    lines = data.count(b"\n", len(head), len(data) - len(tail))
    return head + b"\n" + tail, _note("cut", size=len(data), head=len(head), tail=len(tail), lines=lines)


def read_upload(upload) -> tuple[str | None, str | None]:
    """Text of an uploaded file, or a message saying why there is none; or both, when
    the text is not all of the file or not exactly what it held."""
    data = upload.getvalue()
    notes: list[str] = []
    if len(data) > MAX_BYTES:
        data, note = _cut(data)
        notes.append(note)
    if _utf16(data):  # Windows tools write logs in UTF-16 with a byte-order mark
        return data.decode("utf-16", errors="replace"), " ".join(notes) or None
    if looks_binary(data[:65536]):
        return None, t("binary_file")
    if b"\0" in data:  # a log padded with NUL bytes after a crash, or UTF-16 without a mark
        data = data.replace(b"\0", b"")
        notes.append(_note("nul"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        notes.append(t("decoded_with_replacements"))
    return text, " ".join(notes) or None


def text_with_upload(pasted: str | None, upload) -> str:
    """What was pasted, followed by the uploaded file's text; notes about the file are shown."""
    import streamlit as st

    text_in = pasted or ""
    if upload is None:
        return text_in
    content, message = read_upload(upload)
    if message:
        (st.warning if content is None else st.info)(message)
    if content:
        text_in = (text_in + "\n" + content) if text_in.strip() else content
    return text_in
