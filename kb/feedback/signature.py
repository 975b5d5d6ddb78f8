"""The normalised signature of a paste's errors, as the unmatched-error queue stores it.

Each error line is redacted first, then templated (volatile values become placeholders)
and cut: templating or cutting first would break a secret into pieces that no rule
recognises any more (`<secret>}-{int}-GoJv…`, half a token at the cut).
"""
from __future__ import annotations

from kb.engine.parse import MAX_DISTINCT_ERRORS, Paste
from kb.engine.roots import RootError
from kb.engine.signature import propose_template
from kb.feedback.redact import Found, known_in, redact

__all__ = ["error_signature"]


def _frames(paste: Paste, index: int, known: list[Found]) -> str:
    err = next((e for e in paste.errors if e.index == index), None)
    if err is None or not err.frames:
        return ""
    # File and function names can carry a user name too (`/home/alice/alice_run.py`).
    return "  @ " + " < ".join(redact(f"{f}:{fn}", known) for f, fn in reversed(err.frames))


def error_signature(paste: Paste, root: RootError | None = None, max_errors: int = 3) -> str:
    """The redacted, normalised error of a paste: its root error (kb.engine.roots) with the
    top frames of its traceback, the same line the page names; without one, its error lines.

    Volatile values are templated away so that the same error seen twice counts twice.
    """
    # Each line is redacted alone, so the secrets of the whole paste (in every shape) go with it:
    # a token printed in full where a rule sees it and bare in the error line goes from both.
    known = known_in(paste.text)
    if root is not None:
        return propose_template(redact(root.text, known)) + _frames(paste, root.index, known)
    seen: list[str] = []
    raw_seen: set[tuple] = set()
    for err in paste.errors:
        # The same line repeated 100,000 times is one error: template it once, and give up
        # after a bounded number of distinct ones.
        key = (paste.lines[err.index].text, err.frames)
        if key in raw_seen:
            continue
        if len(raw_seen) >= MAX_DISTINCT_ERRORS:
            break
        raw_seen.add(key)
        line = propose_template(redact(paste.lines[err.index].text, known)) + _frames(paste, err.index, known)
        if line not in seen:
            seen.append(line)
        if len(seen) >= max_errors:
            break
    return "\n".join(seen)
