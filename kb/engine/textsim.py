"""Error text made comparable: volatile values masked, words weighted by how much they say.

Two pastes of the same error differ in numbers, paths, addresses, quoted names and
versions; masking them leaves the wording, which is what the "likely" and "similar"
tiers compare. Words every log of the stack prints ("error", "torch", "cuda", "file")
say little about which error it is, so they weigh less than rare ones.
"""
from __future__ import annotations

import re

_HEX = re.compile(r"\b0[xX][0-9a-fA-F]+\b|\b[0-9a-f]{12,}\b")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+@~-]+){2,}[\\/]?")
_QUOTED = re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_])[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?:\s?(?:[KMGTP]i?B|bytes|ms|s)\b)?")
_SPACE = re.compile(r"\s+")
# What a template's placeholders stand for, masked the same way as the values they match.
_PLACEHOLDER = re.compile(r"\{(int|num|size|version|hex|path|quoted|word|ident|any)(?::[a-z_][a-z0-9_]*)?\}")
_PH_MASK = {"int": "N", "num": "N", "size": "N", "version": "N", "hex": "H", "path": "P", "quoted": "Q",
            "word": " ", "ident": " ", "any": " "}
MAX_MASKED = 400
MASKS = ("n", "h", "p", "q")  # the words masking leaves for volatile values (numbers, hex, paths, quoted placeholders)


def mask(text: str) -> str:
    """`text` in lower case with its volatile values replaced by N, H, P and Q."""
    t = _HEX.sub(" H ", text[:4000])
    # A path's last part often names the failing module (flash_attn_2_cuda…so): keep it.
    t = _PATH.sub(lambda m: " " + re.split(r"[\\/]", m.group(0).rstrip("/\\"))[-1] + " ", t)
    # Quoted names stay: 'vllm._C' and 'flash_attn_2_cuda' are what tells two "No module named" apart.
    t = _NUMBER.sub(" N ", t)
    return _SPACE.sub(" ", t).strip().lower()[:MAX_MASKED]


def mask_template(template: str) -> str:
    """A signature template as the text its matches would mask to."""
    t = _PLACEHOLDER.sub(lambda m: f" {_PH_MASK[m.group(1)]} ", template).replace("{{", "{").replace("}}", "}")
    return mask(t)


_WORD = re.compile(r"[a-z][a-z0-9_]{2,}|[\u4e00-\u9fff]{2,}")
# Said by nearly every traceback or log of the stack: they barely tell errors apart.
STACK_WORDS = frozenset("""
error errors exception exceptions runtimeerror valueerror typeerror traceback most recent call last file line
python site packages dist lib usr local home self return raise raised init main call module modules none true false
torch cuda nvidia gpu device devices model models load loading loaded does not the and for with this that was are
you from has have when can its failed fail failure found use using used please see above below info warning
warn debug process processes run running code into than then try set get
expected expect value values column got must should argument arguments object string number type types name names
input output first one two check checking given give make sure instead other same different more less not none
list index out range self key keys item items size shape dim dimension called function method class
""".split())
STACK_WEIGHT = 0.2


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def weight(word: str) -> float:
    return STACK_WEIGHT if word in STACK_WORDS else 1.0


def literal_letters(masked: str) -> int:
    """How much wording a masked text still holds: its letters outside the mask tokens."""
    return sum(len(w) for w in words(masked) if w not in MASKS)


# Boilerplate: the sentences many different errors print around their own words (PyTorch's "CUDA kernel
# errors might be asynchronously reported …", THC's "cuda runtime error (N) :", "No such file or
# directory"). Two errors that share only those read alike. What counts as boilerplate comes from the
# data: a run of SHINGLE masked words that the raw errors of many guides hold (kb.engine.index derives
# the set). A few sentences of the stack's check macros that one guide's raw errors happen to hold,
# though every error raised by that macro prints them, are named here as well.
SHINGLE = 5
MIN_GUIDES = 8  # a run of words in the raw errors of this many guides (or of BOILERPLATE_SHARE of them) is boilerplate
BOILERPLATE_SHARE = 0.03
CHECK_SENTENCES = re.compile(
    r"internal assert failed at [^,\n]{0,300}?,? please report a bug to pytorch\.?"  # TORCH_INTERNAL_ASSERT
    r"|exception raised from \S+ at [^(\n]{0,300}?\(most recent call first\):?"  # c10::Error's origin
    r"|search for \S+ in https:/ \S+ for more information\.?")  # torch 2.9+'s CUDA error name line


def shingles(masked: str) -> set[str]:
    w = masked.split()
    return {" ".join(w[i:i + SHINGLE]) for i in range(len(w) - SHINGLE + 1)}


def boilerplate(per_guide: dict[str, frozenset[str]]) -> frozenset[str]:
    """The runs of words that the raw errors of many guides hold."""
    from collections import Counter
    counts = Counter(s for sh in per_guide.values() for s in sh)
    need = max(MIN_GUIDES, int(len(per_guide) * BOILERPLATE_SHARE))
    # A run of numbers and punctuation ("n : n : n", a timestamp) is no sentence.
    return frozenset(s for s, n in counts.items() if n >= need and literal_letters(s) >= 6)


def strip_boilerplate(masked: str, common: frozenset[str]) -> str:
    """`masked` without the boilerplate it holds: the words the error itself says."""
    t = CHECK_SENTENCES.sub(" ", masked)
    w = t.split()
    if common and len(w) >= SHINGLE:
        keep = [True] * len(w)
        for i in range(len(w) - SHINGLE + 1):
            if " ".join(w[i:i + SHINGLE]) in common:
                keep[i:i + SHINGLE] = [False] * SHINGLE
        w = [x for x, k in zip(w, keep, strict=True) if k]
    return " ".join(w)
