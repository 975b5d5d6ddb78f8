"""Known upstream reports of the root error, on every result: a search of each project the
paste names (a link to GitHub's issue search, from the diagnosis) and, where a deployment
switched the live look-up on (KB_GITHUB_LOOKUP), the top reports with their state and the
pull request that closed them. GitHub's titles are shown as literal text, never as markup."""
from __future__ import annotations

import streamlit as st

from components.i18n import t
from components.markup import esc, literal
from components.once import once
from kb.diagnosis import Diagnosis, Found, Lookup, configured_lookup, look_up


@once
def _lookup() -> Lookup | None:
    # One look-up (and one cache) per process, shared by every session like the index.
    return configured_lookup()


def render(d: Diagnosis, answered: bool) -> None:
    if not d.upstream:
        return
    names = ", ".join(u.project for u in d.upstream)
    st.caption(t("upstream_answered" if answered else "upstream", repo=names))
    cols = st.columns(len(d.upstream))
    for col, u in zip(cols, d.upstream, strict=True):
        col.link_button(t("upstream_link", repo=u.project), u.url, icon=":material/open_in_new:")
    lookup = _lookup()
    if lookup is None:
        return
    with st.spinner(t("upstream_looking")):
        found = look_up(d, lookup)
    if found is not None:
        _reports(found)


def _reports(found: Found) -> None:
    if found.error:
        st.caption(t("upstream_lookup_failed", reason=found.error))
        return
    if not found.reports:
        st.caption(t("upstream_none", repo=found.repo))
        return
    rows = []
    for r in found.reports:
        state = t("upstream_open") if r.state == "open" else t("upstream_closed")
        row = f"- [{esc(r.ref)}]({r.url}) · {esc(state)} · {literal(r.title)}"
        if r.closed_by is not None:
            row += f" · {esc(t('upstream_closed_by'))} [#{r.closed_by.number}]({r.closed_by.url})"
        rows.append(row)
    st.markdown(t("upstream_reports", repo=found.repo) + "\n\n" + "\n".join(rows))
