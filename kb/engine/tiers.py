"""The tiers a ranked guide can have, in one place: what earns each, its rank, whether it
answers, and how the page and the command line name it, in English and Chinese.

A result's tier is decided once, when matching builds it (kb.engine.match); everything
that shows, sorts, counts or scores a result reads the tier from here.

- match: a specific guide's signature matched the root error with the context it requires.
- likely: no signature matched, but the root error reads like a specific guide's error.
- triage: a class guide (one that covers a family of mechanisms: API drift between two
  packages, an undefined symbol, a shape error inside a library) fits the root error. Its
  procedure finds which mechanism it is; it does not name it. It ranks under every specific
  answer and is never a confident answer: `Result.answer` is not a triage result, and
  `kb match` exits 1 when nothing better fits. Evaluation counts it as *addressing* the
  paste: right when the case's label says the class guide fits, a false answer otherwise.
- help: a guide for a wrapper or for another line of the paste than its root error.
- similar: nothing fits; guides about the same words, or whose required context is missing.
"""
from __future__ import annotations

from dataclasses import dataclass

from kb.text import say


@dataclass(frozen=True)
class Tier:
    name: str
    rank: int  # lower ranks first
    answers: bool  # a confident answer: Result.answer, the CLI's exit status 0
    addresses: bool  # counted by evaluation as an answer to the paste (right or false)
    badge: str  # the colour of the card's badge (a Streamlit badge colour)
    tag: str  # the command line's text output
    label: str  # the badge's words: a key of kb.text's catalogue (English and Chinese)
    intro: str | None  # the key of the sentence above the results when this tier leads and nothing answers
    rule: str  # what earns it, for the reader of the code and the README

    def says(self, lang: str = "en") -> str:
        return say(self.label, lang)

    def introduces(self, lang: str = "en") -> str | None:
        return None if self.intro is None else say(self.intro, lang)


MATCH = Tier("match", 0, True, True, "green", "MATCH", "tier_match", None,
             "a specific guide's signature matched the root error with all the context it requires")
LIKELY = Tier("likely", 1, True, True, "blue", "LIKELY", "tier_likely", None,
              "no signature matched, but the root error reads like a specific guide's error")
TRIAGE = Tier("triage", 2, False, True, "violet", "TRIAGE", "tier_triage", "tier_triage_intro",
              "a class guide (a family of mechanisms) fits the root error: its procedure finds which one")
HELP = Tier("help", 3, False, False, "orange", "help", "tier_help", "tier_help_intro",
            "a guide for a wrapper, or for another line of the paste than its root error")
SIMILAR = Tier("similar", 4, False, False, "gray", "similar", "tier_similar", "tier_similar_intro",
               "nothing fits: guides about the same words, or whose required context is missing")

TIERS: dict[str, Tier] = {t.name: t for t in (MATCH, LIKELY, TRIAGE, HELP, SIMILAR)}
ANSWERING = frozenset(t.name for t in TIERS.values() if t.answers)
ADDRESSING = frozenset(t.name for t in TIERS.values() if t.addresses)
# The tier each scope answers in when its signature fits the root error.
SCOPE_TIER = {"specific": MATCH, "class": TRIAGE}


def tier(name: str) -> Tier:
    """The tier called `name`; a KeyError names an unknown one (a typo in code, never input)."""
    return TIERS[name]


def rank(name: str) -> int:
    return TIERS[name].rank
