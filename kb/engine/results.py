"""What matching produces: a verified signature (Hit), a ranked guide (Match) and the result
for a paste (Result), with the values and cause fits a match carries.

They live apart from kb.engine.match so that the modules matching calls (ranking, values,
the environment) can name them without importing the matcher.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kb.engine.likely import Likely
from kb.engine.parse import Paste
from kb.engine.roots import RootError
from kb.engine.tiers import ANSWERING, TIERS, Tier
from kb.engine.triage import Triage
from kb.engine.verify import Evidence, Span
from kb.env.conditions import FitNote
from kb.env.record import EnvRecord
from schema.prose import L10n

__all__ = ["CauseFit", "ContextHit", "Evidence", "Hit", "Match", "Result", "Span", "Value"]


@dataclass(frozen=True)
class Value:
    name: str
    text: str  # as the paste prints it
    number: float | None  # bytes for sizes; None when it is not a number


@dataclass(frozen=True)
class CauseFit:
    index: int  # into guide.causes
    fits: bool | None  # None: a value the test needs is not in the paste
    says_en: str
    says_zh: str

    def says(self, lang: str) -> str:
        return self.says_zh if lang == "zh" else self.says_en


@dataclass
class ContextHit:
    """One required context entry of a signature and whether the paste (or the report) has it."""

    kind: str  # "pattern", "module" or "fact"
    source: str  # the template or regex as written, "module vllm", or the fact's condition
    evidence: Evidence | None  # the line that holds it (pattern, module)
    found: bool
    detail: str | None = None  # what was found, in words (the module's file, the report's value)
    why: L10n | None = None  # the context's L10n `why`, shown when it is missing
    literal_chars: int = 0


@dataclass(frozen=True)
class Hit:
    """A guide's best verified signature in a paste, with its context, before its tier is
    decided (that needs the root error, which the hits of wrappers help find)."""

    guide_id: str
    scope: str  # the guide's: "specific" or "class"
    signature: str
    evidence: Evidence
    contexts: list[ContextHit]
    wrapper: bool
    specificity: int

    @property
    def complete(self) -> bool:
        return all(c.found for c in self.contexts)

    @property
    def confidence(self) -> str:
        """The tier the hit would have on the root error: its scope's, or "similar" when
        required context is missing (what the ranking of hits compares)."""
        if not self.complete:
            return "similar"
        return "triage" if self.scope == "class" else "match"

    @property
    def first_line(self) -> int:
        return self.evidence.spans[0].line

    @property
    def n_context(self) -> int:
        return sum(1 for c in self.contexts if c.found)


@dataclass
class Match:
    guide_id: str
    confidence: str  # the tier's name (kb.engine.tiers), decided when the match is made
    score: float
    signature: str | None = None
    evidence: Evidence | None = None  # the verified signature, or for a likely hit the root error's line
    contexts: list[ContextHit] = field(default_factory=list)
    notes: list[tuple[str, dict]] = field(default_factory=list)  # reason codes, worded by kb.engine.reasons
    wrapper: bool = False
    specificity: int = 0
    values: dict[str, Value] = field(default_factory=dict)
    causes: list[CauseFit] = field(default_factory=list)  # which causes the values point to
    likely: Likely | None = None
    env_notes: list[FitNote] = field(default_factory=list)
    scope: str = "specific"  # the guide's scope
    triage: Triage | None = None  # for a triage result: what the paste's frames say of the packages involved

    @classmethod
    def of(cls, hit: Hit, tier: str, notes: list[tuple[str, dict]] | None = None,
           triage: Triage | None = None) -> "Match":
        return cls(hit.guide_id, tier, 0.0, hit.signature, hit.evidence, hit.contexts, list(notes or []),
                   hit.wrapper, hit.specificity, scope=hit.scope, triage=triage)

    @property
    def tier(self) -> Tier:
        return TIERS[self.confidence]

    @property
    def first_line(self) -> int:
        return self.evidence.spans[0].line if self.evidence else 1 << 30

    @property
    def n_context(self) -> int:
        return sum(1 for c in self.contexts if c.found)


@dataclass
class Result:
    paste: Paste
    matches: list[Match]
    root: RootError | None = None
    covered: bool = False  # a match or a likely guide answers for the root error
    notes: list[tuple[str, dict]] = field(default_factory=list)  # about the paste as a whole
    env: EnvRecord | None = None

    @property
    def confident(self) -> list[Match]:
        """The matches that answer (match or likely)."""
        return [m for m in self.matches if m.confidence in ANSWERING]

    @property
    def answer(self) -> Match | None:
        return self.matches[0] if self.matches and self.matches[0].confidence in ANSWERING else None

    @property
    def triaged(self) -> bool:
        """Nothing answers, but a class guide's triage procedure fits the root error."""
        return self.answer is None and bool(self.matches) and self.matches[0].confidence == "triage"
