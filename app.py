"""Entry point: only the router. Pages live in components/."""
import logging

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from components import browse, diagnose
from components.i18n import LANG_LABELS, LANGS, t
from components.state import get_index, init_lang

st.set_page_config(page_title="ML-infra troubleshooting", page_icon=":material/troubleshoot:", layout="wide")
init_lang()


def _guarded(fn):
    # A visitor never sees a traceback: the error is logged and a short message shown.
    def run():
        try:
            fn()
        except ScriptControlException:
            raise
        except Exception:
            logging.getLogger("kb.app").exception("page failed")
            st.error(t("unexpected"))
    run.__name__ = fn.__name__ + "_page"
    return run


home = st.Page(_guarded(diagnose.page), title=t("diagnose"), icon=":material/troubleshoot:", url_path="diagnose", default=True)
pages = [home, st.Page(_guarded(browse.page), title=t("browse"), icon=":material/menu_book:", url_path="browse")]
try:
    from components import authors
    pages.append(st.Page(_guarded(authors.page), title=t("authors"), icon=":material/edit_note:", url_path="authors"))
except ImportError:
    pass
st.session_state["_home_page"] = home

with st.sidebar:
    st.segmented_control(t("language"), LANGS, format_func=LANG_LABELS.get, key="lang", required=True)
    if st.session_state.pop("bad_lang", False):
        st.warning(t("bad_lang"))
    st.caption(t("guides_count", n=len(get_index().guides)))

st.navigation(pages).run()
