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
