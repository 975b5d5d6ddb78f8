"""Guides as Markdown, and the localised text and labels every output uses.

Markdown is what leaves the app (export, tickets, chat), so guide text is escaped
where Markdown would otherwise read it as markup, and every command sits in a fence.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from kb.text import say
from schema.models import Guide, L10n

# Labels are the catalogue's (kb.text); a few read differently in a Markdown file than on the page.
_KEYS = {"progress": "md_progress", "confirmed": "cause_confirmed", "likely": "cause_likely",
         "speculative": "cause_speculative"}


def label(key: str, lang: str) -> str:
    return say(_KEYS.get(key, key), lang)


# YAML folds a line break into a space, which in Chinese is a stray gap: "）， 按". Spaces
# after full-width punctuation and between two Chinese characters go; those between Chinese
# and Latin text ("在 CUDA 11.8 上") stay.
_CJK = "\u4e00-\u9fff\u3400-\u4dbf"
_FULL_PUNCT = "\u3001-\u3003\u3008-\u3011\u3014-\u301f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_ZH_GAP = re.compile(f"(?<=[{_FULL_PUNCT}])[ \t]+|(?<=[{_CJK}])[ \t]+(?=[{_CJK}{_FULL_PUNCT}])")


def tidy_zh(body: str) -> str:
    return _ZH_GAP.sub("", body) if " " in body or "\t" in body else body


def text(value: L10n | None, lang: str) -> str:
    """Localised text; a fallback to the other language is said, not hidden."""
    if value is None:
        return ""
    body, used = value.get(lang)
    if used == "zh":
        body = tidy_zh(body)
    if used != lang:
        return f"{body} {say('fallback', lang, other=say('lang_name_' + used, lang))}"
    return body


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|!])")


def md_escape(s: str) -> str:
    """Escape Markdown and HTML markup in prose, keeping `code spans` as they are."""
    parts = re.split(r"(`[^`\n]+`)", s)  # odd parts are the code spans; a bare run of backticks is text
    return "".join(p if i % 2 else _MD_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts))


def _fence(code: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in code:
        ticks += "`"
    return f"{ticks}{lang}\n{code}\n{ticks}"


def _box(done: bool) -> str:
    return "[x]" if done else "[ ]"


def guide_markdown(g: Guide, lang: str = "en", done: Iterable[str] = ()) -> str:
    done = set(done)
    t = lambda v: md_escape(text(v, lang))  # noqa: E731
    out = [f"# {t(g.title)}", "", f"**{label('status', lang)}:** {label(g.status, lang)}  ", f"`{g.id}` · {g.component}", "", t(g.summary), ""]
    out += [f"## {label('fastest_fix', lang)}", "", t(g.fastest_fix), ""]
    a = g.applies_to
    if a.components or a.hardware or a.environment:
        out += [f"## {label('applies_to', lang)}", ""]
        out += [f"- {md_escape(c.name)} `{c.versions or '*'}`" + (f" — {t(c.note)}" if c.note else "") for c in a.components]
        if a.hardware:
            hw = ", ".join([f"SM{cc.replace('.', '')} ({cc})" for cc in a.hardware.compute_capability] + a.hardware.gpus)
            out.append(f"- {label('hardware', lang)}: {md_escape(hw)}" + (f" — {t(a.hardware.note)}" if a.hardware.note else ""))
        out += [f"- {md_escape(e.name)}: `{e.value}`" for e in a.environment]
        out.append("")
    out += [f"## {label('symptoms', lang)}", ""] + [f"- {t(s)}" for s in g.symptoms] + [""]
    out += [f"## {label('raw_error', lang)}", "", _fence(g.raw_errors[0].text, "text"), ""]
    out += [f"## {label('causes', lang)}", ""] + [f"- **{label(c.confidence, lang)}** — {t(c.text)}" for c in g.causes] + [""]
    total = len(g.checklist_ids())
    ticked = sum(1 for i in g.checklist_ids() if i in done)
    out += [f"**{label('progress', lang)}:** {ticked}/{total}", ""]
    if g.env_checks:
        out += [f"## {label('env_checks', lang)}", ""]
        for c in g.env_checks:
            out.append(f"- {_box(c.id in done)} {t(c.what)}")
            if c.command:
                out += ["", _indent(_fence(c.command, "bash")), ""]
            if c.expect:
                out.append(f"  {label('expect', lang)}: {t(c.expect)}")
        out.append("")
    out += [f"## {label('steps', lang)}", ""]
    for n, s in enumerate(g.steps, 1):
        cond = f"*{t(s.condition)}* " if s.condition else ""  # a phrase of its own: "If …", "On Windows …"
        out.append(f"{n}. {_box(s.id in done)} {cond}{t(s.text)}")
        for cmd in s.commands:
            out += ["", _indent(_fence(cmd, "bash"), 3), ""]
    out.append("")
    out += [f"## {label('verification', lang)}", ""]
    for v in g.verification:
        out.append(f"- {_box(v.id in done)} {t(v.text)}")
        for cmd in v.commands:
            out += ["", _indent(_fence(cmd, "bash")), ""]
        out.append(f"  {label('expect', lang)}: {t(v.expect)}")
    out.append("")
    if g.caveats:
        out += [f"## {label('caveats', lang)}", ""] + [f"- {t(c)}" for c in g.caveats] + [""]
    out += [f"## {label('references', lang)}", ""]
    out += [f"- [{md_escape(r.ref)}]({r.url})" + (f" — {md_escape(r.title)}" if r.title else "") if r.url else f"- {md_escape(r.ref)}" for r in g.references]
    if g.related:
        out += ["", f"## {label('related', lang)}", ""] + [f"- `{r}`" for r in g.related]
    out += ["", f"*{label('last_reviewed', lang)}: {g.last_reviewed.isoformat()}*", ""]
    return "\n".join(out)


def _indent(block: str, n: int = 2) -> str:
    return "\n".join(" " * n + line for line in block.split("\n"))
