"""One ranked guide on the Diagnose page, the lines of the paste it matched, and the same
"why" at the top of a guide opened from the results.

Pasted text reaches Markdown only inside code spans (`markup.literal`): monospaced, with its
indentation, and never a link, an image, an arrow for `->` or any other markup.
"""
from __future__ import annotations

import streamlit as st

from components import env_panel
from components.i18n import lang, t
from components.markup import clip, esc, literal, prose
from components.phone import FIRST_RESULT_KEY
from components.state import open_guide
from kb.diagnosis import TIERS, Diagnosis, GuideResult, Row, matched_rows
from kb.text import say

MAX_SHOWN = 300  # characters of one pasted line; a longer one is cut around what matched
SUMMARY_CHARS = 400
STATUS_COLOUR = {"fixed": "green", "workaround": "orange", "unresolved": "red"}
# Values of a reason that are guide syntax (templates, regexes): code, so shown as written.
CODE_VALUES = {"pattern"}
# Values quoted from the paste or the report: as code too, where Streamlit's Markdown turns
# nothing into an arrow (`-> 2` stays `-> 2`; escaped text would still become "→ 2").
PASTED_VALUES = {"text", "theirs", "found"}
_HIT = '{foreground="#9a3412" background="rgba(251,146,60,0.45)"}'


def confidence_badge(confidence: str) -> str:
    """The tier's badge, in its colour and words (the tier registry, kb.engine.tiers, through kb.diagnosis)."""
    tier = TIERS.get(confidence)
    if tier is None:
        return f":blue-badge[{esc(confidence)}]"
    return f":{tier.badge}-badge[{esc(tier.says(lang()))}]"


def _reason(code: str, values: dict) -> str:
    marks = {k: f"\x00{i}\x00" for i, k in enumerate(values)}
    try:
        sentence = say(code, lang(), **marks)
    except (KeyError, ValueError, IndexError):  # a message that formats its values itself
        return esc(say(code, lang(), **values))
    out = esc(sentence)
    for i, (k, v) in enumerate(values.items()):
        out = out.replace(f"\x00{i}\x00", literal(str(v)) if k in CODE_VALUES | PASTED_VALUES else esc(str(v)))
    return out


def reasons(r: GuideResult) -> list[str]:
    """Why the guide ranks where it does, in the user's lines and words, as Markdown lines.
    Environment notes are left to env_panel.show_fit, which shows each once, with its badge."""
    return [_reason(code, {k: v for k, v in values.items() if k not in CODE_VALUES})
            for code, values in r.reasons if not code.startswith("env_")]


def values_and_causes(r: GuideResult) -> None:
    """The values the guide read in the paste, and which of its causes they point to."""
    if r.values:
        st.markdown(f"**{esc(t('your_values'))}:** " + ", ".join(f"{esc(n)} {literal(v)}" for n, v in r.values.items()))
    for c in r.causes:
        if c.fits is not None:
            badge = f":green-badge[{esc(t('cause_fits'))}]" if c.fits else f":gray-badge[{esc(t('cause_not_fits'))}]"
            st.markdown(f"{badge} {esc(c.says[lang()])}")


def _hit(part: str) -> str:
    body = f"**{literal(part)}**"
    # A directive's label ends at the first unbalanced bracket even inside a code span, and
    # what followed would be read as Markdown: pasted brackets get bold alone.
    return body if any(c in part for c in "[]\\") else f":color[{body}]{_HIT}"


def _row(row: Row) -> str:
    body, number = row.text, literal(f"{row.no:>6}") + " "
    if row.hit is None:
        return number + literal(body[:MAX_SHOWN]) + ("…" if len(body) > MAX_SHOWN else "")
    a, b = row.hit
    lo = max(0, a - MAX_SHOWN // 3) if len(body) > MAX_SHOWN else 0
    hi = min(len(body), max(b, lo + MAX_SHOWN))
    return (number + ("…" if lo else "") + literal(body[lo:a]) + _hit(body[a:b]) + literal(body[b:hi])
            + ("…" if hi < len(body) else ""))


def matched_lines(d: Diagnosis, r: GuideResult, key: str) -> None:
    """The lines of the paste that matched, with a few around them, numbered as pasted."""
    rows = matched_rows(d, r)
    if rows:
        with st.container(key=key):
            st.markdown(f"**{esc(t('matched_lines'))}**  \n" + "  \n".join(_row(row) for row in rows))


def render_card(d: Diagnosis, r: GuideResult, rank: int) -> None:
    # The first card is the anchor the phone's scroll goes to (components/phone.py).
    with st.container(border=True, key=FIRST_RESULT_KEY if rank == 0 else None):
        status = f":{STATUS_COLOUR[r.status]}-badge[{esc(t(r.status))}]"
        st.markdown(f"{confidence_badge(r.tier)} {status} :gray-badge[{esc(t('score'))} {r.score:.2f}]  \n"
                    f"**{esc(r.title[lang()])}**")
        st.caption(prose(clip(r.summary[lang()], SUMMARY_CHARS)))
        for reason in reasons(r):
            st.markdown("- " + reason)
        env_panel.show_fit(r)
        values_and_causes(r)
        matched_lines(d, r, key=f"matched-{r.id}")
        if r.patterns:
            with st.expander(t("details")):
                st.markdown("  \n".join(literal(p) for p in r.patterns))
        # The first result is the one to open when it answers, or when it is the triage procedure to follow.
        leads = rank == 0 and r.addresses
        if st.button(t("open_guide"), key=f"open:{r.id}", type="primary" if leads else "secondary"):
            st.session_state["from_results"] = r.id
            open_guide(r.id)
            st.rerun()


def opened_from_results(gid: str) -> tuple[Diagnosis, GuideResult] | None:
    """The diagnosis and its result for guide `gid`, when the guide was opened from the
    results of the paste still in this session."""
    kept = st.session_state.get("last_result")
    if st.session_state.get("from_results") != gid or not kept:
        return None
    d = kept[1]
    r = d.result(gid)
    return (d, r) if r is not None else None


def why_panel(gid: str) -> None:
    """The paste's matched lines and the short reason, for a guide opened from the results."""
    found = opened_from_results(gid)
    if found is None:
        return
    d, r = found
    with st.container(border=True, key="why"):
        st.markdown(f"**{esc(t('why_matched'))}** {confidence_badge(r.tier)}")
        for reason in reasons(r):
            st.markdown(reason)
        values_and_causes(r)
        matched_lines(d, r, key="matched-why")


def opened_match_causes(gid: str) -> list:
    """Which of guide `gid`'s causes the paste's numbers point to, when it was opened from its results."""
    found = opened_from_results(gid)
    return found[1].causes if found is not None else []
