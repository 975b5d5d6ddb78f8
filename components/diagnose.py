"""The start page: paste or upload an error, see the ranked guides and why.

With `?guide=<id>` in the link, the same page shows that guide, so a shared link is
just the app's root URL plus the guide's state.
"""
from __future__ import annotations

import hashlib

import streamlit as st

from components import guide_view
from components.diagnose_io import text_with_upload
from components.i18n import lang, t
from components.markup import esc, highlight
from components.state import get_index, open_guide, requested_guide
from kb.engine.match import Result, explain_notes, match
from kb.guides.render import text
from kb.authoring.skeleton import skeleton

CONTEXT_LINES = 2


def page() -> None:
    gid = requested_guide()
    if gid is not None:
        if gid in get_index().guides:
            guide_view.render(gid)
        else:
            unknown_guide()
        return
    diagnose()


def unknown_guide() -> None:
    from components.browse import guide_list
    st.title(t("unknown_guide"), anchor=False)
    st.markdown(t("unknown_guide_hint"))
    guide_list(key_prefix="unknown")


def _input() -> str:
    pasted = st.text_area(t("paste_label"), key="paste", height=260, placeholder=t("paste_placeholder"))
    return text_with_upload(pasted, st.file_uploader(t("upload_label"), key="upload"))


def _cached_match(text_in: str) -> Result:
    # A rerun (a click elsewhere on the page) must not match the same paste again.
    key = hashlib.sha256(text_in.encode("utf-8", "surrogatepass")).hexdigest()
    cached = st.session_state.get("last_result")
    if cached and cached[0] == key:
        return cached[1]
    result = match(get_index(), text_in)
    st.session_state["last_result"] = (key, result)
    return result


def diagnose() -> None:
    st.title(t("diagnose"), anchor=False)
    st.caption(t("diagnose_intro"))
    text_in = _input()
    from components import env_panel
    env_panel.input_panel()
    st.button(t("find"), key="find", type="primary")
    if not text_in.strip():
        st.info(t("empty_input"))
        return
    result = _cached_match(text_in)
    if result.paste.truncation:
        st.warning(t("truncated", note=result.paste.truncation))
    env_panel.apply(result)
    show_result(result)


def show_result(result: Result) -> None:
    index = get_index()
    st.subheader(t("results"), anchor=False)
    if not result.confident:
        st.warning(t("no_match"))
        st.markdown(t("similar_intro") if result.matches else t("no_similar"))
        _unmatched(result)
    for n, m in enumerate(result.matches):
        g = index.guides[m.guide_id]
        with st.container(border=True):
            badge = f":green-badge[{esc(t('match'))}]" if m.confidence == "match" else f":gray-badge[{esc(t('similar'))}]"
            status = f":{guide_view.STATUS_COLOUR[g.status]}-badge[{esc(t(g.status))}]"
            st.markdown(f"{badge} {status} :gray-badge[{esc(t('score'))} {m.score:.2f}]  \n**{esc(text(g.title, lang()))}**")
            st.caption(esc(text(g.summary, lang()))[:400])
            for reason in explain_notes(m, lang()):
                st.markdown("- " + esc(reason))
            from components import env_panel
            env_panel.show_fit(m)
            if m.evidence:
                _matched_lines(result, m)
            if st.button(t("open_guide"), key=f"open:{m.guide_id}", type="primary" if n == 0 and m.confidence == "match" else "secondary"):
                open_guide(m.guide_id)
                st.rerun()


def _matched_lines(result: Result, m) -> None:
    paste = result.paste
    spans = m.evidence.spans
    first, last = spans[0].line, spans[-1].line
    rows = []
    for li in range(max(0, first - CONTEXT_LINES), min(len(paste.lines), last + CONTEXT_LINES + 1)):
        line = paste.lines[li]
        span = next((s for s in spans if s.line == li), None)
        body = highlight(line.text, span.start, span.end) if span else esc(line.text[:240])
        rows.append(f"`{line.no:>6}` " + (f":gray[{esc(line.prefix[:120])}] " if line.prefix else "") + body)
    st.markdown(f"**{esc(t('matched_lines'))}**  \n" + "  \n".join(rows))


def _unmatched(result: Result) -> None:
    from components import feedback
    feedback.record_unmatched(result)
    st.download_button(t("new_guide"), skeleton(result.paste), file_name="new-guide.yaml", mime="text/yaml",
                       key="new_guide", help=t("new_guide_help"), on_click="ignore")
