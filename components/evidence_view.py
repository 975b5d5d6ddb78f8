"""A guide's causes with what they stand on: the verbatim quotes and who said them ("why we
believe this"), the releases that fix them, which of them the user's numbers point to, and
the guide's own reproduction."""
from __future__ import annotations

import streamlit as st

from components import result_card
from components.i18n import lang, t
from components.markup import esc, literal, prose
from kb.guides.render import text
from schema.models import Evidence, Fix, Guide

CONFIDENCE_COLOUR = {"confirmed": "green", "likely": "orange", "speculative": "gray"}
SPEAKER = {"maintainer": ("a maintainer", "维护者"), "fix": ("the merged fix", "合并的修复"),
           "reproduction": ("this project's reproduction", "本项目的复现"), "docs": ("the documentation", "文档"),
           "source": ("the source code", "源代码"), "reporter": ("the reporter", "报告者"), "commenter": ("a commenter", "评论者")}


def _fix(f: Fix) -> str:
    parts = [f"{f.package} {f.version}" if f.version else f.package, f.ref or ""]
    return literal(" ".join(p for p in parts if p))


def causes(g: Guide) -> None:
    fits = {c.index: c for c in result_card.opened_match_causes(g.id)}  # which causes the user's numbers point to
    for i, c in enumerate(g.causes):
        fit = fits.get(i)
        head = f":{CONFIDENCE_COLOUR[c.confidence]}-badge[{esc(t(c.confidence))}] "
        if fit is not None and fit.fits is True:
            head += f":green-badge[{esc(t('cause_fits'))}] "
        st.markdown(head + prose(text(c.text, lang())))
        if fit is not None and fit.fits is not None:
            st.caption(esc(fit.says(lang())))
        if c.fixed_in:
            st.caption(f"{esc(t('fixed_in'))}: " + ", ".join(_fix(f) for f in c.fixed_in))
        quotes = [e for e in c.evidence if isinstance(e, Evidence) and e.quote]
        if quotes:
            with st.expander(t("why_believe")):
                for e in quotes:
                    who = SPEAKER.get(e.by or "", (e.by or "", e.by or ""))[1 if lang() == "zh" else 0]
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
