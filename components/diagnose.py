"""The start page: paste or upload an error, see the ranked guides and why.

With `?guide=<id>` in the link, the same page shows that guide, so a shared link is
just the app's root URL plus the guide's state. The paste, the environment report and the
results stay in the session while a guide is shown (they never go into a link), so the
page's back button, the browser's and the sidebar's link all come back to them.
"""
from __future__ import annotations

import hashlib

import streamlit as st

from components import env_panel, guide_view
from components.diagnose_io import with_upload
from components.i18n import lang, t
from components.markup import esc, literal
from components.result_card import render_card
from components.state import get_index, requested_guide, show_in_url
from kb.authoring.skeleton import skeleton
from kb.engine import completeness, upstream
from kb.engine.aspasted import split_lines
from kb.engine.match import Result, match
from kb.feedback.redact import redact


def page() -> None:
    gid = requested_guide()
    if gid is not None:
        if gid in get_index().guides:
            if st.query_params.get("guide") != gid:  # ?guide=VLLM-… : the link shows the id as it is
                st.query_params["guide"] = gid
            guide_view.render(gid)
        else:
            unknown_guide()
        return
    # The browser may still show a guide's link (Streamlit keeps it when the sidebar's link to
    # this page is clicked): say what is on screen.
    show_in_url({})
    diagnose()


def unknown_guide() -> None:
    from components.browse import guide_list
    st.title(t("unknown_guide"), anchor=False)
    st.markdown(t("unknown_guide_hint"))
    guide_list(key_prefix="unknown")


def _input() -> str:
    # persist_state: Streamlit forgets a widget that is not drawn, and a guide is drawn in its place.
    pasted = st.text_area(t("paste_label"), key="paste", height=260, placeholder=t("paste_placeholder"), persist_state="session")
    return with_upload(pasted, t("upload_label"), "upload")


def _cached_match(text_in: str) -> tuple[Result, list[str]]:
    # A rerun (a click elsewhere on the page, a visit to a guide and back) must not match the
    # same paste with the same report again; the lines as pasted are kept for showing them.
    key = hashlib.sha256(text_in.encode("utf-8", "surrogatepass")).hexdigest() + st.session_state.get("env_key", "")
    cached = st.session_state.get("last_result")
    if cached and cached[0] == key:
        return cached[1], cached[2]
    # The report in the box is read by the matcher as a report inside the paste would be: the
    # ranking does not depend on which box it went into.
    result = match(get_index(), text_in, env_report=st.session_state.get("env_text_in") or None)
    raw_lines = split_lines(text_in)
    st.session_state["last_result"] = (key, result, raw_lines)
    return result, raw_lines


def diagnose() -> None:
    st.title(t("diagnose"), anchor=False)
    st.caption(t("diagnose_intro"))
    text_in = _input()
    env_panel.input_panel()
    st.button(t("find"), key="find", type="primary")
    if not text_in.strip():
        st.info(t("empty_input"))
        return
    result, raw_lines = _cached_match(text_in)
    if result.paste.truncation:
        st.warning(t("truncated", note=result.paste.truncation))
    show_result(result, raw_lines)


def show_result(result: Result, raw_lines: list[str]) -> None:
    st.subheader(t("results"), anchor=False)
    for code, values in completeness.cut_notes(result.paste):
        st.info(t(code, **values))
    if not result.confident:
        st.warning(t("no_guide_yet") if result.root is not None else t("no_confident_match"))
        if result.root is not None:
            st.markdown(f"{esc(t('root_error', line=result.root.no))}  \n" + literal(result.root.text[:500]))
        _upstream(result)
        if result.matches:
            st.markdown(t("help_intro") if result.matches[0].confidence == "help" else t("similar_intro"))
        else:
            st.markdown(t("no_similar"))
    for n, m in enumerate(result.matches):
        render_card(result, m, n, raw_lines)
    if not result.confident:
        _unmatched(result)


def _upstream(result: Result) -> None:
    """A search of the upstream project's issues for the root error line, in a new tab."""
    project = upstream.project_of(result.paste)
    line = result.root.text if result.root is not None else upstream.root_error_line(result.paste)
    # Secrets, addresses and user names are out before anything leaves for GitHub.
    url = upstream.issue_search_url(project, redact(line)) if project and line else None
    if url is None:
        return
    st.caption(t("upstream", repo=project.name))
    st.link_button(t("upstream_link", repo=project.name), url, icon=":material/open_in_new:")


def _unmatched(result: Result) -> None:
    from components import feedback
    feedback.record_unmatched(result)
    st.download_button(t("new_guide"), skeleton(result.paste, result.root), file_name="new-guide.yaml", mime="text/yaml",
                       key="new_guide", help=t("new_guide_help"), on_click="ignore")
