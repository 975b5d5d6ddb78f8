"""A guide's causes with what they stand on: the verbatim quotes and who said them ("why we
believe this"), the releases that fix them, which of them the user's numbers point to, and
the guide's own reproduction."""
from __future__ import annotations

import streamlit as st

from components import result_card
from components.i18n import lang, t
from components.markup import esc, literal, prose
from kb.guides.render import text
from kb.text import CATALOGUE
from schema.models import Evidence, Fix, Guide

CONFIDENCE_COLOUR = {"confirmed": "green", "likely": "orange", "speculative": "gray"}


def _fix(f: Fix) -> str:
    parts = [f"{f.package} {f.version}" if f.version else f.package, f.ref or ""]
    return literal(" ".join(p for p in parts if p))


def causes(g: Guide) -> None:
    fits = {c.index: c for c in result_card.opened_match_causes(g.id)}  # which causes the user's numbers point to
    for i, c in enumerate(g.causes):
        fit = fits.get(i)
        head = f":{CONFIDENCE_COLOUR[c.confidence]}-badge[{esc(t('cause_' + c.confidence))}] "
        if fit is not None and fit.fits is True:
            head += f":green-badge[{esc(t('cause_fits'))}] "
        st.markdown(head + prose(text(c.text, lang())))
        if fit is not None and fit.fits is not None:
            st.caption(esc(fit.says[lang()]))
        if c.fixed_in:
            st.caption(f"{esc(t('fixed_in'))}: " + ", ".join(_fix(f) for f in c.fixed_in))
        quotes = [e for e in c.evidence if isinstance(e, Evidence) and e.quote]
        if quotes:
            with st.expander(t("why_believe")):
                for e in quotes:
                    by = e.by or ""
                    who = t("by_" + by) if "by_" + by in CATALOGUE else by
                    # A counter-example is shown so the reader sees the doubt, and says so.
                    key = "said_against" if e.role == "counter-example" else "said_by"
                    st.markdown(esc(t(key, who=who, ref=e.ref)))
                    st.code(e.quote, language=None, wrap_lines=True)


def fixed_and_reproduced(g: Guide) -> None:
    if g.fixed_in:
        st.markdown(f"**{esc(t('fixed_in'))}:** " + ", ".join(_fix(f) for f in g.fixed_in))
    r = g.reproduced
    if r is not None:
        line = t("reproduced_line", hardware=r.hardware, software=", ".join(r.software), date=r.date.isoformat(),
                 script=r.script, fix=t("fix_verified") if r.fix_verified else "")
        st.info(f"**{esc(t('reproduced'))}** " + esc(line).replace("\\`", "`"))
        if r.note:
            st.caption(prose(text(r.note, lang())))
