"""Known upstream reports of the root error, on every result: a search of each project the
paste names (a link to GitHub's issue search) and, where a deployment switched the live
look-up on (KB_GITHUB_LOOKUP), the top reports with their state and the pull request that
closed them. GitHub's titles are shown as literal text, never as markup."""
from __future__ import annotations

import streamlit as st

from components.i18n import t
from components.markup import esc, literal
from kb.engine import upstream
from kb.engine.match import Result
from kb.feedback.redact import known_in, redact
from kb.lookup.github import Found, Lookup, from_environment


@st.cache_resource
def _lookup() -> Lookup | None:
    # One look-up (and one cache) per process, shared by every session like the index.
    return from_environment()


def render(result: Result, answered: bool) -> None:
    line = result.root.text if result.root is not None else upstream.root_error_line(result.paste)
    # Secrets, addresses and user names are out before anything leaves for GitHub.
    found = upstream.links(result.paste, redact(line, known_in(result.paste.text)) if line else None)
    if not found:
        return
    names = ", ".join(ln.project.name for ln in found)
    st.caption(t("upstream_answered" if answered else "upstream", repo=names))
    cols = st.columns(len(found))
    for col, ln in zip(cols, found):
        col.link_button(t("upstream_link", repo=ln.project.name), ln.url, icon=":material/open_in_new:")
    lookup = _lookup()
    if lookup is None:
        return
    with st.spinner(t("upstream_looking")):
        results = [lookup.search(ln.project.repo, ln.query) for ln in found[:1]]
    for f in results:
        _reports(f)


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
