"""Entry point: only the router. Pages live in components/pages/, their pieces in components/."""
import streamlit as st

from components import phone
from components.i18n import LANG_LABELS, LANGS, t
from components.state import get_index, init_lang

st.set_page_config(page_title="ML-infra troubleshooting", page_icon=":material/troubleshoot:", layout="wide")
init_lang()
phone.styles()

# The Diagnose page is the root URL, so a shared link is just /?guide=<id>&lang=…&done=…
home = st.Page("components/pages/diagnose.py", title=t("diagnose"), icon=":material/troubleshoot:", default=True)
pages = [
    home,
    st.Page("components/pages/browse.py", title=t("browse"), icon=":material/menu_book:", url_path="browse"),
    st.Page("components/pages/authors.py", title=t("authors"), icon=":material/edit_note:", url_path="authors"),
]
st.session_state["_home_page"] = home

# The language switch sits on the page itself: on a phone the sidebar is folded away.
with st.container(horizontal=True, horizontal_alignment="right", key="lang_bar"):
    st.segmented_control(t("language"), LANGS, format_func=LANG_LABELS.get, key="lang", required=True,
                         label_visibility="collapsed")
if st.session_state.pop("bad_lang", False):
    st.warning(t("bad_lang"))

with st.sidebar:
    # Links of our own, not Streamlit's menu: its entry for the page on screen keeps the link's
    # ?guide=, so "Diagnose" would stay on the guide. A page link carries only what it is given.
    lang_param = {"lang": st.session_state["lang"]} if st.session_state["lang"] != "en" else None
    for page in pages:
        st.page_link(page, query_params=lang_param)
    st.caption(t("guides_count", n=len(get_index().guides)))

st.navigation(pages, position="hidden").run()
