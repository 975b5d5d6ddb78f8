"""The index (built once per process) and the link state (?guide=&lang=&done=)."""
from __future__ import annotations

import logging
import re

import streamlit as st

from components.i18n import LANGS
from components.once import once
from kb.diagnosis import Index, open_index

log = logging.getLogger("kb.app")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,79}$")
_ITEM = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
MAX_PARAM = 2_000


@once
def get_index() -> Index:
    """The read-only index, shared by every session of this process."""
    index = open_index()  # KB_GUIDES_DIR, else guides/
    # A broken guide (or signature) is skipped and the others served; the operator sees why here.
    for problem in index.problems[:100]:
        log.warning("guide problem: %s", problem)
    if len(index.problems) > 100:
        log.warning("… and %d more guide problems; run: python -m kb validate", len(index.problems) - 100)
    return index


def param(name: str) -> str | None:
    value = st.query_params.get(name)
    if value is None:
        return None
    return str(value)[:MAX_PARAM]


def init_lang() -> None:
    """The language comes from the link first, then stays in the session."""
    wanted = param("lang")
    if "lang" not in st.session_state:
        st.session_state["lang"] = wanted if wanted in LANGS else "en"
        if wanted is not None and wanted not in LANGS:
            st.session_state["bad_lang"] = True
    if st.session_state["lang"] == "en":
        st.query_params.pop("lang", None)
    else:
        st.query_params["lang"] = st.session_state["lang"]


def requested_guide() -> str | None:
    """The guide id in the link, if it looks like an id at all (else "" = unknown). Ids are
    lower case; a link may spell one in capitals (typed, or changed by a chat program)."""
    gid = param("guide")
    if gid is None:
        return None
    gid = gid.lower()
    return gid if _ID.match(gid) else ""


def show_in_url(params: dict[str, str]) -> None:
    """The link says exactly `params` and the language. One message to the browser: each
    change of the URL is a step in its history, and Back must not stop at half-made links."""
    wanted = dict(params)
    if st.session_state.get("lang", "en") != "en":
        wanted["lang"] = st.session_state["lang"]
    st.query_params.from_dict(wanted)


def link_done(valid: list[str]) -> tuple[list[str], bool]:
    """Ticked items from the link, keeping only this guide's; and whether any were dropped."""
    raw = param("done") or ""
    items = [x for x in raw.split(",") if x]
    good = [x for x in items if _ITEM.match(x) and x in valid]
    return good, len(good) != len(items)


def set_done(done: list[str]) -> None:
    if done:
        st.query_params["done"] = ",".join(done)
    else:
        st.query_params.pop("done", None)


def open_guide(gid: str) -> None:
    show_in_url({"guide": gid})
