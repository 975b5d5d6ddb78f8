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


@dataclass(frozen=True)
class Tier:
    name: str
    rank: int  # lower ranks first
    answers: bool  # a confident answer: Result.answer, the CLI's exit status 0
    addresses: bool  # counted by evaluation as an answer to the paste (right or false)
    badge: str  # the colour of the card's badge (a Streamlit badge colour)
    tag: str  # the command line's text output
    label: tuple[str, str]  # the badge's words, (en, zh)
    intro: tuple[str, str] | None  # the sentence above the results when this tier leads and nothing answers
    rule: str  # what earns it, for the reader of the code and the README

    def says(self, lang: str = "en") -> str:
        return self.label[1] if lang == "zh" else self.label[0]

    def introduces(self, lang: str = "en") -> str | None:
        if self.intro is None:
            return None
        return self.intro[1] if lang == "zh" else self.intro[0]


MATCH = Tier("match", 0, True, True, "green", "MATCH", ("Match", "匹配"), None,
             "a specific guide's signature matched the root error with all the context it requires")
LIKELY = Tier("likely", 1, True, True, "blue", "LIKELY", ("Likely — no exact match", "很可能（非精确匹配）"), None,
              "no signature matched, but the root error reads like a specific guide's error")
TRIAGE = Tier("triage", 2, False, True, "violet", "TRIAGE",
              ("Triage procedure — for this family of errors, not a diagnosis", "排查流程：针对这一类错误，并非确诊"),
              ("No guide names this error's exact cause. The first result is a triage procedure for its family of "
               "errors, filled in from your traceback:",
               "还没有指南能指出这个报错的确切原因。第一个结果是针对这一类错误的排查流程，已根据你的调用栈填入具体信息："),
              "a class guide (a family of mechanisms) fits the root error: its procedure finds which one")
HELP = Tier("help", 3, False, False, "orange", "help", ("Helps read the log — not the answer", "帮助阅读日志（不是答案）"),
            ("Not the answer, but these guides help read the rest of the log:", "不是答案，但以下指南有助于阅读日志的其余部分："),
            "a guide for a wrapper, or for another line of the paste than its root error")
SIMILAR = Tier("similar", 4, False, False, "gray", "similar", ("Similar — not a match", "相似（非匹配）"),
               ("These guides are only similar; check them with care:", "以下指南只是相似，请谨慎参考："),
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
