"""The raw error a guide page shows must be an error as a program printed it, not an issue's title.

The page's "Raw error" box shows a guide's first raw error: a reader compares it with their own
log, so a tracker title there ('[Bug]: ...', a sentence about the symptom) misleads. Later raw
errors only feed matching and may be one-line quotes; the first one may not read like a title:

- it starts with a tracker's tag ('[Bug]', '[Usage]:', 'Bug:', ...);
- its note says it is the issue's title ('Issue title', 'title only', '(title)');
- it is, word for word, the title its own source's reference records;
- it is a sentence in the reporter's words ('I', 'my', 'Hello'), or has no error word at all.

Only a one-line text is judged: a title never spans lines, and a multi-line paste is output.
"""
from __future__ import annotations

import re

from kb.guides.load import Problem
from schema.models import Guide

# Issue templates' tags as titles carry them: "[Bug]: ...", "[BUG] ...", "[Usage]: ...", "Bug: ...".
TAG = re.compile(r"^\s*(\[(bug|usage|feature|question|misc|installation|install|performance|doc|docs|rfc|help|new model)\b[^\]]*\]"
                 r"|(bug|usage|question|help)\s*:)", re.IGNORECASE)
# A note that calls the text a title ("Issue title: ...", "Title only.", "... (title)."), not one naming another's title.
NOTE = re.compile(r"^\s*title\b|\bissue(?:'s)? title\b|\btitle only\b|\(title\b", re.IGNORECASE)
# A reporter's own words: first person or a greeting (case-sensitive "I": printed errors don't say it).
PROSE_I = re.compile(r"\b(I|I'm|I've)\b")
PROSE_CI = re.compile(r"\b(my|hello|hi)\b", re.IGNORECASE)
# Words that make a line read as an error; a one-line raw error with none of them is a symptom.
ERROR_WORD = re.compile(
    r"error|exception|fail|fatal|assert|abort|kill|signal|terminat|warn|cannot|can't|could not|couldn't|unable|"
    r"not found|no such|no module|not supported|unsupported|not installed|not implemented|invalid|unexpected|"
    r"mismatch|out of|timed out|timeout|denied|refused|traceback|segmentation|core dumped|illegal|unknown|"
    r"expected|must|require|missing|exceed|does not|doesn't|is not|no attribute|cuda_error|\berr\b|nan\b|"
    r"make sure|return code|exit code|exitcode|exit status",
    re.IGNORECASE)


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def title_reason(g: Guide) -> str | None:
    """Why the guide's first raw error reads like an issue title, or None when it reads as output."""
    raw = g.raw_errors[0]
    text = raw.text.strip()
    if "\n" in text:
        return None
    if TAG.match(text):
        return "it starts with an issue tracker's tag"
    if raw.note and NOTE.search(raw.note):
        return "its note says it is the issue's title"
    title = next((r.title for r in g.references if r.ref == raw.source and r.title), None)
    if title and _plain(title) in (_plain(text), _plain(TAG.sub("", text, count=1))):
        return f"it is the title of {raw.source}"
    if PROSE_I.search(text) or PROSE_CI.search(text):
        return "it is a sentence in the reporter's words"
    if not ERROR_WORD.search(text):
        return "it has no error word"
    return None


# Guides whose first raw error is still a title because no printed error was found for them
# (see issue 18, section 5). The list may only shrink: `kb validate` reports a guide listed here
# that no longer reads like a title, so the entry is removed once the guide is fixed.
STILL_TITLES = frozenset({
    "deepspeed-zero3-param-already-in-registry",  # the raise line as the titles quote it; no traceback found
    "sglang-internal-assertion-error",  # the only report's body describes the assertion in prose
    "vllm-config-validation-error",  # the report's log in the search corpus stops before the error
})


def raw_title_problems(g: Guide, path: str) -> list[Problem]:
    why = title_reason(g)
    if g.id in STILL_TITLES:
        if why is None:
            return [Problem(path, None, "raw_errors.0", "reads as printed output now: remove this guide from "
                                                        "kb.authoring.raw_title.STILL_TITLES")]
        return []
    if why is None:
        return []
    return [Problem(path, None, "raw_errors.0", f"the page shows this raw error, but it reads like an issue title ({why}): "
                                                "put an error as the program printed it first (from the report's paste, "
                                                "another raw error or a reproduction)")]
