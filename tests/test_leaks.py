"""No planted secret survives, whole or in part, anywhere text is stored or offered.

The corpus (tests/planted_secrets.py) puts each secret inside an error line. Every line goes
where the app sends text: the unmatched-error queue (its signature, through the store, on
SQLite and on a real PostgreSQL), a feedback comment (through the store), the guide skeleton
offered on Diagnose and the one offered on the Authors page (built from the stored signature).
"""
from __future__ import annotations

import re

from kb.authoring.skeleton import skeleton
from kb.engine.parse import parse
from kb.feedback.signature import error_signature
from kb.feedback.store import Store
from tests.conftest import all_rows
from tests.planted_secrets import CORPUS, KINDS, N_SECRETS, Planted
from tests.test_app import app, no_crash

PART = 8  # a run of this many characters of a secret counts as a leak in part


def survivors(planted: list[Planted], out: str) -> list[tuple[str, str]]:
    """(kind, secret) for each secret found in `out` whole, or in part: a run of PART of its
    characters that the lines' other text does not explain."""
    rest = "\n".join(p.line for p in planted)
    for p in planted:
        for secret in p.secrets:
            rest = rest.replace(secret, "\x00")
    found = []
    for p in planted:
        for secret in p.secrets:
            if len(secret) < PART:  # a short user or host name: as a word
                word = re.compile(r"(?<![A-Za-z0-9])" + re.escape(secret) + r"(?![A-Za-z0-9])")
                leaked = bool(word.search(out)) and not word.search(rest)
            else:
                runs = {secret[i : i + PART] for i in range(len(secret) - PART + 1)}
                leaked = any(run in out and run not in rest for run in runs)
            if leaked:
                found.append((p.kind, secret))
    return found


def test_the_corpus_is_large_varied_and_made_of_error_lines():
    assert N_SECRETS >= 60 and len(KINDS) >= 30, (N_SECRETS, len(KINDS))
    for p in CORPUS:
        paste = parse(p.line)
        # Only error lines reach the signature: a secret elsewhere would prove nothing.
        assert [paste.lines[e.index].text for e in paste.errors] == [p.line], p.kind
        assert all(s in p.line for s in p.secrets), p.kind


def test_unredacted_templating_would_leak():
    """The test can fail: templated and cut first, as before, the corpus leaks."""
    from kb.engine.signature import propose_template
    leaks = sum(len(survivors([p], propose_template(p.line))) for p in CORPUS)
    assert leaks >= N_SECRETS // 2


def test_no_planted_secret_survives_the_store(db_url: str):
    with Store(db_url, enabled=True) as store:
        for n, p in enumerate(CORPUS):
            store.record_unmatched(error_signature(parse(p.line)), "en")
            store.record_feedback(f"guide-{n % 5}", n % 2 == 0, [], "en", p.line)
        assert len(store.top_unmatched(1000)) == len(CORPUS)
    stored = repr(all_rows(db_url, "unmatched")) + repr(all_rows(db_url, "feedback"))
    leaks = survivors(list(CORPUS), stored)
    assert leaks == [], f"{len(leaks)} of {N_SECRETS} planted secrets survived: {leaks}"


def test_no_planted_secret_survives_a_skeleton():
    leaks = []
    for p in CORPUS:
        paste = parse(p.line)
        leaks += survivors([p], skeleton(paste))  # Diagnose: from the paste
        leaks += survivors([p], skeleton(parse(error_signature(paste))))  # Authors: from the stored signature
    assert leaks == [], f"{len(leaks)} planted secrets survived in skeletons: {leaks}"


def test_a_realistic_log_through_the_page(tmp_path, monkeypatch, index):
    """All of it at once, as a person pastes it: the stored rows hold none of it."""
    from kb.engine.match import match
    db = tmp_path / "page.sqlite3"
    monkeypatch.setenv("KB_DB_PATH", str(db))
    # Only an error no guide matches goes to the queue: leave out the lines a guide knows.
    planted = [p for p in CORPUS if not any(m.confidence == "match" for m in match(index, p.line).matches)]
    assert len(planted) > len(CORPUS) * 0.9
    log = "\n".join(f"INFO 11-29 10:00:{n:02d} [launcher.py:{n}] step {n}\n{p.line}" for n, p in enumerate(planted))
    at = app()
    at.text_area(key="paste").input(log).run()
    no_crash(at)
    guide = "vllm-dsv41-sm120-no-common-block-size"
    at = app(guide=guide)
    at.get("feedback")[0].set_value(1).run()
    at.text_input(key=f"fb_comment:{guide}").input(log[:2000]).run()
    at.button(key=f"fb_send:{guide}").click().run()
    no_crash(at)
    url = f"sqlite+pysqlite:///{db}"
    unmatched, feedback = all_rows(url, "unmatched"), all_rows(url, "feedback")
    assert len(unmatched) == 1 and len(feedback) == 1
    leaks = survivors(planted, repr(unmatched) + repr(feedback))
    assert leaks == [], leaks
