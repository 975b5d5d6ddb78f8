"""`kb explain ID FILE`: every step of matching one guide against one paste, for authors."""
from __future__ import annotations

from kb.engine.index import Index
from kb.engine.match import explain_notes, match
from kb.engine.parse import parse
from kb.engine.verify import candidates, verify


def explain(index: Index, gid: str, text: str, lang: str = "en") -> str:
    paste = parse(text)
    hits = candidates(index, paste)
    out = [f"Guide {gid}: {len(paste.lines)} line(s) parsed, {len(paste.errors)} error line(s) found."]
    for e in paste.errors[:10]:
        out.append(f"  error line {paste.lines[e.index].no}: {paste.lines[e.index].text[:160]}")
    for pid, p in enumerate(index.patterns):
        if p.guide != gid:
            continue
        role = f"signature {p.sig}" + (f" context[{p.ctx}]" if p.ctx >= 0 else "") + (" (wrapper)" if p.wrapper and p.ctx < 0 else "")
        out.append(f"\n{role}: {p.kind} {p.source!r}")
        out.append(f"  anchor {p.compiled.anchor!r}; RE2 {p.compiled.pattern}")
        lines = hits.get(pid, [])
        if not lines:
            out.append("  anchor not found in the paste -> not a candidate")
            continue
        out.append("  anchor found on line(s) " + ", ".join(str(paste.lines[i].no) for i in lines))
        # The matcher's own verification, one anchor line at a time, so the two never disagree.
        found = [i for i in lines if verify(p, paste, [i]) is not None]
        out.append("  verified on line(s) " + ", ".join(str(paste.lines[i].no) for i in found) if found else "  pattern did NOT verify around the anchor (check placeholders and spacing)")
    result = match(index, paste)
    if result.root is not None:
        out.append(f"\nRoot error: line {result.root.no}: {result.root.text[:160]} ({'covered' if result.covered else 'no guide covers it'})")
    rank = next((n for n, m in enumerate(result.matches, 1) if m.guide_id == gid), None)
    out.append("")
    if rank is None:
        out.append("Result: this guide is not in the ranking.")
    else:
        m = result.matches[rank - 1]
        out.append(f"Result: rank {rank} of {len(result.matches)}, confidence {m.confidence}, score {m.score}, specificity {m.specificity}.")
        out += ["  - " + r for r in explain_notes(m, lang, verbose=True)]
        if rank > 1:
            top = result.matches[0]
            out.append(f"  first is {top.guide_id} ({top.confidence}, score {top.score})")
    return "\n".join(out) + "\n"
