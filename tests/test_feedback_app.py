"""Feedback and the unmatched-error queue through the page, on SQLite and on a real PostgreSQL."""
from __future__ import annotations

import sqlite3

import pytest

from tests.conftest import all_rows
from tests.test_app import app, no_crash, texts

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
UNMATCHED = ('Traceback (most recent call last):\n  File "/home/alice/train.py", line 7, in <module>\n'
             "ZeroDivisionError: division by zero at 10.1.2.3 with hf_AbCdEfGhIjKlMnOpQrStUvWxYz123456\n")


@pytest.fixture
def database(db_url, monkeypatch):
    monkeypatch.setenv("KB_DATABASE_URL", db_url)
    monkeypatch.setenv("KB_DB_TIMEOUT", "1")
    return db_url


def vote(at, comment: str = "") -> None:
    """A click on the thumbs up, then, with a comment, the comment sent."""
    at.get("feedback")[0].set_value(1).run()
    if comment:
        at.text_input(key=f"fb_comment:{SEED1}").input(comment).run()
        at.button(key=f"fb_send:{SEED1}").click().run()


def test_vote_and_unmatched_paste_reach_the_authors_page(database):
    at = app(guide=SEED1, done="vllm-version")
    vote(at, "worked; write to bob@example.com")
    no_crash(at)
    assert "Thank you — your answer is recorded." in texts(at)
    diag = app()
    diag.text_area(key="paste").input(UNMATCHED).run()
    no_crash(diag)
    diag.switch_page("components/pages/authors.py").run()
    no_crash(diag)
    shown = texts(diag) + "\n".join(c.value for c in diag.code)
    assert "ZeroDivisionError: division by zero" in shown and "seen 1×" in shown
    table = diag.table[0].value
    assert table.iloc[0, 0].startswith("DeepSeek-V4.1 on SM120") and table.iloc[0, 1] == 1
    feedback = all_rows(database, "feedback")
    assert len(feedback) == 1 and feedback[0].ticked == "vllm-version" and feedback[0].lang == "en"
    assert "bob@example.com" not in str(feedback) and "<email>" in feedback[0].comment
    stored = str(all_rows(database, "unmatched"))
    for secret in ("alice", "10.1.2.3", "hf_AbCdEfGh", "line 7"):
        assert secret not in stored  # the signature is stored, never the raw paste


def test_locked_database_gives_a_clear_message_and_the_page_keeps_working(tmp_path, monkeypatch):
    path = tmp_path / "kb.sqlite3"
    monkeypatch.delenv("KB_DATABASE_URL", raising=False)
    monkeypatch.setenv("KB_DB_PATH", str(path))
    monkeypatch.setenv("KB_DB_TIMEOUT", "0.5")
    at = app(guide=SEED1)
    vote(at)
    assert "Thank you — your answer is recorded." in texts(at)
    locker = sqlite3.connect(path, timeout=0.1)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        at2 = app(guide=SEED1)
        vote(at2)
        no_crash(at2)
        assert any("not saved" in e.value or "unavailable" in e.value for e in at2.error), [e.value for e in at2.error]
        assert at2.title[0].value.startswith("DeepSeek-V4.1 on SM120")  # the guide is still there
        at2.switch_page("components/pages/authors.py").run()
        no_crash(at2)
    finally:
        locker.rollback()
        locker.close()


def test_deleted_database_file_does_not_break_the_page(tmp_path, monkeypatch):
    path = tmp_path / "kb.sqlite3"
    monkeypatch.delenv("KB_DATABASE_URL", raising=False)
    monkeypatch.setenv("KB_DB_PATH", str(path))
    at = app(guide=SEED1)
    vote(at)
    path.unlink()
    at2 = app(guide=SEED1)
    vote(at2)
    no_crash(at2)
    assert "Thank you — your answer is recorded." in texts(at2) or at2.error


def test_recording_switched_off(tmp_path, monkeypatch):
    monkeypatch.delenv("KB_DATABASE_URL", raising=False)
    monkeypatch.setenv("KB_DB_PATH", str(tmp_path / "kb.sqlite3"))
    monkeypatch.setenv("KB_RECORDING", "0")
    at = app(guide=SEED1)
    no_crash(at)
    assert "Feedback recording is switched off on this server." in texts(at)
    assert not at.get("feedback")


def test_a_thumbs_click_is_recorded_at_once_and_stays_one_answer(database):
    at = app(guide=SEED1, done="vllm-version")
    thumbs = lambda: at.get("feedback")[0]  # noqa: E731 - the widget, as drawn by the latest run
    thumbs().set_value(1).run()
    no_crash(at)
    assert "Thank you — your answer is recorded." in texts(at)
    rows = all_rows(database, "feedback")
    assert [(r.answer, r.ticked, r.comment) for r in rows] == [(True, "vllm-version", None)]  # no Send needed
    at.text_input(key=f"fb_comment:{SEED1}").input("worked, thanks to carol@example.com").run()
    at.button(key=f"fb_send:{SEED1}").click().run()
    assert "Your comment was added to your answer." in texts(at)
    rows = all_rows(database, "feedback")
    assert len(rows) == 1 and rows[0].comment == "worked, thanks to <email>"
    thumbs().set_value(0).run()  # the other thumb: the same answer, changed
    rows = all_rows(database, "feedback")
    assert [(r.answer, r.comment) for r in rows] == [(False, "worked, thanks to <email>")]
    thumbs().set_value(None).run()  # the same thumb again: taken back
    assert all_rows(database, "feedback") == []
    assert "Thank you — your answer is recorded." not in texts(at)


# --- per-address limits (every AppTest session is the same local address, 127.0.0.1) -----------


def _guides(n: int) -> list[str]:
    from components.state import get_index
    ids = [SEED1] + sorted(g for g in get_index().guides if g != SEED1)
    return ids[:n]


def test_a_second_browser_of_the_same_address_changes_its_answer(database):
    vote(app(guide=SEED1))
    other = app(guide=SEED1)  # a new session: another tab, or another browser on the same address
    other.get("feedback")[0].set_value(0).run()
    no_crash(other)
    rows = all_rows(database, "feedback")
    assert [r.answer for r in rows] == [False]  # one answer, changed; not two
    other.switch_page("components/pages/authors.py").run()
    table = other.table[0].value
    assert list(table.iloc[0, 1:3]) == [1, 1]  # one address, one answer


def test_votes_and_comments_stop_at_the_limit_per_address(database, monkeypatch):
    monkeypatch.setenv("KB_VOTE_LIMIT", "2")
    monkeypatch.setenv("KB_COMMENT_LIMIT", "1")
    first, second, third = _guides(3)
    for n, gid in enumerate((first, second)):
        at = app(guide=gid)
        at.get("feedback")[0].set_value(1).run()
        assert "Thank you — your answer is recorded." in texts(at)
        at.text_input(key=f"fb_comment:{gid}").input(f"comment {n}").run()
        at.button(key=f"fb_send:{gid}").click().run()
        no_crash(at)
    assert "Too many comments from your address this hour" in texts(at)
    at = app(guide=third)
    at.get("feedback")[0].set_value(1).run()
    no_crash(at)
    assert "Too many answers from your address this hour" in texts(at)
    assert "Thank you — your answer is recorded." not in texts(at)
    rows = all_rows(database, "feedback")
    assert sorted(r.guide_id for r in rows) == sorted([first, second])
    assert [r.comment for r in rows if r.comment] == ["comment 0"]


def test_the_unmatched_queue_takes_only_so_many_entries_from_one_address(database, monkeypatch):
    monkeypatch.setenv("KB_UNMATCHED_LIMIT", "2")
    for n in range(4):  # each a new session, as a script opening new connections would make
        at = app()
        at.text_area(key="paste").input(f"ZeroDivisionError: flood number {'abcd'[n]}\n").run()
        no_crash(at)
    assert "Too many new errors from your address this hour" in texts(at)
    assert len(all_rows(database, "unmatched")) == 2
