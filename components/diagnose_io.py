"""Reading an uploaded file as text, whatever it really is."""
from __future__ import annotations

from components.i18n import t


def read_upload(upload) -> tuple[str | None, str | None]:
    """Text of an uploaded file, or a message saying why there is none."""
    data = upload.getvalue()
    head = data[:65536]
    if head.count(b"\0") > len(head) // 100 or head.startswith((b"\x89PNG", b"\xff\xd8\xff", b"\x7fELF", b"GIF8", b"PK\x03\x04")):
        return None, t("binary_file")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace").replace("\0", ""), t("decoded_with_replacements")
