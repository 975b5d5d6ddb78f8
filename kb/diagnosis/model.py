"""What a diagnosis holds: everything a result card, `kb match` and the API show, as plain data.

Nothing here is worded for one reader: the engine's reasons stay codes with values (worded by
kb.text.say in the reader's language when shown), and text the engine words itself (an
environment check's reason, a cause's sentence) is kept in both languages. So one diagnosis
serves a page whose reader switches language, and the JSON is written from it in either.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only the builder and the methods that read them know these
    from kb.engine.parse import Paste
    from kb.engine.roots import RootError
    from kb.env.record import EnvRecord
    from schema.models import Guide

Words = dict[str, str]  # language -> text, for every language of kb.text.LANGS
Note = tuple[str, dict[str, Any]]  # a code of kb.text's catalogue and the values it is worded with


@dataclass(frozen=True)
class Row:
    """One line of the paste as a card shows it: its number as pasted, its text as pasted (the
    text as the matcher read it where the pasted line cannot be found), the matched part."""

    no: int
    text: str
    hit: tuple[int, int] | None = None


@dataclass(frozen=True)
class Check:
    """An environment check of a guide evaluated on the report: pass, fail or unknown."""

    status: str
    found: str | None  # the value the report states
    reason: Words


@dataclass(frozen=True)
class Fit:
    """Whether one part of a guide's `applies_to` fits the report."""

    verdict: str  # "fits" or "contradicts"
    what: str
    reason: Words


@dataclass(frozen=True)
class Cause:
    """Whether the values read in the paste point to one of the guide's causes."""

    index: int  # into the guide's causes
    fits: bool | None  # None: a value its test needs is not in the paste
    says: Words


@dataclass(frozen=True)
class Upstream:
    """A search of one upstream project's issues for the root error, offered with every result:
    a newer report may say more than a guide, and where no guide answers it is what is left."""

    project: str  # as people write it: "vLLM"
    repo: str  # owner/name on GitHub
    query: str  # the words searched (no paths, values or names; redacted), without `is:issue`
    url: str  # GitHub's issue search for them


@dataclass
class Environment:
    """What an environment report (the box's and the paste's together) states, parsed once."""

    sources: list[str]
    gpus: list[tuple[str, str | None]]  # (name, compute capability)
    torch: str | None
    cuda: str | None
    driver: str | None
    python: str | None
    vllm: str | None
    packages: int
    cut_note: str | None = None  # the box's report was longer than what is read
    record: EnvRecord | None = field(default=None, repr=False)

    def checks(self, guide: Guide) -> dict[str, Check]:
        """Each of the guide's environment checks evaluated on this report."""
        from kb.engine.environment import evaluate_checks
        if self.record is None:
            return {}
        return {cid: Check(o.status, o.found, {"en": o.reason, "zh": o.reason_zh})
                for cid, o in evaluate_checks(guide, self.record).items()}


@dataclass
class GuideResult:
    """One ranked guide: its tier, why, and what it read in the paste."""

    id: str
    tier: str  # the name of its tier in the registry (kb.engine.tiers): match, likely, triage, help, similar
    answers: bool  # the tier answers the paste (match or likely)
    addresses: bool  # the tier addresses the paste: it answers, or it is a class guide's triage procedure
    score: float
    scope: str  # the guide's: "specific" (one mechanism) or "class" (a family of them)
    status: str
    title: Words
    summary: Words
    reasons: list[Note]  # why it ranks where it does
    values: dict[str, str]  # name -> the value as the paste prints it
    causes: list[Cause]
    fit: list[Fit]  # the report against the guide's applies_to
    checks: dict[str, Check]  # the guide's environment checks on the report (none without a report)
    signature: dict[str, str | None] | None  # {id, kind, pattern} of what matched
    lines: list[dict[str, Any]]  # the matched spans: {line, text, start, end, prefix}
    occurrences: int
    context: list[dict[str, Any]]  # the signature's required context, found or not
    likely: dict[str, Any] | None  # for the likely tier: what it was closest to
    triage: dict[str, Any] | None = None  # for the triage tier: the packages the paste's frames name (kb match --json's)
    spans: list[tuple[int, int, int]] = field(default_factory=list, repr=False)  # (line index, start, end)

    @property
    def patterns(self) -> list[str]:
        """The guide's patterns behind the reasons, each once (syntax: shown as code, behind a toggle)."""
        return list(dict.fromkeys(str(v["pattern"]) for _, v in self.reasons if v.get("pattern")))


@dataclass
class Diagnosis:
    """A paste diagnosed: its root error, the ranked guides and everything shown with them."""

    lang: str  # the language kb.diagnosis.as_json and as_text word in by default
    empty: bool
    truncation: str | None  # the paste was cut to its head and tail, in words
    root: dict[str, Any] | None  # {line, text, covered, triage}
    notes: list[Note]  # about the paste as a whole (where the root error is)
    cut: list[Note]  # what the paste lacks: a traceback without its error line, a cut last line
    results: list[GuideResult]
    environment: Environment | None
    upstream: list[Upstream]  # a search for each project the paste names, the one to report to first
    unmatched: str | None  # the redacted, normalised error signature the unmatched-error queue stores
    paste: Paste = field(repr=False)
    root_error: RootError | None = field(default=None, repr=False)
    text: str = field(default="", repr=False)  # as pasted, for showing lines as they were
    pasted_lines: list[str] | None = field(default=None, repr=False, compare=False)  # `text` split, once

    @property
    def answered(self) -> bool:
        return any(r.answers for r in self.results)

    @property
    def answer(self) -> GuideResult | None:
        return self.results[0] if self.results and self.results[0].answers else None

    @property
    def triaged(self) -> bool:
        """Nothing answers, but a class guide's triage procedure fits the root error and leads."""
        return not self.answered and bool(self.results) and self.results[0].tier == "triage"

    def result(self, guide_id: str) -> GuideResult | None:
        return next((r for r in self.results if r.id == guide_id), None)

    def skeleton(self) -> str:
        """A new guide's file proposed from this paste, secrets and personal paths removed."""
        from kb.authoring.skeleton import skeleton
        return skeleton(self.paste, self.root_error)
