"""A visitor never sees a traceback: an unexpected error is logged and a short message shown."""
from __future__ import annotations

import logging
from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from components.i18n import t


def run_guarded(page: Callable[[], None]) -> None:
    try:
        page()
    except ScriptControlException:  # st.rerun / st.switch_page / st.stop are control flow
        raise
    except Exception:
        logging.getLogger("kb.app").exception("page failed")
        st.error(t("unexpected"))
