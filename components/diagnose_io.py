"""Reading an uploaded file as text, whatever it really is, and keeping it for the session."""
from __future__ import annotations

import streamlit as st

from components.i18n import t
from components.markup import literal
from kb.diagnosis import read_log

# Here, not only in the engine, so that a test can lower the limit for the app alone;
# None: the engine's limit, from KB_MAX_PASTE_CHARS.
MAX_BYTES: int | None = None
_KEPT = "_kept:"  # session key prefix: (file id, name, text, message) of the last file uploaded under a widget key


def read_upload(upload) -> tuple[str | None, str | None]:
    """Text of an uploaded file, or a message saying why there is none; or both, when
    the text is not all of the file or not exactly what it held."""
    decoded = read_log(upload.getvalue(), MAX_BYTES)
    if decoded.text is None:
        return None, t("binary")
    notes = " ".join(t(code, **values) for code, values in decoded.notes)
    return decoded.text, notes or None


def _on_change(key: str) -> None:
    if st.session_state.get(key) is None:  # the person removed the file
        st.session_state.pop(_KEPT + key, None)


def _forget(key: str) -> None:
    st.session_state.pop(_KEPT + key, None)


def uploaded_text(label: str, key: str) -> str:
    """The text of the file uploaded under `key`, read once per file.

    Streamlit forgets a file uploader that is not drawn in a run (while a guide is shown in
    its place), and cannot be given the file back; so the text is kept for the session and
    used until the person removes it or uploads another, and the page says which file it is.
    """
    upload = st.file_uploader(label, key=key, on_change=_on_change, args=(key,))
    kept = st.session_state.get(_KEPT + key)
    if upload is not None and (kept is None or kept[0] != upload.file_id):
        kept = (upload.file_id, upload.name, *read_upload(upload))
        st.session_state[_KEPT + key] = kept
    if kept is None:
        return ""
    _, name, content, message = kept
    if upload is None:
        row = st.container(horizontal=True, vertical_alignment="center")
        row.caption(t("kept_upload", name=literal(name)))
        row.button(t("forget_upload"), key=f"forget:{key}", on_click=_forget, args=(key,), type="tertiary")
    if message:
        (st.warning if content is None else st.info)(message)
    return content or ""


def with_upload(pasted: str | None, label: str, key: str) -> str:
    """What was pasted, followed by the text of the file uploaded under `key`."""
    text_in = pasted or ""
    content = uploaded_text(label, key)
    if content:
        text_in = (text_in + "\n" + content) if text_in.strip() else content
    return text_in
