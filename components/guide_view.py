"""One guide: summary, causes, the interactive checklist, share link and export."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from components import env_panel, evidence_view, result_card
from components.feedback import feedback_widget
from components.i18n import lang, t
from components.markup import code, esc, label, prose
from components.state import get_index, link_done, open_guide, set_done, show_in_url
from kb.guides.render import guide_markdown, text
from schema.models import Guide

STATUS_COLOUR = {"fixed": "green", "workaround": "orange", "unresolved": "red"}


def _l(value) -> str:
    return prose(text(value, lang()))


def _key(gid: str, item: str) -> str:
    return f"chk:{gid}:{item}"


def done_items(g: Guide) -> list[str]:
    return [i for i in g.checklist_ids() if st.session_state.get(_key(g.id, i))]


def _init_checklist(g: Guide) -> None:
    """Ticks come from the link when a guide is opened; after that from the boxes. A tick changes
    the share link below, not the address bar: each change of the page's URL is a step in the
    browser's history (Streamlit pushes it), and after two ticks Back would take three presses."""
    if st.session_state.get("loaded_guide") == g.id:
        return
    done, dropped = link_done(g.checklist_ids())
    for item in g.checklist_ids():
        st.session_state[_key(g.id, item)] = item in done
    st.session_state["loaded_guide"] = g.id
    st.session_state["dropped_done"] = dropped
    env_panel.preset_checks(g)
    set_done(done_items(g))


def share_url(g: Guide) -> str:
    params = {"guide": g.id}
    if lang() != "en":
        params["lang"] = lang()
    done = done_items(g)
    if done:
        params["done"] = ",".join(done)
    base = (st.context.url or "http://localhost:8501/").split("?")[0]
    return f"{base}?{urlencode(params, safe=',')}"


def render(gid: str) -> None:
    index = get_index()
    g = index.guides[gid]
    _init_checklist(g)
    if st.session_state.pop("dropped_done", False):
        st.info(t("bad_done"))
    # Opened from the results of a paste: back to all of them, and the paste's lines below.
    from_results = result_card.opened_from_results(gid) is not None
    if st.button(t("all_results" if from_results else "back"), key="back", type="tertiary"):
        show_in_url({})
        st.rerun()
    st.title(label(text(g.title, lang())), anchor=False)
    st.markdown(f":{STATUS_COLOUR[g.status]}-badge[{esc(t(g.status))}] :gray-badge[{esc(g.component)}] " + " ".join(f":blue-badge[{esc(tag)}]" for tag in g.tags[:8]))
    result_card.why_panel(gid)
    st.markdown(_l(g.summary))
    st.success(f"**{esc(t('fastest_fix'))}** — " + _l(g.fastest_fix))
    _applies_to(g)
    with st.expander(t("symptoms"), expanded=True):
        for s in g.symptoms:
            st.markdown("- " + _l(s))
    with st.expander(t("raw_error")):
        st.code(g.raw_errors[0].text, language=None, wrap_lines=True)
        st.caption(esc(g.raw_errors[0].source))
    st.subheader(t("causes"), anchor=False)
    evidence_view.causes(g)
    evidence_view.fixed_and_reproduced(g)
    _checklist(g)
    if g.caveats:
        st.subheader(t("caveats"), anchor=False)
        for c in g.caveats:
            st.markdown("- " + _l(c))
    _share_and_export(g)
    feedback_widget(g, done_items(g))
    _links(g)


def _applies_to(g: Guide) -> None:
    a = g.applies_to
    if not (a.components or a.hardware or a.environment):
        return
    st.subheader(t("applies_to"), anchor=False)
    rows = [f"- **{esc(c.name)}** {code(c.versions or '*')}" + (f" — {_l(c.note)}" if c.note else "") for c in a.components]
    if a.hardware:
        hw = ", ".join([f"SM{cc.replace('.', '')} ({cc})" for cc in a.hardware.compute_capability] + a.hardware.gpus)
        rows.append(f"- **{esc(t('hardware'))}**: {esc(hw)}" + (f" — {_l(a.hardware.note)}" if a.hardware.note else ""))
    rows += [f"- **{esc(e.name)}**: {code(e.value)}" for e in a.environment]
    st.markdown("\n".join(rows))


def _checklist(g: Guide) -> None:
    st.subheader(t("checklist"), anchor=False)
    ids = g.checklist_ids()
    n_done = len(done_items(g))
    st.progress(n_done / len(ids) if ids else 0.0, text=t("progress", done=n_done, total=len(ids)))
    outcomes = env_panel.check_outcomes(g)
    if g.env_checks:
        st.markdown(f"**{esc(t('env_checks'))}**")
        for c in g.env_checks:
            st.checkbox(label(text(c.what, lang())), key=_key(g.id, c.id))
            with st.container(border=False):
                if c.id in outcomes:
                    env_panel.show_outcome(outcomes[c.id])
                if c.command:
                    st.code(c.command, language="bash")
                if c.expect:
                    st.caption(f"{esc(t('expect'))}: " + _l(c.expect))
    st.markdown(f"**{esc(t('steps'))}**")
    for n, s in enumerate(g.steps, 1):
        # The condition is a phrase of its own ("If the driver …", "On Windows …"): no "Only if:" before it.
        step = f"{n}. " + (f"\\[{label(text(s.condition, lang()))}\\] " if s.condition else "") + label(text(s.text, lang()))
        st.checkbox(step, key=_key(g.id, s.id))
        for cmd in s.commands:
            st.code(cmd, language="bash")
    st.markdown(f"**{esc(t('verification'))}**")
    for v in g.verification:
        st.checkbox(label(text(v.text, lang())), key=_key(g.id, v.id))
        for cmd in v.commands:
            st.code(cmd, language="bash")
        st.caption(f"{esc(t('expect'))}: " + _l(v.expect))


def _share_and_export(g: Guide) -> None:
    st.divider()
    st.markdown(f"**{esc(t('share'))}**")
    st.code(share_url(g), language=None)
    st.caption(t("share_help"))
    st.download_button(t("export"), guide_markdown(g, lang(), done_items(g)), file_name=f"{g.id}.{lang()}.md",
                       mime="text/markdown", key="export", on_click="ignore")


def _links(g: Guide) -> None:
    index = get_index()
    if g.references:
        st.subheader(t("references"), anchor=False)
        for r in g.references:
            name = r.ref + (f" — {r.title}" if r.title else "")
            if r.url:
                # The app makes the link (the URL is an attribute, never read as Markdown).
                st.page_link(r.url, label=label(name))
            else:
                st.markdown("- " + esc(name))
    related = [r for r in g.related if r in index.guides]
    # From the index's rows, not the guides: a page must not decode the whole knowledge base.
    same = sorted(x for x, m in index.guides.meta.items() if m.component == g.component and x != g.id and x not in related)[:10]
    for heading, ids in ((t("related"), related), (t("same_component", component=g.component), same)):
        if ids:
            st.subheader(heading, anchor=False)
            for rid in ids:
                meta = index.guides.meta[rid]
                if st.button(label(meta.title_zh if lang() == "zh" else meta.title_en), key=f"goto:{heading[:8]}:{rid}", type="tertiary"):
                    open_guide(rid)
                    st.rerun()
    st.caption(f"{t('last_reviewed')}: {g.last_reviewed.isoformat()} · `{g.id}`")
