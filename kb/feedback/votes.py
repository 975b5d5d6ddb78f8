"""Votes: a thumbs click recorded at once, then changed, taken back or given a comment, all on
the same row, so that one person's answer counts once whatever they do next.

A subclass of Store rather than more methods in store.py: the same guarantees (redaction
before the write, StoreUnavailable for every failure), and store.py stays within its size.
"""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Executable

from kb.feedback.store import Store, _comment, _short
from kb.feedback.tables import MAX_ID, MAX_LANG, feedback


class VotingStore(Store):
    def record_vote(self, guide_id: str, helpful: bool, ticked: list[str], lang: str) -> int | None:
        """Store a thumbs click as an answer without a comment; return its row id (None when
        recording is off), which change_vote and add_comment take."""
        if not self.enabled:
            return None
        row = {
            "guide_id": _short(guide_id, MAX_ID),
            "answer": bool(helpful),
            # Ids never contain commas; dropping any keeps the column splittable (as record_feedback).
            "ticked": ",".join(t for t in (_short(i, MAX_ID).replace(",", "") for i in ticked) if t),
            "lang": _short(lang, MAX_LANG),
            "comment": None,
            "created_at": datetime.now(UTC),
        }
        with self._guard("feedback") as engine, engine.begin() as conn:
            key = conn.execute(feedback.insert().values(**row)).inserted_primary_key
            assert key is not None  # an INSERT of one row has one
            return int(key[0])

    def change_vote(self, row_id: int, helpful: bool | None) -> None:
        """The other thumb was clicked (True / False), or the answer taken back (None: the row goes)."""
        where = feedback.c.id == int(row_id)
        self._write(feedback.delete().where(where) if helpful is None else feedback.update().where(where).values(answer=bool(helpful)))

    def add_comment(self, row_id: int, comment: str | None) -> None:
        """Set the comment of the answer record_vote stored; redacted first, as every comment."""
        self._write(feedback.update().where(feedback.c.id == int(row_id)).values(comment=_comment(comment)))

    def _write(self, statement: Executable) -> None:
        if not self.enabled:
            return
        with self._guard("feedback") as engine, engine.begin() as conn:
            conn.execute(statement)
