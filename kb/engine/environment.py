"""The environment as evidence: the report in the environment box and the one inside the paste.

People paste `collect_env`, `pip list` or `nvidia-smi` output into the same box as the
traceback (it is how issue templates ask for it), or into the environment box. Both
are read the same way and merged, so the answer does not depend on which box the
report went into: its facts (GPU compute capability, package versions) can satisfy a
signature's `fact` context, and guides whose `applies_to` the report contradicts rank
lower within their tier, guides it fits higher, each saying why.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import re2

from kb import config
from kb.engine.results import Match
from kb.env.conditions import CheckOutcome, evaluate, fit
from kb.env.record import EnvRecord
from kb.env.reported import reported
from kb.env.reports import parse_report

if TYPE_CHECKING:
    from kb.engine.index import Index
    from schema.models import Condition, Guide

# A contradiction moves a match below others of its tier but never out of it:
# reports are often partial or from another machine than the crash.
CONTRADICTION_PENALTY = 0.15
FIT_BONUS = 0.02

# Reports are short (a full `pip list` is a few hundred lines); the parsers read every line
# several times, so of a longer text only the start is read (KB_MAX_ENV_CHARS, KB_MAX_ENV_LINES).
# Lines every kind of report starts or is made of; a paste without any holds no report.
_MARKERS = re.compile(
    r"PyTorch version:|NVIDIA-SMI \d|Driver Version:|vLLM Version|Cuda compilation tools|GPU models and configuration"
    r"|^Package\s+Version\s*$|^(?:[A-Za-z0-9][\w.-]*==\d[^\n]*\n){3}|^GPU \d+: .+\(UUID:|^name, compute_cap"
    r"|^Python \d+\.\d+\.\d+\s*$|CUDA used to build PyTorch", re.M)
_QUICK = re2.compile(r"(?m)PyTorch version:|NVIDIA-SMI|Driver Version:|vLLM Version|Cuda compilation tools|GPU models and"
                     r"|^Package\s+Version|==\d|\(UUID:|compute_cap|^Python \d|CUDA used to build")
WINDOW = 400  # lines read around each marker of a report inside a paste


def cut_report(text: str) -> tuple[str, str | None]:
    """The part of a pasted report that is read, and a note when that is not all of it."""
    max_chars, max_lines = int(config.get("KB_MAX_ENV_CHARS")), int(config.get("KB_MAX_ENV_LINES"))
    parts = text[:max_chars].split("\n", max_lines)[:max_lines]
    head = "\n".join(parts)
    if len(head) == len(text):
        return text, None
    return head, (f"The environment report is {len(text):,} characters; only its first {len(head):,} "
                  f"({len(parts):,} lines) were read.")


def parse_env(text: str) -> EnvRecord | None:
    env = parse_report(cut_report(text)[0])
    return env if env.sources else None


def report_in_paste(text: str) -> str | None:
    """The parts of a paste that hold an environment report (a window of lines around each of
    its markers), or None when it holds none."""
    if not _QUICK.search(text):  # most pastes hold no report: one cheap scan says so
        return None
    hits = [m.start() for m in _MARKERS.finditer(text)]
    if not hits:
        return None
    lines = text.split("\n")
    starts, pos = [], 0
    for ln in lines:
        starts.append(pos)
        pos += len(ln) + 1
    from bisect import bisect_right
    keep: set[int] = set()
    for h in hits[:50]:
        i = bisect_right(starts, h) - 1
        keep.update(range(max(0, i - 5), min(len(lines), i + WINDOW)))
    return "\n".join(lines[i] for i in sorted(keep))


def environment(paste_text: str, report: str | None = None) -> EnvRecord | None:
    """What the environment box and the paste together say; None when neither holds a report."""
    parts = [cut_report(report)[0]] if report and report.strip() else []
    inside = report_in_paste(paste_text)
    if inside:
        parts.append(cut_report(inside)[0])
    if not parts:
        return None
    env = parse_report("\n\n".join(parts))
    return env if env.sources else None


def fact_outcome(fact: "Condition", env: EnvRecord | None) -> CheckOutcome | None:
    return evaluate(fact, env) if env is not None else None


def rerank(index: "Index", matches: list[Match], env: EnvRecord, tier) -> None:
    """Within each tier, guides the report contradicts go down and guides it fits go up."""
    for m in matches:
        notes = fit(index.guides[m.guide_id].applies_to, env)
        m.env_notes = notes
        bad = sum(1 for n in notes if n.verdict == "contradicts")
        good = sum(1 for n in notes if n.verdict == "fits")
        floor = 0.5 if m.confidence == "match" else 0.0
        m.score = round(max(floor, min(1.0, m.score - CONTRADICTION_PENALTY * bad + FIT_BONUS * good)), 3)
        for n in notes:
            # The checks' reasons end with their own full stop; the sentence around them has one.
            m.notes.append(("env_fits" if n.verdict == "fits" else "env_contradicts",
                            {"what": n.reason.rstrip("。."), "what_zh": n.reason_zh.rstrip("。.")}))
    matches.sort(key=lambda m: (tier(m), -m.score))


def evaluate_checks(g: "Guide", env: EnvRecord) -> dict[str, CheckOutcome]:
    """A check with a condition is tested; one without shows what the report says its command prints."""
    out: dict[str, CheckOutcome] = {}
    for c in g.env_checks:
        outcome = evaluate(c.condition, env) if c.condition is not None else reported(c.command, env)
        if outcome is not None:
            out[c.id] = outcome
    return out
