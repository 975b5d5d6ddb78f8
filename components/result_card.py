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
from components.state import get_index, open_guide
from kb.engine.aspasted import as_pasted
from kb.engine.match import ANSWERING, Match, Result, Span
from kb.engine.parse import Line
from kb.text import CATALOGUE, say
from kb.guides.render import text

CONTEXT_LINES = 2
MAX_SHOWN = 300  # characters of one pasted line; a longer one is cut around what matched
SUMMARY_CHARS = 400
BADGE_COLOUR = {"match": "green", "likely": "blue", "help": "orange", "similar": "gray"}
BADGE_LABEL = {"likely": "tier_likely", "help": "tier_help"}  # the tiers' labels; "match" and "similar" have their own
STATUS_COLOUR = {"fixed": "green", "workaround": "orange", "unresolved": "red"}
# Values of a reason that are guide syntax (templates, regexes): code, so shown as written.
CODE_VALUES = {"pattern"}
_HIT = '{foreground="#9a3412" background="rgba(251,146,60,0.45)"}'


def confidence_badge(confidence: str) -> str:
    key = BADGE_LABEL.get(confidence, confidence)
    name = t(key) if key in CATALOGUE else confidence
    return f":{BADGE_COLOUR.get(confidence, 'blue')}-badge[{esc(name)}]"


def _reason(code: str, values: dict) -> str:
    marks = {k: f"\x00{i}\x00" for i, k in enumerate(values)}
    try:
        sentence = say(code, lang(), **marks)
    except (KeyError, ValueError, IndexError):  # a message that formats its values itself
        return esc(say(code, lang(), **values))
    out = esc(sentence)
    for i, (k, v) in enumerate(values.items()):
        out = out.replace(f"\x00{i}\x00", literal(str(v)) if k in CODE_VALUES else esc(str(v)))
    return out


def reasons(m: Match) -> list[str]:
    """Why the guide ranks where it does, in the user's lines and words, as Markdown lines.
    Environment notes are left to env_panel.show_fit, which shows each once, with its badge."""
    return [_reason(code, {k: v for k, v in values.items() if k not in CODE_VALUES})
            for code, values in m.notes if not code.startswith("env_")]


def patterns(m: Match) -> list[str]:
    """The guide's patterns behind the reasons, for the details toggle: syntax, so code."""
    return list(dict.fromkeys(str(v["pattern"]) for _, v in m.notes if v.get("pattern")))


def values_and_causes(m: Match) -> None:
    """The values the guide read in the paste, and which of its causes they point to."""
    if m.values:
        st.markdown(f"**{esc(t('your_values'))}:** " + ", ".join(f"{esc(n)} {literal(v.text)}" for n, v in m.values.items()))
    for c in m.causes:
        if c.fits is not None:
            says = c.says(lang())
            badge = f":green-badge[{esc(t('cause_fits'))}]" if c.fits else f":gray-badge[{esc(t('cause_not_fits'))}]"
            st.markdown(f"{badge} {esc(says)}")


def _hit(part: str) -> str:
    body = f"**{literal(part)}**"
    # A directive's label ends at the first unbalanced bracket even inside a code span, and
    # what followed would be read as Markdown: pasted brackets get bold alone.
    return body if any(c in part for c in "[]\\") else f":color[{body}]{_HIT}"


def _row(line: Line, span: Span | None, raw_lines: list[str]) -> str:
    shown = as_pasted(line, raw_lines)
    if shown is not None:
        body, hit = shown.text, (shown.span(span.start, span.end) if span else None)
    else:  # not found as pasted: the line as the matcher read it
        body = line.prefix + line.text
        hit = (len(line.prefix) + span.start, len(line.prefix) + span.end) if span else None
    number = literal(f"{line.no:>6}") + " "
    if hit is None:
        return number + literal(body[:MAX_SHOWN]) + ("…" if len(body) > MAX_SHOWN else "")
    a, b = hit
    lo = max(0, a - MAX_SHOWN // 3) if len(body) > MAX_SHOWN else 0
    hi = min(len(body), max(b, lo + MAX_SHOWN))
    return (number + ("…" if lo else "") + literal(body[lo:a]) + _hit(body[a:b]) + literal(body[b:hi])
            + ("…" if hi < len(body) else ""))


def matched_lines(result: Result, m: Match, raw_lines: list[str], key: str) -> None:
    """The lines of the paste that matched, with a few around them, numbered as pasted."""
    if m.evidence is None:
        return
    lines = result.paste.lines
    spans = {s.line: s for s in m.evidence.spans}
    first, last = min(spans), max(spans)
    lo, hi = max(0, first - CONTEXT_LINES), min(len(lines), last + CONTEXT_LINES + 1)
    while lo < first and not lines[lo].text.strip():  # blank lines at the edges are margins, not context
        lo += 1
    while hi - 1 > last and not lines[hi - 1].text.strip():
        hi -= 1
    rows = [_row(lines[i], spans.get(i), raw_lines) for i in range(lo, hi)]
    with st.container(key=key):
        st.markdown(f"**{esc(t('matched_lines'))}**  \n" + "  \n".join(rows))


def render_card(result: Result, m: Match, rank: int, raw_lines: list[str]) -> None:
    g = get_index().guides[m.guide_id]
    with st.container(border=True):
        status = f":{STATUS_COLOUR[g.status]}-badge[{esc(t(g.status))}]"
        st.markdown(f"{confidence_badge(m.confidence)} {status} :gray-badge[{esc(t('score'))} {m.score:.2f}]  \n"
                    f"**{esc(text(g.title, lang()))}**")
        st.caption(prose(clip(text(g.summary, lang()), SUMMARY_CHARS)))
        for reason in reasons(m):
            st.markdown("- " + reason)
        env_panel.show_fit(m)
        values_and_causes(m)
        matched_lines(result, m, raw_lines, key=f"matched-{m.guide_id}")
        shown = patterns(m)
        if shown:
            with st.expander(t("details")):
                st.markdown("  \n".join(literal(p) for p in shown))
        answers = m.confidence in ANSWERING
        if st.button(t("open_guide"), key=f"open:{m.guide_id}", type="primary" if rank == 0 and answers else "secondary"):
            st.session_state["from_results"] = m.guide_id
            open_guide(m.guide_id)
            st.rerun()


def opened_from_results(gid: str) -> tuple[Result, Match, list[str]] | None:
    """The result, the match and the pasted lines, when guide `gid` was opened from the
    results of the paste still in this session."""
    kept = st.session_state.get("last_result")
    if st.session_state.get("from_results") != gid or not kept:
        return None
    _, result, raw_lines = kept
    m = next((x for x in result.matches if x.guide_id == gid), None)
    return (result, m, raw_lines) if m is not None else None


def why_panel(gid: str) -> None:
    """The paste's matched lines and the short reason, for a guide opened from the results."""
    found = opened_from_results(gid)
    if found is None:
        return
    result, m, raw_lines = found
    with st.container(border=True, key="why"):
        st.markdown(f"**{esc(t('why_matched'))}** {confidence_badge(m.confidence)}")
        for reason in reasons(m):
            st.markdown(reason)
        values_and_causes(m)
        matched_lines(result, m, raw_lines, key="matched-why")


def opened_match_causes(gid: str) -> list:
    """Which of guide `gid`'s causes the paste's numbers point to, when it was opened from its results."""
    found = opened_from_results(gid)
    return found[1].causes if found is not None else []
