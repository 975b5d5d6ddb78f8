"""The start page: paste or upload an error, see the ranked guides and why.

With `?guide=<id>` in the link, the same page shows that guide, so a shared link is
just the app's root URL plus the guide's state. The paste, the environment report and the
results stay in the session while a guide is shown (they never go into a link), so the
page's back button, the browser's and the sidebar's link all come back to them.
"""
from __future__ import annotations

import hashlib
import re

import streamlit as st

from components import env_panel, guide_view, phone, upstream_view
from components.diagnose_io import with_upload
from components.i18n import lang, t
from components.markup import esc, literal
from components.result_card import render_card
from components.state import get_index, requested_guide, show_in_url
from kb.diagnosis import TIERS, Diagnosis, read_environment
from kb.diagnosis import diagnose as diagnose_paste
from kb.text import say


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


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _cached_diagnosis(text_in: str, env_text: str) -> Diagnosis:
    # A rerun (a click elsewhere on the page, a visit to a guide and back) must not diagnose the
    # same paste with the same report again.
    key = _digest(text_in) + _digest(env_text)
    cached = st.session_state.get("last_result")
    if cached and cached[0] == key:
        return cached[1]
    # The report in the box is read with one inside the paste: the ranking does not depend on
    # which box it went into.
    d = diagnose_paste(get_index(), text_in, env_text=env_text or None, lang=lang())
    st.session_state["last_result"] = (key, d)
    st.session_state["new_result"] = True  # this run shows results not seen yet: bring them on screen
    return d


def diagnose() -> None:
    st.title(t("diagnose"), anchor=False)
    st.caption(t("diagnose_intro"))
    text_in = _input()
    env_text, env_slot = env_panel.input_panel()
    find = st.button(t("find"), key="find", type="primary")
    if not text_in.strip():
        env_panel.show_report(env_slot, env_text, read_environment(env_text))
        st.info(t("empty_input"))
        return
    _offer_chinese(text_in)
    d = _cached_diagnosis(text_in, env_text)
    env_panel.show_report(env_slot, env_text, d.environment)
    if d.truncation:
        st.warning(t("truncated", note=d.truncation))
    show_result(d)
    if (st.session_state.pop("new_result", False) or find) and d.results:
        # On a phone the results start below the fold, and nothing on screen changes: go to them.
        st.session_state["scrolls"] = st.session_state.get("scrolls", 0) + 1
        phone.scroll_to_results(st.session_state["scrolls"])


_HAN = re.compile(r"[\u4e00-\u9fff]")
HAN_ENOUGH = 4  # Chinese characters that make a paste read as Chinese (not a stray name or symbol)


def _to_chinese() -> None:
    st.session_state["lang"] = "zh"  # before the language switch is drawn again: a callback may set it


def _offer_chinese(text_in: str) -> None:
    """A paste in Chinese, on the English page: offer the page in Chinese (the switch at the top
    is easy to miss on a phone)."""
    if lang() != "en" or len(_HAN.findall(text_in[:20_000])) < HAN_ENOUGH:
        return
    with st.container(horizontal=True, key="zh_offer"):
        st.info(t("zh_offer"))
        st.button(say("zh_switch", "zh"), key="zh_switch", on_click=_to_chinese)


def show_result(d: Diagnosis) -> None:
    st.subheader(t("results"), anchor=False)
    for code, values in d.cut:
        st.info(t(code, **values))
    if not d.answered:
        lead = TIERS[d.results[0].tier] if d.results else None
        if d.triaged and lead is not None:  # a class guide's procedure leads: said as such, not as "no guide"
            st.info(lead.introduces(lang()))
        else:
            st.warning(t("no_guide_yet") if d.root is not None else t("no_confident_match"))
        if d.root is not None:
            st.markdown(f"{esc(t('root_error', line=d.root['line']))}  \n" + literal(d.root["text"][:500]))
        upstream_view.render(d, answered=False)
        if lead is None:
            st.markdown(t("no_similar"))
        elif not d.triaged:
            st.markdown(lead.introduces(lang()) or "")
    for n, r in enumerate(d.results):
        render_card(d, r, n)
    if d.answered:
        upstream_view.render(d, answered=True)  # a newer report may know more than the guide
    else:
        _unmatched(d)
    # Drawn last, so its presence says that every card is on screen: Streamlit sends the page
    # element by element, and the browser tests wait for this rather than for the cards to stop
    # changing. (An empty container is not drawn at all; an empty caption in it takes no height.)
    with st.container(key="results_end"):
        st.caption("")


def _unmatched(d: Diagnosis) -> None:
    from components import feedback
    feedback.record_unmatched(d)
    st.download_button(t("new_guide"), d.skeleton(), file_name="new-guide.yaml", mime="text/yaml",
                       key="new_guide", help=t("new_guide_help"), on_click="ignore")
