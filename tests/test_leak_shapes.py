"""No planted secret survives in any of its shapes (tests/planted_shapes.py), through every
channel that stores or shows visitor text: the unmatched-error queue (its signature through
the store), a feedback comment (through the store), the guide skeletons of the Diagnose and
Authors pages, and the upstream issue search the page links to."""
from __future__ import annotations

import base64
import re
from collections import Counter
from urllib.parse import unquote

import pytest

from kb.authoring.skeleton import skeleton
from kb.engine import upstream
from kb.engine.parse import parse
from kb.engine.roots import root_error
from kb.feedback.redact import known_in, redact
from kb.feedback.signature import error_signature
from kb.feedback.store import Store
from tests.conftest import all_rows
from tests.planted_secrets import KINDS
from tests.planted_shapes import SHAPES, shaped
from tests.test_leaks import PART

_B64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def _decodings(out: str) -> str:
    """`out` and what its encodings say: percent-decoded, JSON-unescaped, base64 runs decoded."""
    out = re.sub(r"<[a-z0-9-]+>", "<>", out)  # a placeholder's name (`<sendgrid-api-key>`) is no leak
    parts = [out, unquote(out), out.replace("\\\\", "\\").replace('\\"', '"')]
    for m in _B64.finditer(out):
        try:
            parts.append(base64.b64decode(m.group(0) + "=" * (-len(m.group(0)) % 4)).decode("utf-8", "replace"))
        except ValueError:
            pass
    return "\n".join(parts)


def survivors(p, out: str, paste: str, others: tuple = ()) -> list[tuple[str, str]]:
    """(kind, secret) of `p` found in `out` or in what its encodings say, whole or in part: a run
    of PART of its characters that the shaped paste's other text does not explain. `others`:
    the other planted lines whose secrets may be in `out` too (one store holds many)."""
    out = _decodings(out)
    rest = paste
    for q in (p, *others):
        for secret in q.secrets:
            rest = rest.replace(secret, "\x00")
    found = []
    for secret in p.secrets:
        if len(secret) < PART:
            word = re.compile(r"(?<![A-Za-z0-9])" + re.escape(secret) + r"(?![A-Za-z0-9])")
            leaked = bool(word.search(out)) and not word.search(rest)
        else:
            leaked = any(secret[i:i + PART] in out and secret[i:i + PART] not in rest for i in range(len(secret) - PART + 1))
        if leaked:
            found.append((p.kind, secret))
    return found


CASES = shaped()


def _report(leaks: list[tuple[str, str, str]]) -> str:
    by_shape = Counter(shape for shape, _, _ in leaks)
    return f"{len(leaks)} of {len(CASES)} shaped secrets survived ({dict(by_shape)}): {leaks[:8]}"


def test_the_shaped_corpus_is_large():
    shapes = Counter(name for name, _, _ in CASES)
    assert set(shapes) == set(SHAPES), set(SHAPES) - set(shapes)
    assert len(KINDS) >= 48 and len(CASES) >= 48 * 9, (len(KINDS), len(CASES))


def test_the_old_rules_alone_would_leak():
    """The test can fail: a single pass of the rules, with no other shape read, leaks."""
    from kb.feedback.redact import rules
    leaks = [(name, k, s) for name, p, paste in CASES for k, s in survivors(p, rules(paste), paste)]
    shapes = {name for name, _, _ in leaks}
    assert {"base64", "twice", "access-log-percent", "json-in-json", "locals-dump"} <= shapes, shapes


@pytest.mark.parametrize("shape", list(SHAPES))
def test_redaction_removes_every_shape(shape):
    leaks = [(name, k, s) for name, p, paste in CASES if name == shape for k, s in survivors(p, redact(paste), paste)]
    assert leaks == [], _report(leaks)


def test_nothing_is_stored_in_any_shape(tmp_path):
    leaks = []
    for shape in SHAPES:
        url = f"sqlite+pysqlite:///{tmp_path / (shape + '.sqlite3')}"
        cases = [(p, paste) for name, p, paste in CASES if name == shape]
        with Store(url, enabled=True) as store:
            for n, (_, paste) in enumerate(cases):
                parsed = parse(paste)
                store.record_unmatched(error_signature(parsed, root_error(parsed)), "en")
                store.record_feedback(f"guide-{n}", n % 2 == 0, [], "en", paste[:2000])
        stored = repr(all_rows(url, "unmatched") + all_rows(url, "feedback"))
        pastes = "\n".join(paste for _, paste in cases)
        planted = tuple(p for p, _ in cases)
        leaks += [(shape, k, s) for p, _ in cases for k, s in survivors(p, stored, pastes, planted)]
    assert leaks == [], _report(leaks)


def test_no_skeleton_or_upstream_search_holds_any_shape():
    leaks = []
    for name, p, paste in CASES:
        parsed = parse(paste)
        root = root_error(parsed)
        sig = error_signature(parsed, root)
        line = root.text if root is not None else upstream.root_error_line(parsed)
        links = upstream.links(parsed, redact(line, known_in(parsed.text)) if line else None)
        out = skeleton(parsed) + skeleton(parse(sig)) + " ".join(ln.url + ln.query for ln in links)
        leaks += [(name, k, s) for k, s in survivors(p, out, paste)]
    assert leaks == [], _report(leaks)
