"""Every claim traceable to its source: the checks on a guide's causes and their evidence.

A cause needs evidence; a `confirmed` cause needs a verbatim quote by a maintainer, a
merged fix or a reproduction that is not a counter-example; every reference a cause cites must be among the guide's
references, so the page can link it.
"""
from __future__ import annotations

from kb.guides.load import Problem
from schema.models import Guide


def evidence_problems(g: Guide, path: str) -> list[Problem]:
    out: list[Problem] = []
    listed = {r.ref for r in g.references}
    for i, c in enumerate(g.causes):
        where = f"causes.{i}"
        if not c.evidence:
            out.append(Problem(path, None, where, "a cause needs evidence: the reference (and a quote) it stands on"))
        if c.confidence == "confirmed" and not any(q.confirms for q in c.quotes()):
            out.append(Problem(path, None, where, "'confirmed' needs a verbatim quote by a maintainer, a merged fix or a "
                                                  "reproduction (evidence: [{ref, quote, by}]); otherwise say 'likely'"))
        for ref in c.refs():
            if ref not in listed:
                out.append(Problem(path, None, where, f"cites {ref!r}, which is not in the guide's references"))
    return out
