"""The lines of the paste a result matched, with a few around them, as the person pasted them."""
from __future__ import annotations

from kb.diagnosis.model import Diagnosis, GuideResult, Row
from kb.engine.aspasted import as_pasted, split_lines

CONTEXT_LINES = 2


def matched_rows(d: Diagnosis, r: GuideResult, around: int = CONTEXT_LINES) -> list[Row]:
    """Numbered as pasted; each row's `hit` is the matched part in its text. A line that cannot
    be found as pasted (the marker of a cut paste, a shortened long line) is shown as read."""
    if not r.spans:
        return []
    lines = d.paste.lines
    spans = {i: (a, b) for i, a, b in r.spans}
    first, last = min(spans), max(spans)
    lo, hi = max(0, first - around), min(len(lines), last + around + 1)
    while lo < first and not lines[lo].text.strip():  # blank lines at the edges are margins, not context
        lo += 1
    while hi - 1 > last and not lines[hi - 1].text.strip():
        hi -= 1
    if d.pasted_lines is None:  # split once per diagnosis, not once per card
        d.pasted_lines = split_lines(d.text)
    raw = d.pasted_lines
    rows = []
    for i in range(lo, hi):
        line, span = lines[i], spans.get(i)
        shown = as_pasted(line, raw)
        if shown is not None:
            rows.append(Row(line.no, shown.text, shown.span(*span) if span else None))
        else:
            n = len(line.prefix)
            rows.append(Row(line.no, line.prefix + line.text, (n + span[0], n + span[1]) if span else None))
    return rows
